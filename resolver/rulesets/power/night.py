"""The power night: a fixed pipeline of small steps, in the rules document's order.

1 blocks & jails, 2 saves, 3 frames, 4 investigations, 5 kills, 6 deaths, 7 bomb
retaliation, 8 tracker results, 9 death reveals (forger over janitor), then the
executioners whose target died turn into jesters. Each step reads and fills one ``Night``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ...model import Action, GameState, NightOutcome
from ...text import _, pgettext
from ..base import names
from .blocks import Block, BlockOutcome, resolve_blocks
from .roles import BLOCK_PRIORITY, MAFIA, ROLES

Result = dict[str, Any]


def is_faction_kill(state: GameState, action: Action) -> bool:
    """A ``kill`` by a role without its own gun is the mafia's shared kill."""
    return (
        action.ability == "kill" and ROLES[state.player(action.actor).role].ability("kill") is None
    )


@dataclass
class Night:
    """Everything the steps have worked out so far."""

    state: GameState
    actions: tuple[Action, ...]
    by_priority: bool = False
    blocks: BlockOutcome = field(default_factory=lambda: resolve_blocks(()))
    protectors: dict[str, list[str]] = field(default_factory=dict)  # target -> "Doc's protection"
    framed: set[str] = field(default_factory=set)
    killers: dict[str, list[str]] = field(default_factory=dict)  # victim -> shooters who hit
    causes: dict[str, list[str]] = field(default_factory=dict)  # victim -> "Vig's shot", ...
    mafia_victim: str | None = None
    dead: list[str] = field(default_factory=list)
    results: dict[str, list[Result]] = field(default_factory=dict)
    reveals: dict[str, str] = field(default_factory=dict)
    changed: dict[str, str] = field(default_factory=dict)  # player -> new role
    lines: list[str] = field(default_factory=list)

    # -- look-ups ----------------------------------------------------------------------
    def of(self, ability: str) -> list[Action]:
        """Tonight's actions of one kind that name a target (the mafia kill excluded)."""
        return [
            a
            for a in self.actions
            if a.ability == ability and a.targets and not is_faction_kill(self.state, a)
        ]

    @property
    def mafia_kill(self) -> Action | None:
        """The mafia's kill that stands: the last one submitted (it may hold fire)."""
        kills = [a for a in self.actions if is_faction_kill(self.state, a)]
        return kills[-1] if kills else None

    def blocked(self, name: str) -> bool:
        return name in self.blocks.blocked

    def performed(self, action: Action) -> bool:
        """Did this action happen (a successful visit, for the tracker)?"""
        if not action.targets:
            return False
        if action.ability in ("block", "jail"):
            return any(
                b.user == action.actor and b.target == action.target for b in self.blocks.landed
            )
        if is_faction_kill(self.state, action) and action is not self.mafia_kill:
            return False
        return not self.blocked(action.actor)

    def role(self, name: str) -> str:
        return self.state.player(name).role

    def tell(self, player: str, result: Result) -> None:
        self.results.setdefault(player, []).append(result)

    def say(self, line: str) -> None:
        self.lines.append(line)

    def fails(self, action: Action, what: str, result: bool = False) -> bool:
        """True (and says so) when the action's user is blocked tonight (``result``: an
        action that would have told its user something, which they now do not get)."""
        if self.blocked(action.actor):
            line = (
                _("%(what)s fails: %(actor)s was blocked, so gets no result.")
                if result
                else _("%(what)s fails: %(actor)s was blocked.")
            )
            self.say(line % {"what": what, "actor": action.actor})
            return True
        return False


# -- the steps -------------------------------------------------------------------------
def step_blocks(night: Night) -> None:
    blocks = [
        Block(
            a.actor, a.target or "", BLOCK_PRIORITY.get(night.role(a.actor), 0), a.ability == "jail"
        )
        for a in sorted(night.of("block") + night.of("jail"), key=lambda a: a.index)
    ]
    night.blocks = resolve_blocks(blocks, night.by_priority)
    night.lines.extend(night.blocks.explanation)
    for b in night.blocks.landed:
        if b.jail:
            night.protectors.setdefault(b.target, []).append(
                _("%(player)s's jail") % {"player": b.user}
            )


def step_saves(night: Night) -> None:
    for a in night.of("protect"):
        what = _("%(actor)s's protection of %(target)s") % {"actor": a.actor, "target": a.target}
        if not night.fails(a, what):
            night.protectors.setdefault(a.target or "", []).append(
                _("%(player)s's protection") % {"player": a.actor}
            )


def step_frames(night: Night) -> None:
    for a in night.of("frame"):
        values = {"actor": a.actor, "target": a.target}
        if not night.fails(a, _("%(actor)s's frame on %(target)s") % values):
            night.framed.add(a.target or "")
            night.say(
                _("%(actor)s frames %(target)s: %(target)s reads mafia to a cop tonight.") % values
            )


def read(night: Night, target: str) -> tuple[str, str]:
    """What a cop sees, and why."""
    values = {"target": target}
    if target in night.framed:
        return MAFIA, _("%(target)s was framed tonight") % values
    if night.role(target) == "godfather":
        return "innocent", _("the godfather reads innocent")
    if night.state.player(target).alignment == MAFIA:
        return MAFIA, _("%(target)s is mafia") % values
    return "innocent", _("%(target)s is not mafia") % values


def step_investigations(night: Night) -> None:
    for a in night.of("investigate"):
        target = a.target or ""
        values = {"actor": a.actor, "target": target}
        if night.fails(a, _("%(actor)s's investigation of %(target)s") % values, result=True):
            continue
        result, why = read(night, target)
        night.tell(a.actor, {"kind": "investigation", "target": target, "result": result})
        shown = (
            pgettext("investigation result", "mafia")
            if result == MAFIA
            else pgettext("investigation result", "innocent")
        )
        night.say(
            _("%(actor)s investigates %(target)s and reads %(result)s: %(why)s.")
            % {**values, "result": shown, "why": why}
        )


def step_kills(night: Night) -> None:
    shots = night.of("kill")
    held = [a for a in night.actions if a.ability == "kill" and not a.targets]
    standing = night.mafia_kill
    if standing is not None and standing.targets:
        shots = sorted([*shots, standing], key=lambda a: a.index)
    else:
        night.say(_("The mafia make no kill tonight."))
    for a in held:
        if not is_faction_kill(night.state, a):
            night.say(_("%(actor)s holds fire.") % {"actor": a.actor})
    for a in shots:
        target = a.target or ""
        mafia = is_faction_kill(night.state, a)
        values = {"actor": a.actor, "target": target}
        what = (
            _("the mafia's kill (sent by %(actor)s)") % values
            if mafia
            else _("%(actor)s's shot") % values
        )
        attempt = (
            _("The mafia's kill (sent by %(actor)s) on %(target)s") % values
            if mafia
            else _("%(actor)s's shot on %(target)s") % values
        )
        if night.fails(a, attempt):
            continue
        if target in night.protectors:
            night.say(
                _("%(target)s survives %(what)s: saved by %(savers)s.")
                % {"target": target, "what": what, "savers": names(night.protectors[target])}
            )
            continue
        night.killers.setdefault(target, []).append(a.actor)
        night.causes.setdefault(target, []).append(what)
        if mafia:
            night.mafia_victim = target


def step_deaths(night: Night) -> None:
    for victim, causes in night.causes.items():
        night.dead.append(victim)
        night.say(
            _("%(victim)s dies: killed by %(causes)s.")
            % {"victim": victim, "causes": names(causes)}
        )


def step_bombs(night: Night) -> None:
    for victim in list(night.dead):
        if night.role(victim) != "bomb":
            continue
        for killer in night.killers[victim]:
            if killer not in night.dead:
                night.dead.append(killer)
            night.say(
                _("%(victim)s was a bomb: %(killer)s, who killed them, dies in the blast.")
                % {"victim": victim, "killer": killer}
            )


def step_tracks(night: Night) -> None:
    for a in night.of("track"):
        target = a.target or ""
        what = _("%(actor)s's tracking of %(target)s") % {"actor": a.actor, "target": target}
        if night.fails(a, what, result=True):
            continue
        visited = sorted(
            {
                t
                for b in night.actions
                if b.actor == target and night.performed(b)
                for t in b.targets
            }
        )
        night.tell(a.actor, {"kind": "track", "target": target, "visited": visited})
        night.say(
            _("%(actor)s tracks %(target)s: %(target)s visited %(visited)s.")
            % {"actor": a.actor, "target": target, "visited": names(visited)}
        )


def step_reveals(night: Night) -> None:
    for name in night.dead:
        night.reveals[name] = night.role(name)
    victim = night.mafia_victim
    forges = [a for a in night.of("forge") if night.performed(a)]
    cleans = [a for a in night.of("clean") if night.performed(a)]
    for a in forges + cleans:
        if a.target != victim:
            line = (
                _("%(actor)s's forge on %(target)s does nothing: not the mafia's victim.")
                if a.ability == "forge"
                else _("%(actor)s's clean on %(target)s does nothing: not the mafia's victim.")
            )
            night.say(line % {"actor": a.actor, "target": a.target})
    forges = [a for a in forges if a.target == victim]
    cleans = [a for a in cleans if a.target == victim]
    if victim is None or not (forges or cleans):
        return
    true_role = night.role(victim)
    for a in cleans:
        night.tell(a.actor, {"kind": "clean", "target": victim, "role": true_role})
    if forges:
        shown = str(forges[-1].extra["role"])
        night.reveals[victim] = shown
        values = {
            "forger": forges[-1].actor,
            "victim": victim,
            "cleaners": names([a.actor for a in cleans]),
            "shown": shown,
        }
        line = (
            _(
                "%(forger)s forges %(victim)s's role (over %(cleaners)s's cleaning): "
                "it is shown as %(shown)s."
            )
            if cleans
            else _("%(forger)s forges %(victim)s's role: it is shown as %(shown)s.")
        )
        night.say(line % values)
    else:
        night.reveals[victim] = "unknown"
        night.say(
            _("%(cleaner)s cleans %(victim)s: %(victim)s's role is shown as unknown.")
            % {"cleaner": cleans[-1].actor, "victim": victim}
        )


def step_executioners(night: Night) -> None:
    for p in night.state.alive:
        if p.role == "executioner" and p.target in night.dead and p.name not in night.dead:
            night.changed[p.name] = "jester"
            night.tell(p.name, {"kind": "role_change", "role": "jester"})
            night.say(
                _("%(player)s's target %(target)s died at night, so %(player)s becomes a jester.")
                % {"player": p.name, "target": p.target}
            )


PIPELINE: tuple[Callable[[Night], None], ...] = (
    step_blocks,
    step_saves,
    step_frames,
    step_investigations,
    step_kills,
    step_deaths,
    step_bombs,
    step_tracks,
    step_reveals,
    step_executioners,
)


def resolve(state: GameState, actions: tuple[Action, ...], by_priority: bool) -> NightOutcome:
    night = Night(state, actions, by_priority)
    for step in PIPELINE:
        step(night)
    if not night.dead:
        night.say(_("Nobody dies tonight."))
    after = state.with_dead(night.dead)
    for name, role in night.changed.items():
        after = after.with_player(replace(after.player(name), role=role, target=None))
    results = {k: tuple(v) for k, v in night.results.items()}
    return NightOutcome(
        tuple(night.dead), results, dict(night.reveals), (), tuple(night.lines), after
    )
