"""Every state change of a game, and nothing else changes state.

Views, the API, websocket consumers and Celery tasks call the public functions re-exported
here; each module holds one kind of state change (Zulip's ``zerver/actions/`` split):

* ``lobby``: creating a game, sign-ups, the start (the deal and role PMs);
* ``posts``: posting in a thread, and the bold vote a day post carries;
* ``votes``: vote and unvote buttons, hammer and lock, classic nominations;
* ``nights``: night actions (checked by the resolver) and private results in words;
* ``phases``: deadlines ending days and nights, deaths, the win check, the game's end;
* ``host``: deadline controls, modkills and replacements;
* ``turns``: table days (city, classic, power): turns, passes, the host's skip, over
  ``table`` (the day script's state on the phase and the turn's clock).
* ``day_actions``: a day vigilante's shot and a day investigator's check, resolved at once;
* ``vote_count_posts``: numbered vote counts posted on request or on a schedule;
* ``reliability``: what an inactivity modkill does beyond its game (out of the league's
  queues, the league app's, through ``hooks.bench``, inside the modkill's transaction);
* ``absences``: V/LA; ``replacements``: the replacement queue (over ``swap``);
* ``visits``: how far a person has read a thread (not game state: no lock, no event).
* ``bookmarks``: a person's bookmarks of posts, with private notes (not game state either).
* ``cohosts``: co-hosts and backup hosts, and handing a game over to a new host.
* ``wills``: a player's last will, and posting it at their death (the ``last_wills``
  variant).
* ``post_limit``: the post limit's refusal, the poster's posts left and the lift's
  announcement (the ``post_limit`` variant; scheduled with the deadlines).

Below them sit ``common`` (the game transaction, events, look-ups and checks), ``thread``
(the low-level post write) and ``ballots`` (the locked day's standing votes). Each public
function runs in ONE transaction with the game's row locks, checks the rules (a
``GameRuleError`` a player can read), writes and appends ``GameEvent`` rows, which reach the
live layer only after the commit; the ``do_*`` helpers are the same steps inside a
transaction already open.

What a player may do now (the legal night and day actions, the ballot), the vote count
and the role PM are reads (``games.reads``), re-exported here for the callers that had
them from the services.

Inside the resolver a slot is ``P<seat>`` (``Slot.resolver_name``); text from the resolver
is stored in those names and rendered with ``games.naming`` for people.
"""

from ..game_settings import MAX_PLAYERS
from ..reads.options import day_action_options, night_options
from ..reads.vote_count import SKIP_LABEL, day_count, vote_count
from .absences import cancel_absence, mark_away
from .bookmarks import bookmark_post, edit_bookmark, remove_bookmark
from .cohosts import add_cohost, hand_over, remove_cohost
from .common import MAX_POST_LENGTH, PRODS_BEFORE_ACTION, role_pm
from .day_actions import use_day_action
from .host import (
    cut_deadline_now,
    extend_deadline,
    modkill,
    pause_game,
    replace_player,
    resume_game,
)
from .lobby import (
    cancel_game,
    create_game,
    join_game,
    leave_game,
    normalize_role_list,
    remove_signup,
    resolver_flags,
    save_setup,
    saved_setup_kwargs,
    start_game,
)
from .nights import describe_result, submit_night_action, withdraw_night_action
from .phases import advance_phase, due_phases, nearing_phases
from .posts import host_post, submit_post
from .replacements import join_queue, leave_queue, replace_with_next
from .thread import PostResult, post_payload
from .turns import pass_turn, skip_speaker
from .visits import record_visit
from .vote_count_posts import post_scheduled_counts, post_vote_count
from .votes import cast_vote, nominate, unvote
from .wills import write_will

__all__ = [
    "MAX_PLAYERS",
    "MAX_POST_LENGTH",
    "PRODS_BEFORE_ACTION",
    "SKIP_LABEL",
    "PostResult",
    "add_cohost",
    "advance_phase",
    "bookmark_post",
    "cancel_absence",
    "cancel_game",
    "cast_vote",
    "create_game",
    "cut_deadline_now",
    "day_action_options",
    "day_count",
    "describe_result",
    "due_phases",
    "edit_bookmark",
    "extend_deadline",
    "hand_over",
    "host_post",
    "join_game",
    "join_queue",
    "leave_game",
    "leave_queue",
    "mark_away",
    "modkill",
    "nearing_phases",
    "night_options",
    "nominate",
    "normalize_role_list",
    "pass_turn",
    "pause_game",
    "post_payload",
    "post_scheduled_counts",
    "post_vote_count",
    "record_visit",
    "remove_bookmark",
    "remove_cohost",
    "remove_signup",
    "replace_player",
    "replace_with_next",
    "resolver_flags",
    "resume_game",
    "role_pm",
    "save_setup",
    "saved_setup_kwargs",
    "skip_speaker",
    "start_game",
    "submit_night_action",
    "submit_post",
    "unvote",
    "use_day_action",
    "vote_count",
    "withdraw_night_action",
    "write_will",
]
