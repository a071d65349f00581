"""The city night: the fixed night order (Layer 1) folded by the override lattice (Layer 2).

Actions are taken in the document's night order; the two checks only give information.
The morning then applies effects in the lattice's precedence: direct kills and the heal,
the immunity card, the Lover drag (Layer 3), and last the Mistress's vote-immunity.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...model import Action, GameState, NightOutcome
from ...text import _, gettext_noop
from ..base import names
from .roles import ROLES

# Layer 1: the order the host wakes the table. The Morning node comes after all of them.
NIGHT_ORDER = (
    "mafia kill",
    "don check",
    "sheriff check",
    "doctor heal",
    "mistress visit",
    "maniac kill",
)

# Named in a list ("the mafia kill and the Maniac's kill"): translated where it is used.
KILL_NAMES = {
    "mafia kill": gettext_noop("the mafia kill"),
    "maniac kill": gettext_noop("the Maniac's kill"),
}
# What a check tells, as the explanation says it.
CHECK_RESULTS = {
    "red": gettext_noop("red"),
    "black": gettext_noop("black"),
    "sheriff": gettext_noop("sheriff"),
    "not_sheriff": gettext_noop("not sheriff"),
}


# Layer 2 edge "Doctor heal -> kill": always for the mafia, by flag for the Maniac.
HEAL_NEGATES: dict[str, Callable[[Mapping[str, Any]], bool]] = {
    "mafia kill": lambda flags: True,
    "maniac kill": lambda flags: flags["healCancelsManiacKill"],
}

# Abilities under the "not the same player two nights running" cooldown, and their flag.
NO_REPEAT_FLAG = {"heal": "doctorNoRepeatTarget", "visit": "mistressNoRepeatTarget"}


def is_faction_kill(state: GameState, action: Action) -> bool:
    """A ``kill`` by a player whose own role has none: the mafia's shared kill."""
    own = ROLES[state.player(action.actor).role].ability(action.ability)
    return action.ability == "kill" and own is None


def step_of(state: GameState, action: Action) -> str:
    if is_faction_kill(state, action):
        return "mafia kill"
    return f"{state.player(action.actor).role} {action.ability}"


@dataclass
class Night:
    """The working record of one night while the morning folds it."""

    state: GameState
    lines: list[str] = field(default_factory=list)
    results: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    kills: dict[str, list[str]] = field(default_factory=dict)  # target -> kill steps
    heals: dict[str, str] = field(default_factory=dict)  # target -> doctor
    visits: list[tuple[str, str]] = field(default_factory=list)  # (mistress, live target)
    dying: list[str] = field(default_factory=list)
    vote_immunity: list[str] = field(default_factory=list)

    @property
    def flags(self) -> Mapping[str, Any]:
        return self.state.flags

    def die(self, name: str) -> None:
        if name not in self.dying:
            self.dying.append(name)


def resolve(state: GameState, actions: tuple[Action, ...]) -> NightOutcome:
    night = Night(state)
    standing = _standing_orders(night, actions)
    for action in sorted(standing, key=lambda a: (NIGHT_ORDER.index(step_of(state, a)), a.index)):
        STEPS[step_of(state, action)](night, action)
    for morning_step in (_kills_and_heal, _lover_drag, _vote_immunity):
        morning_step(night)
    if not night.dying:
        night.lines.append(_("Nobody dies tonight."))
    dead = tuple(sorted(night.dying))
    return NightOutcome(
        dead=dead,
        results={k: tuple(v) for k, v in night.results.items()},
        # City shows no card when a player dies: roles stay hidden until the game ends.
        reveals={name: "unknown" for name in dead},
        vote_immunity=tuple(sorted(night.vote_immunity)),
        explanation=tuple(night.lines),
        state=state.with_dead(dead),
    )


def _standing_orders(night: Night, actions: tuple[Action, ...]) -> list[Action]:
    """Every action, but only one mafia kill: the Don's last order, else the last one."""
    state = night.state
    orders = [a for a in actions if is_faction_kill(state, a)]
    if len(orders) <= 1:
        return list(actions)
    by_don = [a for a in orders if state.player(a.actor).role == "don"]
    chosen = (by_don or orders)[-1]
    line = (
        _("The mafia's kill is %(actor)s's order: the Don has the final say.")
        if by_don
        else _("The mafia's kill is %(actor)s's order: the last order stands.")
    )
    night.lines.append(line % {"actor": chosen.actor})
    return [a for a in actions if a is chosen or not is_faction_kill(state, a)]


# -- Layer 1 steps -------------------------------------------------------------------------
def _kill(night: Night, action: Action) -> None:
    step = step_of(night.state, action)
    mafia = step == "mafia kill"
    if not action.targets:
        line = (
            _("The mafia (%(actor)s) holds fire.")
            if mafia
            else _("The Maniac (%(actor)s) holds fire.")
        )
        night.lines.append(line % {"actor": action.actor})
        return
    target = action.targets[0]
    values = {"actor": action.actor, "target": target}
    if not night.state.is_alive(target):
        line = (
            _("The mafia kill on %(target)s does nothing: %(target)s is already dead.")
            if mafia
            else _("The Maniac's kill on %(target)s does nothing: %(target)s is already dead.")
        )
        night.lines.append(line % values)
        return
    line = (
        _("The mafia (%(actor)s) shoots %(target)s.")
        if mafia
        else _("The Maniac (%(actor)s) shoots %(target)s.")
    )
    night.lines.append(line % values)
    night.kills.setdefault(target, []).append(step)


def _check(result_of: Callable[[GameState, str], str]) -> Callable[[Night, Action], None]:
    def check(night: Night, action: Action) -> None:
        if not action.targets:
            return
        target = action.targets[0]
        result = result_of(night.state, target)
        night.results.setdefault(action.actor, []).append(
            {"kind": "investigation", "target": target, "result": result}
        )
        night.lines.append(
            _("%(actor)s checks %(target)s: %(result)s.")
            % {
                "actor": action.actor,
                "target": target,
                # i18n: marked at its source
                "result": _(CHECK_RESULTS[result]),
            }
        )

    return check


def _sheriff_result(state: GameState, target: str) -> str:
    # Red is the town; every black card reads black, the Maniac included.
    return "red" if state.player(target).alignment == "town" else "black"


def _don_result(state: GameState, target: str) -> str:
    return "sheriff" if state.player(target).role == "sheriff" else "not_sheriff"


def _protect(night: Night, action: Action) -> None:
    """A heal or a visit: a no-op on the dead, void when it repeats last night's target."""
    if not action.targets:
        return
    target, verb = action.targets[0], action.ability
    heal = verb == "heal"
    values = {"actor": action.actor, "target": target, "flag": NO_REPEAT_FLAG[verb]}
    if not night.state.is_alive(target):
        line = (
            _("%(actor)s's heal does nothing: %(target)s is already dead.")
            if heal
            else _("%(actor)s's visit does nothing: %(target)s is already dead.")
        )
        night.lines.append(line % values)
        return
    if _repeats(night, action):
        themself = target == action.actor
        if heal and themself:
            line = _(
                "%(actor)s's heal on %(target)s is void: the Doctor chose %(target)s last "
                "night too and may not heal themself two nights running (%(flag)s)."
            )
        elif heal:
            line = _(
                "%(actor)s's heal on %(target)s is void: the Doctor chose %(target)s last "
                "night too and may not heal the same player two nights running (%(flag)s)."
            )
        elif themself:
            line = _(
                "%(actor)s's visit on %(target)s is void: the Mistress chose %(target)s last "
                "night too and may not visit themself two nights running (%(flag)s)."
            )
        else:
            line = _(
                "%(actor)s's visit on %(target)s is void: the Mistress chose %(target)s last "
                "night too and may not visit the same player two nights running (%(flag)s)."
            )
        night.lines.append(line % values)
        return
    line = _("%(actor)s heals %(target)s.") if heal else _("%(actor)s visits %(target)s.")
    night.lines.append(line % values)
    if heal:
        night.heals[target] = action.actor
    else:
        night.visits.append((action.actor, target))


def _repeats(night: Night, action: Action) -> bool:
    flag = NO_REPEAT_FLAG[action.ability]
    if not night.flags[flag]:
        return False
    last = night.state.memory.get("last_targets", {}).get(action.actor, {})
    if action.targets[0] not in last.get(action.ability, ()):
        return False
    return night.flags["repeatTargetScope"] == "anyTarget" or action.targets[0] == action.actor


STEPS: dict[str, Callable[[Night, Action], None]] = {
    "mafia kill": _kill,
    "don check": _check(_don_result),
    "sheriff check": _check(_sheriff_result),
    "doctor heal": _protect,
    "mistress visit": _protect,
    "maniac kill": _kill,
}


# -- Morning: the override lattice, in precedence order -----------------------------------
def _kills_and_heal(night: Night) -> None:
    """Precedence 1 and 2: the heal's full-night protection, then the immunity card."""
    for target, steps in night.kills.items():
        kills = names([_(KILL_NAMES[s]) for s in steps])  # i18n: marked at its source
        healed = target in night.heals
        standing = [s for s in steps if not (healed and HEAL_NEGATES[s](night.flags))]
        immune = night.state.player(target).immune
        values = {
            "target": target,
            "kills": kills,
            "standing": names([_(KILL_NAMES[s]) for s in standing]),  # i18n: marked at its source
        }
        if not standing:
            if immune:
                line = _(
                    "%(target)s survives %(kills)s: %(target)s holds an immunity card, so the "
                    "Doctor's save is not counted."
                )
            elif len(steps) > 1:
                line = _(
                    "%(target)s survives: the Doctor's heal negates %(kills)s "
                    "(full-night protection)."
                )
            else:
                line = _("%(target)s survives: the Doctor's heal negates %(kills)s.")
            night.lines.append(line % values)
            continue
        if immune:
            line = (
                _(
                    "%(target)s survives: %(target)s's immunity card stops the night kill "
                    "(%(kills)s); the Doctor's heal cannot stop %(standing)s "
                    "(healCancelsManiacKill is off), so the save is void."
                )
                if healed
                else _(
                    "%(target)s survives: %(target)s's immunity card stops the night kill "
                    "(%(kills)s)."
                )
            )
            night.lines.append(line % values)
            continue
        line = (
            _(
                "%(target)s dies: %(kills)s hit %(target)s; the Doctor's heal cannot stop "
                "%(standing)s (healCancelsManiacKill is off), so the save is void."
            )
            if healed
            else _("%(target)s dies: %(kills)s hit %(target)s.")
        )
        night.lines.append(line % values)
        night.die(target)


def _lover_drag(night: Night) -> None:
    """Precedence 3: a Mistress who dies takes the player she visited (Layer 3 link)."""
    dragged: set[tuple[str, str]] = set()
    changed = True
    while changed:  # a walk along the links, should a dragged player be a Mistress too
        changed = False
        for mistress, target in night.visits:
            if mistress not in night.dying or (mistress, target) in dragged:
                continue
            dragged.add((mistress, target))
            changed = _drag(night, mistress, target) or changed


def _drag(night: Night, mistress: str, target: str) -> bool:
    flags = night.flags
    values = {"target": target, "mistress": mistress}
    if target == mistress:
        return False
    if not flags["loverDeathDrag"]:
        night.lines.append(
            _("%(target)s is not dragged along by %(mistress)s: loverDeathDrag is off.") % values
        )
        return False
    if target in night.dying:
        night.lines.append(
            _("%(target)s was visited by the Mistress (%(mistress)s) and dies anyway.") % values
        )
        return False
    if target in night.heals and flags["loverDragSavable"]:
        night.lines.append(
            _(
                "%(target)s survives the Lover drag: the Doctor's heal saves %(target)s "
                "(loverDragSavable)."
            )
            % values
        )
        return False
    immune = night.state.player(target).immune
    if immune and flags["immunitySavesFromDrag"]:
        night.lines.append(
            _(
                "%(target)s survives the Lover drag: the immunity card saves %(target)s "
                "(immunitySavesFromDrag)."
            )
            % values
        )
        return False
    why = [
        _(
            "%(target)s dies: the Mistress (%(mistress)s) visited %(target)s and she died "
            "(the Lover drag)"
        )
        % values
    ]
    if immune:
        why.append(_("%(target)s's immunity card does not stop a drag") % values)
    if target in night.heals:
        why.append(_("the Doctor's heal does not stop a drag (loverDragSavable is off)"))
    night.lines.append(_("%(reasons)s.") % {"reasons": "; ".join(why)})
    night.die(target)
    return True


def _vote_immunity(night: Night) -> None:
    """Precedence 4: a Mistress who survives shields her surviving partner from the vote."""
    for mistress, target in night.visits:
        if mistress in night.dying:
            continue
        values = {"target": target, "mistress": mistress}
        if target in night.dying:
            night.lines.append(
                _(
                    "No Lover drag from %(target)s's death: the link runs only from the "
                    "Mistress to the player she visited, and she survived."
                )
                % values
            )
        elif not night.flags["loverGrantsVoteImmunity"]:
            night.lines.append(
                _(
                    "%(mistress)s's visit gives %(target)s no vote-immunity "
                    "(loverGrantsVoteImmunity is off)."
                )
                % values
            )
        elif target not in night.vote_immunity:
            night.vote_immunity.append(target)
            night.lines.append(
                _(
                    "%(target)s cannot be voted out tomorrow: the Mistress (%(mistress)s) "
                    "visited %(target)s and survived the night."
                )
                % values
            )
    if night.flags["immunityBlocksVote"]:
        for player in night.state.alive:
            if player.immune and player.name not in night.dying + night.vote_immunity:
                night.vote_immunity.append(player.name)
                night.lines.append(
                    _(
                        "%(player)s cannot be voted out tomorrow: the immunity card also "
                        "blocks the day vote (immunityBlocksVote)."
                    )
                    % {"player": player.name}
                )
