"""The forum day: the vote (majority with a hammer, or plurality) and vote modifiers.

Vote modifiers sit on a role-list entry like any modifier: ``loved`` (+1 to the votes
needed to eliminate them), ``hated`` (-1), ``double_voter`` (their ballot counts twice),
``vote_weight:N`` (counts N times) and ``lynch_proof`` (reaching the threshold does not
eliminate them). ``count_votes`` is the live vote count the site shows (L-n per wagon);
``resolve_day`` ends the day by the same count.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...model import SKIP, DayVotes, GameState, Player
from ...text import _
from ...votes import Plurality, VoteCount, plurality, tally
from ..base import names, split_modifier

# Threshold adjustments of the vote modifiers that have one.
THRESHOLD = {"loved": +1, "hated": -1}


def vote_weight(player: Player) -> int:
    """How many votes this player's ballot counts: 1, 2 (double voter) or N (vote_weight:N)."""
    for text in player.modifiers:
        slug, arg = split_modifier(text)
        if slug == "vote_weight" and arg is not None:
            return int(arg)
        if slug == "double_voter":
            return 2
    return 1


@dataclass(frozen=True)
class VoteRules:
    """The table's vote modifiers, in the shape ``votes.tally`` takes them."""

    weights: Mapping[str, int] = field(default_factory=dict)
    thresholds: Mapping[str, int] = field(default_factory=dict)
    proof: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.weights or self.thresholds or self.proof)


def vote_rules(state: GameState) -> VoteRules:
    """Every living player's vote weight (when not 1), threshold change and lynch-proofing."""
    weights: dict[str, int] = {}
    thresholds: dict[str, int] = {}
    proof: set[str] = set()
    for p in state.alive:
        weight = vote_weight(p)
        if weight != 1:
            weights[p.name] = weight
        for slug, change in THRESHOLD.items():
            if p.has(slug):
                thresholds[p.name] = change
        if p.has("lynch_proof"):
            proof.add(p.name)
    return VoteRules(weights, thresholds, frozenset(proof))


def count_votes(state: GameState, votes: Mapping[str, str]) -> VoteCount:
    """The vote count with this table's vote modifiers (the site's live count)."""
    rules = vote_rules(state)
    return tally(votes, state.alive_names, rules.weights, rules.thresholds, rules.proof)


def resolve_day(state: GameState, day: DayVotes) -> tuple[str | None, list[str]]:
    """Who the day's votes eliminate (None: nobody) and the lines saying why."""
    rules = vote_rules(state)
    if state.flags["dayVote"] == "majority":
        return _by_majority(state, count_votes(state, day.votes), rules)
    bonus = {t: -change for t, change in rules.thresholds.items()}  # loved: one vote less
    top = plurality(day.votes, weights=rules.weights, bonus=bonus)
    return _by_plurality(top, rules, _plurality_note(day.votes, rules))


def _by_majority(
    state: GameState, count: VoteCount, rules: VoteRules
) -> tuple[str | None, list[str]]:
    alive = len(state.alive_names)
    lines = [
        _(
            "%(player)s's wagon reached %(votes)s votes, but %(player)s is lynch-proof: "
            "reaching the threshold does not eliminate them."
        )
        % {"player": t, "votes": count.needed(t)}
        for t in count.reached_but_proof
    ]
    leader = count.majority_target
    values: dict[str, object] = {"majority": count.majority, "alive": alive}
    if leader is None:
        lines.append(
            _("No wagon reached majority (%(majority)s of %(alive)s alive): nobody is eliminated.")
            % values
        )
        return None, lines
    if leader == SKIP:
        lines.append(
            _("A majority (%(majority)s) voted for no elimination: nobody is eliminated.") % values
        )
        return None, lines
    wagon = count.wagon(leader)
    assert wagon is not None  # the majority target always has a wagon
    need = count.needed(leader)
    values = {
        "player": leader,
        "voters": names(list(wagon.voters)),
        "weighted": _weighted(wagon.voters, wagon.weight, rules),
        "need": need,
        "alive": alive,
    }
    if leader not in rules.thresholds:
        line = _(
            "%(player)s is eliminated: %(voters)s voted for them%(weighted)s, reaching "
            "majority (%(need)s of %(alive)s alive)."
        )
    elif rules.thresholds[leader] > 0:
        line = _(
            "%(player)s is eliminated: %(voters)s voted for them%(weighted)s, reaching the "
            "%(need)s votes %(player)s needs as a loved player (%(alive)s alive)."
        )
    else:
        line = _(
            "%(player)s is eliminated: %(voters)s voted for them%(weighted)s, reaching the "
            "%(need)s votes %(player)s needs as a hated player (%(alive)s alive)."
        )
    lines.append(line % values)
    return leader, lines


def _by_plurality(top: Plurality, rules: VoteRules, note: str) -> tuple[str | None, list[str]]:
    if not top.leaders:
        return None, [_("Nobody voted: nobody is eliminated.")]
    values = {"player": top.single, "votes": top.votes, "note": note}
    if top.single is None:
        values["players"] = names([_("skip") if t == SKIP else t for t in top.leaders])
        line = _("%(players)s tied with %(votes)s votes each%(note)s: nobody is eliminated.")
        return None, [line % values]
    if top.single == SKIP:
        return None, [_("No elimination had the most votes: nobody is eliminated.")]
    if top.single in rules.proof:
        line = _(
            "%(player)s has the most votes (%(votes)s%(note)s) but is lynch-proof: "
            "nobody is eliminated."
        )
        return None, [line % values]
    line = _("%(player)s is eliminated with the most votes (%(votes)s%(note)s).")
    return top.single, [line % values]


def _plurality_note(votes: Mapping[str, str], rules: VoteRules) -> str:
    parts = []
    if any(v in rules.weights for v in votes):
        parts.append(_("weighted votes"))
    if any(t in rules.thresholds for t in votes.values()):
        parts.append(_("a loved player counts one vote less, a hated one one more"))
    return f"; {', '.join(parts)}" if parts else ""


def _weighted(voters: tuple[str, ...], weight: int, rules: VoteRules) -> str:
    heavy = [
        _("%(voter)s's counts %(weight)s") % {"voter": v, "weight": rules.weights[v]}
        for v in voters
        if v in rules.weights
    ]
    if not heavy:
        return ""
    return _(" (%(weight)s votes: %(heavy)s)") % {"weight": weight, "heavy": ", ".join(heavy)}
