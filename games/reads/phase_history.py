"""Every phase of a game with what happened in it: the night actions and day actions, the
private results and the resolver's explanation, each naming whoever held a seat then
("gus", not "Zoë Smith" who replaced gus later). Only the host
(dashboard) and, once the game is over, everyone (archive) may read it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .. import naming
from ..models import DayAction, Game, NightAction, Phase, PrivateResult, Slot
from .seats import seat_history


def phase_records(
    game: Game, slots: list[Slot], *, include_open: bool, history: naming.SeatHistory | None = None
) -> list[dict[str, Any]]:
    """Every phase with its night actions, private results and the resolver's explanation,
    each act naming the seat's holder at the time (host dashboard and archive only); the
    caller's ``history`` of the seats, if it has read it already."""
    if history is None:
        history = seat_history(game, slots)
    by_id = {s.pk: s for s in slots}
    phases = game.phases.order_by("number")
    if not include_open:
        phases = phases.filter(resolved=True)
    actions: dict[int, list[NightAction]] = {}
    for action in NightAction.objects.filter(phase__game=game).order_by("updated_at", "id"):
        actions.setdefault(action.phase_id, []).append(action)
    # Day actions (a day vigilante's shot...) sit with their day, their lines before the vote's.
    day_lines: dict[int, list[str]] = {}
    for used in DayAction.objects.filter(phase__game=game).order_by("id"):
        actions.setdefault(used.phase_id, []).append(used)  # type: ignore[arg-type]
        day_lines.setdefault(used.phase_id, []).extend(used.report.get("explanation", []))
    results: dict[int, list[PrivateResult]] = {}
    for result in PrivateResult.objects.filter(phase__game=game).order_by("id"):
        results.setdefault(result.phase_id, []).append(result)

    def held(slot_id: int, act: NightAction | DayAction) -> str:
        """The slot's holder when the act was sent."""
        if slot_id not in by_id:
            return "?"
        return history.holder(slot_id, at=_sent_at(act))

    records = []
    # The thread's own names ("Night 0" for classic's night zero): the archive counted
    # nights from 1 where the thread says 0, 1, 2 (issue 33).
    ordered = list(phases)
    Phase.read_labels(ordered)
    for phase in ordered:
        label = phase.label
        report = phase.report or {}
        names = history.seat_names(phase=phase.number)
        records.append(
            {
                "phase": phase,
                "label": label,
                "explanation": [
                    naming.render(line, names)
                    for line in [*day_lines.get(phase.pk, []), *report.get("explanation", [])]
                ],
                "notes": [naming.render(line, names) for line in report.get("site_notes", [])],
                "actions": [
                    {
                        "actor": held(a.actor_id, a),
                        "ability": a.ability,
                        "targets": [held(t, a) for t in a.targets],
                        "extra": getattr(a, "extra", {}),
                        "at": _sent_at(a),
                    }
                    for a in actions.get(phase.pk, [])
                ],
                "results": [
                    {"slot": by_id.get(r.slot_id), "text": r.text}
                    for r in results.get(phase.pk, [])
                ],
            }
        )
    return records


def _sent_at(act: NightAction | DayAction) -> datetime:
    """When an act was sent: a night action's last change (its updated_at, never empty), a
    day action's use."""
    return act.updated_at if isinstance(act, NightAction) else act.created_at
