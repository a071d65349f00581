"""Every phase of a game with what happened in it: the night actions and day actions, the
private results and the resolver's explanation, each naming whoever held a seat then
("gus", not "Zoë Smith" who replaced gus later). Only the host
(dashboard) and, once the game is over, everyone (archive) may read it."""

from __future__ import annotations

from typing import Any

from .. import naming
from ..models import DayAction, Game, NightAction, PrivateResult, Slot
from .seats import seat_history


def phase_records(game: Game, slots: list[Slot], *, include_open: bool) -> list[dict[str, Any]]:
    """Every phase with its night actions, private results and the resolver's explanation,
    each act naming the seat's holder at the time (host dashboard and archive only)."""
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
        return history.holder(slot_id, at=getattr(act, "updated_at", None) or act.created_at)

    records = []
    day = night = 0
    for phase in phases:
        if phase.is_day:
            day += 1
            label = f"Day {day}"
        else:
            night += 1
            label = f"Night {night}"
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
                        "at": getattr(a, "updated_at", None) or a.created_at,
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
