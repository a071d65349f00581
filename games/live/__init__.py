"""The live layer: game events delivered to open pages and sockets, in order, after commit.

Modules, each with one job (imports go down the list; nothing here imports the views,
the API or the services):

- ``kinds``: the sets the delivery needs, derived from ``games.event_kinds``;
- ``wire``: frame text (``dumps``), channel-layer group names, tuning knobs, control messages;
- ``audiences``: who may follow what of a game (``audiences_of``, ``viewer_audiences``) and
  what an access-changing event means for open sockets (``access_meta``);
- ``render``: one event rendered once for its audience (``Renderer``: posts, the vote
  count, the spectators' phase banner, players list and table);
- ``language``: a socket's language, read at connect (the account's, else the browser's);
- ``localize``: an item rendered again in a socket's language, once per process and
  language in use (the publisher renders each item once, in the site's default);
- ``numbering``: items numbered per audience (``event_counts``, ``build_messages``,
  ``page_positions``, ``heads``): clients never see the game-wide seq;
- ``replay``: what a (re)connecting socket missed;
- ``outbox``: one socket's queue (joins frames, drops superseded states);
- ``hub``: the per-process fan-out from the channel layer to local sockets;
- ``publisher``: pushes committed events to the channel layer (called on commit);
- ``tokens``: sockets signed in with an agent's token, closed when it is revoked;
- ``inbox``: each person's bell, signals to a group (a side domain's page: the league's);
- ``consumers`` and ``routing``: the websocket itself (``ws/games/<id>/``).
"""
