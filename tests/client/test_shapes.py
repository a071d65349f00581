"""The client library's models are the site's typed shapes, key for key.

The site says each answer's shape once (a ``TypedDict`` in ``games.shapes`` or a side app's
``shapes``, or in
``games.event_kinds`` for what an event carries too, from
which its API serializer and OpenAPI component are derived: ``games.api.typed``). The
client is a package of its own and cannot import the site, so its models are checked
against those shapes here: a key added to a shape without the client's model fails.
(``test_models.py`` checks the same models against live answers.)"""

from __future__ import annotations

import dataclasses
import typing

import pytest
from mafia_client import models

from games import event_kinds as shapes
from games import shapes as answers
from league import shapes as league_shapes
from notifications import shapes as notification_shapes

PAIRS = [
    (models.SlotRef, shapes.SlotRef),
    (models.TurnOption, shapes.TurnOption),
    (models.Nomination, shapes.Nomination),
    (models.Ballot, shapes.Ballot),
    (models.ClosedVote, shapes.ClosedVote),
    (models.Turn, shapes.TurnPayload),
    (models.Voter, shapes.Voter),
    (models.Wagon, shapes.Wagon),
    (models.Away, shapes.AwayRef),
    (models.Dead, shapes.Dead),
    (models.VoteCount, shapes.VoteCountPayload),
    (models.Post, answers.Post),
    (models.Phase, answers.Phase),
    (models.Player, answers.Player),
    (models.Partner, answers.Partner),
    (models.YourSeat, answers.YourSeat),
    (models.Ability, answers.Ability),
    (models.DayOption, answers.DayOption),
    (models.Action, answers.Action),
    (models.Result, answers.Result),
    (models.RolePM, answers.RolePM),
    (models.IsoCount, answers.IsoCount),
    (models.PostPage, answers.PostPage),
    (models.PostResult, answers.PostResult),
    (models.VoteResult, shapes.VoteResult),
    (models.Unread, answers.Unread),
    (models.MyGame, answers.MyGame),
    (models.MyGames, answers.MyGames),
    (models.Notification, notification_shapes.Notification),
    (models.NotificationPage, notification_shapes.NotificationPage),
    # The client's ``Queue`` is a league queue (the site's ``Queue`` is a game's
    # replacement queue, which the client does not read).
    (models.Queue, league_shapes.LeagueQueue),
]


@pytest.mark.parametrize(("model", "shape"), PAIRS, ids=[m.__name__ for m, _ in PAIRS])
def test_the_client_model_has_the_shape_s_keys(model: type, shape: type) -> None:
    fields = {f.name for f in dataclasses.fields(model)} - {"raw"}
    keys = set(typing.get_type_hints(shape))
    assert fields == keys, {"only in the client": fields - keys, "only on the site": keys - fields}
