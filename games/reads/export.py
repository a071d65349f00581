"""Open data: a finished game as one JSON object (issue 34, part 8), for
``GET /api/v1/games/{id}/export/`` and ``manage.py export_games`` (JSON Lines).

Nothing of a game is exported before it ends. Then everything is: the roles, every thread's
posts, every vote, the night and day actions, the resolver's explanations, the players'
thoughts, and what side domains add under ``parts`` (analytics' belief probes). People are
named only if they let open data name them (``OpenDataConsent``): everyone else is their
seat ("Seat 3"; the host "the host"), in the lists and inside every text (a post's body, a
thought) where their name is written. Agents are always named: an agent's games are its
public record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..hooks import export_parts
from ..models import (
    Agent,
    DayAction,
    Game,
    NightAction,
    OpenDataConsent,
    Phase,
    Post,
    Replacement,
    Slot,
    Thought,
    Vote,
    Whisper,
)
from ..naming import RESOLVER_NAME
from ..shapes import (
    ExportAction,
    ExportHolder,
    ExportPhase,
    ExportPost,
    ExportSeat,
    ExportThought,
    ExportVote,
    ExportWhisper,
    GameExport,
)

SCHEMA = 1
HOST = "the host"


def seat_label(seat: int) -> str:
    return f"Seat {seat}"


class Names:
    """Who may be named in this game's export, and the text with everyone else's names
    written as their seat."""

    def __init__(self, game: Game, slots: list[Slot], replacements: list[Replacement]) -> None:
        users: dict[int, Any] = {game.host_id: game.host}
        seats: dict[int, int] = {}  # user id -> the seat they played (the last one)
        for slot in slots:
            users[slot.user_id] = slot.user
            seats[slot.user_id] = slot.seat
        for row in replacements:
            users[row.old_user_id] = row.old_user
            seats.setdefault(row.old_user_id, row.slot.seat)
        ids = list(users)
        named = set(
            OpenDataConsent.objects.filter(user_id__in=ids).values_list("user_id", flat=True)
        )
        self.agents = set(Agent.objects.filter(user_id__in=ids).values_list("user_id", flat=True))
        self.named = named | self.agents
        # Each unnamed person's name -> what is written instead, longest first (a name that
        # contains another is replaced whole).
        hidden = {
            user.get_username(): (seat_label(seats[uid]) if uid in seats else HOST)
            for uid, user in users.items()
            if uid not in self.named
        }
        self._hidden = hidden
        self._pattern = (
            re.compile(
                r"(?<!\w)("
                + "|".join(re.escape(n) for n in sorted(hidden, key=len, reverse=True))
                + r")(?!\w)",
                re.IGNORECASE,
            )
            if hidden
            else None
        )
        self._folded = {n.casefold(): label for n, label in hidden.items()}

    def of(self, user: Any) -> str | None:
        return user.get_username() if user.pk in self.named else None

    def text(self, value: str) -> str:
        if self._pattern is None:
            return value
        return self._pattern.sub(lambda m: self._folded[m.group(0).casefold()], value)


def game_export(game: Game) -> GameExport | None:
    """The finished game as open data; None while it has not ended (or was cancelled)."""
    if not game.is_finished:
        return None
    slots = list(game.slots.select_related("user").order_by("seat"))
    replacements = list(
        Replacement.objects.filter(slot__game=game)
        .select_related("slot", "old_user", "new_user")
        .order_by("at", "id")
    )
    names = Names(game, slots, replacements)
    seat_of = {s.pk: s.seat for s in slots}
    phases = list(game.phases.prefetch_related("night_actions", "day_actions").order_by("number"))
    return {
        "schema": SCHEMA,
        "game": {
            "id": game.pk,
            "title": game.title,
            "ruleset": game.ruleset,
            "setup": game.setup or game.league_setup or "",
            "started_at": game.started_at.isoformat() if game.started_at else None,
            "finished_at": game.finished_at.isoformat() if game.finished_at else None,
            "winner": game.winner,
            "co_winners": list(game.co_winners or []),
        },
        "host": names.of(game.host),
        "seats": [_seat(slot, replacements, names) for slot in slots],
        "phases": [_phase(phase, seat_of) for phase in phases],
        "posts": _posts(game, seat_of, names),
        "votes": _votes(game, seat_of),
        "thoughts": _thoughts(game, seat_of, names),
        "whispers": _whispers(game, seat_of, names),
        # What side domains add (``games.hooks.register_export_part``: analytics' probes).
        "parts": export_parts(game),
    }


def _seat(slot: Slot, replacements: Iterable[Replacement], names: Names) -> ExportSeat:
    mine = [r for r in replacements if r.slot_id == slot.pk]
    people: list[tuple[Any, int | None]] = [(mine[0].old_user if mine else slot.user, None)]
    people += [(r.new_user, r.phase_number) for r in mine]
    holders: list[ExportHolder] = [
        {"name": names.of(user), "agent": user.pk in names.agents, "since_phase": since}
        for user, since in people
    ]
    return {
        "seat": slot.seat,
        "role": slot.role,
        "alignment": slot.alignment,
        "alive": slot.alive,
        "death_cause": slot.death_cause or "",
        "holders": holders,
    }


def _seats_text(line: str) -> str:
    """A resolver line with its players ("P3") as seats ("Seat 3")."""
    return RESOLVER_NAME.sub(lambda m: seat_label(int(m.group(1))), line)


def _phase(phase: Phase, seat_of: Mapping[int, int]) -> ExportPhase:
    report = phase.report or {}

    def acts(rows: Iterable[NightAction | DayAction]) -> list[ExportAction]:
        return [
            {
                "seat": seat_of[a.actor_id],
                "ability": a.ability,
                "targets": [seat_of[t] for t in a.targets if t in seat_of],
            }
            for a in rows
        ]

    return {
        "number": phase.number,
        "kind": phase.kind,
        "label": phase.label,
        "explanation": [_seats_text(line) for line in report.get("explanation", [])],
        "night_actions": acts(phase.night_actions.all()),
        "day_actions": acts(phase.day_actions.all()),
    }


def _posts(game: Game, seat_of: Mapping[int, int], names: Names) -> list[ExportPost]:
    rows = Post.objects.filter(game=game).select_related("phase").order_by("thread", "number")
    return [
        {
            "thread": p.thread,
            "number": p.number,
            "seat": seat_of.get(p.slot_id) if p.slot_id else None,
            "host": p.is_host,
            "auto": p.is_auto,
            "phase": p.phase.number if p.phase else None,
            "body": names.text(p.body),
            "at": p.created_at.isoformat(),
        }
        for p in rows
    ]


def _votes(game: Game, seat_of: Mapping[int, int]) -> list[ExportVote]:
    rows = Vote.objects.filter(phase__game=game).select_related("phase", "post").order_by("id")
    return [
        {
            "phase": v.phase.number,
            "seat": seat_of[v.voter_id],
            "kind": v.kind,
            "target": seat_of.get(v.target_id) if v.target_id else None,
            "post": v.post.number if v.post else None,
            "revote": v.revote,
            "at": v.created_at.isoformat(),
        }
        for v in rows
    ]


def _thoughts(game: Game, seat_of: Mapping[int, int], names: Names) -> list[ExportThought]:
    rows = Thought.objects.filter(game=game).select_related("phase", "post").order_by("id")
    return [
        {
            "seat": seat_of[t.slot_id],
            "phase": t.phase.number if t.phase else None,
            "act": t.act,
            "post": t.post.number if t.post else None,
            "text": names.text(t.text),
            "at": t.created_at.isoformat(),
        }
        for t in rows
    ]


def _whispers(game: Game, seat_of: Mapping[int, int], names: Names) -> list[ExportWhisper]:
    rows = Whisper.objects.filter(game=game).select_related("phase").order_by("number")
    return [
        {
            "number": w.number,
            "sender": seat_of[w.sender_id],
            "recipient": seat_of[w.recipient_id],
            "phase": w.phase.number if w.phase else None,
            "body": names.text(w.body),
            "at": w.created_at.isoformat(),
        }
        for w in rows
    ]
