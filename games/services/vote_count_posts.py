"""Numbered vote counts: "Vote count 2.3" (day 2, its third count) posted in the thread by
the site, on the host's request or on the game's schedule (``Game.vote_count_every``),
each kept with the newest vote it counted so the history links the votes that changed it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from games.i18n import in_game_language

from .. import display, markup
from ..errors import ErrorCode, WrongPhase
from ..models import Game, GameStatus, PhaseKind, SecretVotes, Thread, Vote, VoteCountPost
from ..reads.policy import require_host_control
from ..reads.vote_count import public_count, secret_note, vote_count
from .ballots import standing_votes
from .common import game_tx, require_open_phase, require_running
from .thread import do_post


def post_vote_count(user: Any, game_id: int, *, now: datetime | None = None) -> VoteCountPost:
    """The host asks the site to post the numbered vote count now."""
    with game_tx(game_id, now) as tx:
        require_host_control(tx.game, user, "count", tx.phase)
        return _post(tx)  # (its own checks too: the scheduled counts come without a host)


def post_scheduled_counts(now: datetime | None = None) -> list[int]:
    """Post a count in every running game whose schedule is due (the last count, or the
    day's start, is at least ``vote_count_every`` old); returns the games posted in."""
    now = now or timezone.now()
    posted = []
    games = Game.objects.filter(status=GameStatus.RUNNING, vote_count_every__isnull=False)
    for game_id in games.values_list("pk", flat=True):
        with game_tx(game_id, now) as tx:
            phase, every = tx.phase, tx.game.vote_count_every
            if phase is None or phase.resolved or not phase.is_day or phase.is_paused:
                continue
            if every is None:  # the host turned the counts off since the query above
                continue
            last = phase.count_posts.aggregate(at=Max("created_at"))["at"] or phase.started_at
            if now - last >= every:
                _post(tx)
                posted.append(game_id)
    return posted


def _post(tx: Any) -> VoteCountPost:
    require_running(tx.game)
    try:
        phase = require_open_phase(tx, PhaseKind.DAY)
    except WrongPhase as exc:
        if exc.code == ErrorCode.PAUSED:
            phase = tx.phase  # a paused day may still get its count
        else:
            raise WrongPhase(_("Vote counts are posted by day."), ErrorCode.NOT_DAY) from None
    # Posted and kept for the whole game: in its language, whoever asked (or the schedule).
    with in_game_language(tx.game):
        data = vote_count(phase, slots=tx.slots, votes=standing_votes(tx))
        day = tx.game.phases.filter(kind=PhaseKind.DAY, number__lte=phase.number).count()
        number = (phase.count_posts.aggregate(n=Max("number"))["n"] or 0) + 1
        label = _("Vote count %(day)s.%(number)s") % {"day": day, "number": number}
        # In the thread as everyone sees it (secret votes: totals or nothing); the history
        # keeps the whole count, shown whole to the host and to everyone once the day is over.
        text = count_text(label, public_count(tx.game, data))
    last_vote = Vote.objects.filter(phase=phase).order_by("-id").first()
    post = do_post(tx, tx.game.host, None, text, Thread.PUBLIC, is_host=True)
    return VoteCountPost.objects.create(
        phase=phase,
        number=number,
        label=label,
        post=post,
        last_vote=last_vote,
        data=data,
        created_at=tx.now,
    )


def count_text(label: str, data: dict[str, Any]) -> str:
    """The count as a forum moderator posts it (Markdown)."""
    lines = [f"**{label}**", ""]
    if data.get("secret") == SecretVotes.HIDDEN:
        lines += [_("%(note)s.") % {"note": secret_note()}, "", data["majority_text"] + "."]
        return "\n".join(lines)
    if data.get("secret"):
        lines += [_("%(note)s: each wagon shows its total only.") % {"note": secret_note()}, ""]
    for wagon in data["wagons"]:
        voters = ", ".join(
            markup.escape_markdown(v["name"]) + (f" (×{v['weight']})" if v.get("weight") else "")
            for v in wagon["voters"]
        )
        tail = f" — L-{wagon['l_minus']}" if data["vote_rule"] != "plurality" else ""
        name = markup.escape_markdown(wagon["name"])
        if data.get("secret"):
            lines.append(f"- **{name} ({wagon['count']})**{tail}")
        else:
            lines.append(f"- **{name} ({wagon['count']})**: {voters}{tail}")
    if not data["wagons"]:
        lines.append(_("No votes yet."))
    if not data.get("secret"):
        lines.append("")
        not_voting = ", ".join(markup.escape_markdown(p["name"]) for p in data["not_voting"])
        lines.append(
            _("Not voting (%(count)s): %(names)s")
            % {"count": len(data["not_voting"]), "names": not_voting or "—"}
        )
    away = data.get("away") or []
    if away:  # a paragraph of its own: a single line break would run it into the last
        lines.append("")
        names = ", ".join(
            _("%(name)s (until %(day)s)")
            % {"name": markup.escape_markdown(a["name"]), "day": display.day_label(a["until"])}
            for a in away
        )
        lines.append(_("V/LA: %(names)s") % {"names": names})
    lines.append("")
    lines.append(data["majority_text"] + ".")
    return "\n".join(lines)
