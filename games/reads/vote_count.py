"""The vote count as plain JSON-ready data: a read (no locks, no writes) that the services,
the pages and the live layer all render from. Votes are read from the vote rows (the bold
votes in posts are parsed by ``games.bold_votes`` when posted), so the live renderer never
reaches back into the services."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from .. import display, naming
from ..gateway import SKIP, GameState, VoteCount, majority_needed, rules_named, tally
from ..models import (
    Absence,
    Game,
    Phase,
    PhaseKind,
    SecretVotes,
    Slot,
    Vote,
    VoteKind,
    VoteRule,
)
from ..naming import slot_ref

# The bold vote's own word ("**Vote: No elimination**"): the same in every language (the
# vote parser reads it); the count shows ``skip_label()``, the reader's words for it.
SKIP_LABEL = gettext_noop("No elimination")


def skip_label() -> str:
    """ "No elimination" in the reader's language (a wagon's name, a chart's series)."""
    return _(SKIP_LABEL)  # i18n: marked at its source


UNREAD: Any = object()  # "not read yet", as distinct from "no phase" (None)


def counted_phase(game: Game, current: Phase | None = UNREAD) -> Phase | None:
    """The day whose vote count is shown: today, or (by night / after the end) the last.
    ``current``: the game's current phase when the caller has already read it."""
    if game.is_signups:
        return None
    phase = game.current_phase() if current is UNREAD else current
    if phase is not None and phase.kind == PhaseKind.DAY:
        return phase
    return game.phases.filter(kind=PhaseKind.DAY).order_by("-number").first()


def current_votes(phase: Phase, *, revote: bool | None = None) -> dict[int, Vote]:
    """Each voter's standing vote (latest row, unvotes dropped), in the order cast."""
    if revote is None:
        revote = phase.in_revote
    # Only each voter's latest row leaves the database: the day's vote log can be long.
    latest_ids = (
        Vote.objects.filter(phase=phase, revote=revote)
        .values("voter")
        .annotate(last=Max("id"))
        .values("last")
    )
    rows = Vote.objects.filter(pk__in=latest_ids).order_by("id").select_related("post")
    return {row.voter_id: row for row in rows if row.kind == VoteKind.VOTE}


def vote_count(
    phase: Phase, *, slots: list[Slot] | None = None, votes: dict[int, Vote] | None = None
) -> dict[str, Any]:
    """The vote count as plain JSON-ready data (views and the live layer render it).

    ``{"phase", "kind", "label", "vote_rule", "in_revote", "alive_count", "majority",
    "majority_text", "wagons": [{"target": {slot_id, seat, name} | None (no elimination),
    "name", "count" (votes: a double voter's count twice), "voter_count", "needed",
    "l_minus", "locked", "voters": [{slot_id, seat, name, post_number, locked,
    weight?}], "modifiers"?}], "not_voting": [...], "alive": [...], "dead": [{..., "role",
    "role_title"}], "vote_modifiers_public",
    "nominated": [...] (classic: each nominated player once), "at_table" (a table day: its
    ballots are the table's, shown when its vote closes), "deadline", "paused_remaining",
    "resolved"}``
    """
    game = phase.game
    if slots is None:
        slots = list(game.slots.select_related("user").order_by("seat"))
    by_id = {s.pk: s for s in slots}
    alive = [s for s in slots if s.alive]
    if votes is None:
        votes = current_votes(phase) if phase.is_day else {}
    wagons: dict[int | None, list[Vote]] = {}
    ballots: dict[str, str] = {}
    for voter_id, vote in votes.items():
        target_id = vote.target_id
        voter, target = by_id.get(voter_id), by_id.get(target_id) if target_id is not None else None
        if voter is None or not voter.alive or (target is not None and not target.alive):
            continue
        wagons.setdefault(vote.target_id, []).append(vote)
        ballots[voter.resolver_name] = target.resolver_name if target else SKIP
    count = counted(game, ballots, [s.resolver_name for s in alive])
    majority = majority_needed(len(alive))
    # Hidden vote modifiers (the setup's choice) stay hidden: the public count shows each
    # wagon's weight (the votes on it) and the plain L-n, never who is loved, hated or a
    # double voter; the day still ends by the true thresholds.
    public = game.vote_modifiers_public
    weights = count_weights(game) if public else {}

    def voter_ref(vote: Vote) -> dict[str, Any]:
        voter = by_id[vote.voter_id]
        ref = {
            **slot_ref(voter),
            "post_number": vote.post.number if vote.post else None,
            "locked": vote.locked,
        }
        if weights.get(voter.resolver_name, 1) != 1:
            ref["weight"] = weights[voter.resolver_name]
        return ref

    wagon_list: list[dict[str, Any]] = []
    for wagon in count.wagons:  # heaviest first, ties in the order they started
        key = None if wagon.target == SKIP else seat_slot(slots, wagon.target).pk
        rows = wagons[key]
        needed = count.needed(wagon.target) if public else majority
        item: dict[str, Any] = {
            "target": slot_ref(by_id[key]) if key is not None else None,
            "name": by_id[key].display_name if key is not None else skip_label(),
            "count": wagon.weight,
            "voter_count": wagon.size,
            "needed": needed,
            "l_minus": max(needed - wagon.weight, 0),
            "locked": any(v.locked for v in rows),
            "voters": [voter_ref(v) for v in rows],
        }
        if public:
            item["modifiers"] = target_modifiers(count, wagon.target)
        wagon_list.append(item)
    data: dict[str, Any] = {
        "phase": phase.number,
        "kind": phase.kind,
        "label": phase.label,
        "vote_rule": game.vote_rule,
        "in_revote": phase.in_revote,
        "revote_options": [slot_ref(by_id[i]) for i in phase.revote or [] if i in by_id],
        "alive_count": len(alive),
        "majority": majority,
        "majority_text": majority_text(game.vote_rule, len(alive), majority),
        "wagons": wagon_list,
        "not_voting": [slot_ref(seat_slot(slots, n)) for n in count.not_voting],
        "alive": [slot_ref(s) for s in alive],
        "dead": [
            {
                **slot_ref(s),
                "role": s.revealed_role or None,
                "role_title": display.role_title(game.ruleset, s.revealed_role) or None,
                "cause": s.death_cause,
            }
            for s in slots
            if not s.alive
        ],
        "vote_modifiers_public": public,
        "away": away_refs(game, slots, timezone.now().date()) if phase.is_day else [],
        "deadline": phase.deadline.isoformat() if phase.deadline else None,
        "paused_remaining": phase.paused_remaining.total_seconds()
        if phase.paused_remaining is not None
        else None,
        "resolved": phase.resolved,
        "at_table": phase.is_table_day,
    }
    if game.vote_rule == VoteRule.MAJORITY_LOCK:
        data["lock_text"] = lock_text(majority)
    if phase.is_day and rules_named(game.ruleset).uses_nominations:
        # Each nominated player (or skip) once, in the order of their first nomination.
        targets = dict.fromkeys(n.target_id for n in phase.nominations.order_by("id"))
        data["nominated"] = [slot_ref(by_id.get(t)) if t else None for t in targets]
    return data


def majority_text(vote_rule: str, alive: int, majority: int) -> str:
    """ "With 7 alive it takes 4 to eliminate" (plurality: the most votes at the deadline)."""
    if vote_rule == VoteRule.PLURALITY:
        return _("With %(alive)s alive, the most votes at the deadline eliminate") % {
            "alive": alive
        }
    return _("With %(alive)s alive it takes %(majority)s to eliminate") % {
        "alive": alive,
        "majority": majority,
    }


def lock_text(majority: int) -> str:
    """A majority-lock game's rule: "A wagon of 5 locks"."""
    return _("A wagon of %(size)s locks") % {"size": majority + 1}


def with_texts(phase: Phase, count: dict[str, Any]) -> dict[str, Any]:
    """A stored count (a day's final count, written once) with its words in the reader's
    language: the numbers are the count's, the sentences are said again from them."""
    game = phase.game
    out = {**count, "label": phase.label}
    if "alive_count" in count and "majority" in count:
        out["majority_text"] = majority_text(
            count.get("vote_rule") or game.vote_rule, count["alive_count"], count["majority"]
        )
    if "lock_text" in count:
        out["lock_text"] = lock_text(count["majority"])
    out["wagons"] = [
        {**w, "name": skip_label()} if w.get("target") is None else w
        for w in count.get("wagons", [])
    ]
    out["dead"] = [
        {**d, "role_title": display.role_title(game.ruleset, d["role"]) or None}
        if d.get("role")
        else d
        for d in count.get("dead", [])
    ]
    return out


def day_count(phase: Phase, *, slots: list[Slot] | None = None) -> dict[str, Any]:
    """The count shown for a day: once it ended, its final count as it stood then (the
    hammer vote counted, the eliminated player still among the living); else the live one."""
    if phase.resolved and phase.final_count:
        return with_texts(phase, phase.final_count)
    return vote_count(phase, slots=slots)


def counted(game: Game, ballots: dict[str, str], alive: list[str]) -> VoteCount:
    """The resolver's count of these ballots among the ``alive`` with the table's vote
    modifiers (weights, thresholds, lynch-proof); the plain tally before the deal."""
    if not game.resolver_state:
        return tally(ballots, alive)
    state = GameState.from_dict(game.resolver_state).with_alive(alive)
    return rules_named(game.ruleset).count_votes(state, ballots)


def count_weights(game: Game) -> dict[str, int]:
    """Resolver name -> how many votes their ballot counts, where not 1."""
    rules = rules_named(game.ruleset)
    if not game.resolver_state or not rules.weighted_votes:
        return {}
    return dict(rules.vote_weights(GameState.from_dict(game.resolver_state)))


def target_modifiers(count: VoteCount, target: str) -> list[str]:
    """What the public count says about a wagon's target when vote modifiers are public."""
    change = count.thresholds.get(target, 0)
    words = ["loved"] if change > 0 else ["hated"] if change < 0 else []
    if target in count.proof:
        words.append("lynch-proof")
    return words


# What the modifiers' words (data: the API's ``modifiers``) read as on the page.
MODIFIER_WORDS = {
    "loved": gettext_noop("loved"),
    "hated": gettext_noop("hated"),
    "lynch-proof": gettext_noop("lynch-proof"),
}


def seat_slot(slots: list[Slot], name: str) -> Slot:
    seat = naming.seat_of(name)
    return next(s for s in slots if s.seat == seat)


# -- secret votes (``Game.secret_votes``) -------------------------------------------------
SECRET_NOTE = gettext_noop("Votes are secret until the day ends")


def secret_note() -> str:
    """``SECRET_NOTE`` in the active language (the thread's: the game's)."""
    return _(SECRET_NOTE)  # i18n: marked at its source


def count_secrecy(game: Game, count: dict[str, Any] | None) -> str:
    """What of ``count`` is secret from everyone but the host: "" (nothing: an open game,
    or the day is over and its votes are revealed), "totals" (only each wagon's total and
    L-n show) or "hidden" (no count at all)."""
    if count is None or game.secret_votes == SecretVotes.OFF or game.is_finished:
        return ""
    # The day is over once it is resolved, or once another phase has begun (by night the
    # count shown is the last day's final one).
    if count.get("resolved") or game.phase_number != count.get("phase"):
        return ""
    return str(game.secret_votes)


def public_count(game: Game, count: dict[str, Any]) -> dict[str, Any]:
    """``count`` as everyone but the host sees it while the day runs: in a game with secret
    votes never who votes whom. "totals" keeps each wagon's total, L-n and lock (not its
    voters, nor who is not voting: with one wagon that would name its voters); "hidden"
    keeps no wagon at all. ``secret`` says which (absent: the count is whole)."""
    secrecy = count_secrecy(game, count)
    if not secrecy:
        return count
    public = {**count, "secret": secrecy, "not_voting": []}
    if secrecy == SecretVotes.HIDDEN:
        public["wagons"] = []
    else:
        public["wagons"] = [{**wagon, "voters": []} for wagon in count["wagons"]]
    return public


def count_for(game: Game, count: dict[str, Any], whole: bool) -> dict[str, Any]:
    """``count`` for a viewer: whole for the host (``whole``), else ``public_count``."""
    return count if whole else public_count(game, count)


def sees_whole_count(game: Game, user: Any) -> bool:
    """Whether ``user`` sees the whole count of ``game`` while its day runs: whoever sees
    everything (the host; ``reads.access`` decides who that is)."""
    from .access import sees_everything  # (here: access reads what reads this module)

    return sees_everything(game, user)


def votes_are_secret(game: Game, phase: Phase | None) -> bool:
    """Whether the votes of ``phase`` (a day) are still secret from everyone but the host."""
    if phase is None or game.secret_votes == SecretVotes.OFF or game.is_finished:
        return False
    return phase.kind == PhaseKind.DAY and not phase.resolved


def away_refs(game: Game, slots: list[Slot], day: date) -> list[dict[str, Any]]:
    """Living players away on ``day``, with the last day of their V/LA."""
    rows = Absence.objects.filter(slot__game=game, starts__lte=day, ends__gte=day)
    until: dict[int, date] = {}
    for row in rows:
        until[row.slot_id] = max(until.get(row.slot_id, row.ends), row.ends)
    return [
        {**slot_ref(s), "until": until[s.pk].isoformat()}
        for s in slots
        if s.alive and s.pk in until
    ]
