"""Whispers (the ``whispers`` variant): a living player's private message to another.

By day only, as on UltiMafia: a whisper is talk, and the night is for actions (the game
thread is closed to players then too). Both players must be alive and in the game while it
runs. Its body is written in the posts' markup (``games.markup``) and is at most
``MAX_WHISPER_LENGTH`` characters. Its two players and the host read it until the game
ends, then everyone (``games.reads.whispers``). With ``announced`` the site says in the
game thread that it happened ("A whispered to B."), never what it says; with ``private``
nobody else learns even that.

The whisper belongs to the seats, not the people: a replacement reads the whispers of the
seat they take, as they read its role PM.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Max
from django.utils.translation import gettext as _

from games.i18n import in_game_language

from .. import markup
from ..errors import ErrorCode, InvalidInput
from ..models import Whisper, Whispers
from ..naming import slot_ref
from ..plain_text import checked_text
from ..reads.access import Viewer
from ..reads.policy import require, whisper_refusal
from .announcements import announce, name
from .common import Tx, emit, game_tx

MAX_WHISPER_LENGTH = 2_000


def send_whisper(
    user: Any, game_id: int, *, to: Any, body: str, now: datetime | None = None
) -> Whisper:
    """``user``'s seat whispers ``body`` to the seat ``to`` (a slot id)."""
    with game_tx(game_id, now) as tx:
        # Who may whisper now is the policy's (the page's form asks it too); a mute
        # silences whispers as it does posts.
        authenticated = getattr(user, "is_authenticated", False)
        sender = tx.locked.slot_of_user(user.pk) if authenticated else None
        viewer = Viewer(tx.game, user, sender, list(tx.slots))
        require(whisper_refusal(viewer, tx.phase, now=now))
        assert sender is not None  # the policy refuses anyone else (said so to mypy)
        recipient = tx.locked.slot(to) if isinstance(to, int) and not isinstance(to, bool) else None
        if recipient is None:
            raise InvalidInput(
                _("There is no such player in this game."), ErrorCode.NO_PLAYER, "to"
            )
        if recipient.pk == sender.pk:
            raise InvalidInput(_("You cannot whisper to yourself."), ErrorCode.SELF_WHISPER, "to")
        if not recipient.alive:
            raise InvalidInput(
                _("%(name)s is dead: whisper to the living.") % {"name": recipient.display_name},
                ErrorCode.DEAD_TARGET,
                "to",
            )
        text = _checked_body(body)
        return _write(tx, sender, recipient, text)


def _checked_body(body: Any) -> str:
    return checked_text(
        body if body is not None else "",
        what="A whisper",
        field="body",
        limit=MAX_WHISPER_LENGTH,
        code=ErrorCode.INVALID,
        too_long=ErrorCode.TOO_LONG,
        empty=ErrorCode.EMPTY,
    )


def _write(tx: Tx, sender: Any, recipient: Any, body: str) -> Whisper:
    game = tx.game
    # Nothing of the game's state changes (a whisper is talk): the pages' reads of the
    # slots and the phase stay good (``Game.state_seq``).
    tx.only_posts = True
    last = Whisper.objects.filter(game=game).aggregate(n=Max("number"))["n"]
    whisper = Whisper.objects.create(
        game=game,
        phase=tx.phase,
        sender=sender,
        recipient=recipient,
        number=(last or 0) + 1,
        body=body,
        html=markup.render_post(body),
    )
    payload = {
        "sender": slot_ref(sender),
        "recipient": slot_ref(recipient),
        "phase": tx.phase.number if tx.phase is not None else None,
        "html": whisper.html,
        "created_at": whisper.created_at.isoformat(),
    }
    # Its two players' own feeds and the host's: nobody else's socket hears of it.
    for audience in (f"slot:{sender.pk}", f"slot:{recipient.pk}", "host"):
        emit(tx, "whisper", payload, audience)
    if game.whispers == Whispers.ANNOUNCED:
        with in_game_language(game):
            said = _("%(sender)s whispered to %(recipient)s.")
            announce(tx, said % {"sender": name(sender), "recipient": name(recipient)})
    return whisper
