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

    def fails(self, action: Action, what: str, then: str = "") -> bool:
        """True (and says so) when the action's user is blocked tonight."""
        if self.blocked(action.actor):
            self.say(f"{what} fails: {action.actor} was blocked{then}.")
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
            night.protectors.setdefault(b.target, []).append(f"{b.user}'s jail")


def step_saves(night: Night) -> None:
    for a in night.of("protect"):
        if not night.fails(a, f"{a.actor}'s protection of {a.target}"):
            night.protectors.setdefault(a.target or "", []).append(f"{a.actor}'s protection")


def step_frames(night: Night) -> None:
    for a in night.of("frame"):
        if not night.fails(a, f"{a.actor}'s frame on {a.target}"):
            night.framed.add(a.target or "")
            night.say(f"{a.actor} frames {a.target}: {a.target} reads mafia to a cop tonight.")


def read(night: Night, target: str) -> tuple[str, str]:
    """What a cop sees, and why."""
    if target in night.framed:
        return MAFIA, f"{target} was framed tonight"
    if night.role(target) == "godfather":
        return "innocent", "the godfather reads innocent"
    if night.state.player(target).alignment == MAFIA:
        return MAFIA, f"{target} is mafia"
    return "innocent", f"{target} is not mafia"


def step_investigations(night: Night) -> None:
    for a in night.of("investigate"):
        target = a.target or ""
        if night.fails(a, f"{a.actor}'s investigation of {target}", ", so gets no result"):
            continue
        result, why = read(night, target)
        night.tell(a.actor, {"kind": "investigation", "target": target, "result": result})
        night.say(f"{a.actor} investigates {target} and reads {result}: {why}.")


def step_kills(night: Night) -> None:
    shots = night.of("kill")
    held = [a for a in night.actions if a.ability == "kill" and not a.targets]
    standing = night.mafia_kill
    if standing is not None and standing.targets:
        shots = sorted([*shots, standing], key=lambda a: a.index)
    else:
        night.say("The mafia make no kill tonight.")
    for a in held:
        if not is_faction_kill(night.state, a):
            night.say(f"{a.actor} holds fire.")
    for a in shots:
        target = a.target or ""
        mafia = is_faction_kill(night.state, a)
        what = f"the mafia's kill (sent by {a.actor})" if mafia else f"{a.actor}'s shot"
        if night.fails(a, f"{what[0].upper()}{what[1:]} on {target}"):
            continue
        if target in night.protectors:
            night.say(f"{target} survives {what}: saved by {names(night.protectors[target])}.")
            continue
        night.killers.setdefault(target, []).append(a.actor)
        night.causes.setdefault(target, []).append(what)
        if mafia:
            night.mafia_victim = target


def step_deaths(night: Night) -> None:
    for victim, causes in night.causes.items():
        night.dead.append(victim)
        night.say(f"{victim} dies: killed by {names(causes)}.")


def step_bombs(night: Night) -> None:
    for victim in list(night.dead):
        if night.role(victim) != "bomb":
            continue
        for killer in night.killers[victim]:
            if killer not in night.dead:
                night.dead.append(killer)
            night.say(f"{victim} was a bomb: {killer}, who killed them, dies in the blast.")


def step_tracks(night: Night) -> None:
    for a in night.of("track"):
        target = a.target or ""
        if night.fails(a, f"{a.actor}'s tracking of {target}", ", so gets no result"):
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
        night.say(f"{a.actor} tracks {target}: {target} visited {names(visited)}.")


def step_reveals(night: Night) -> None:
    for name in night.dead:
        night.reveals[name] = night.role(name)
    victim = night.mafia_victim
    forges = [a for a in night.of("forge") if night.performed(a)]
    cleans = [a for a in night.of("clean") if night.performed(a)]
    for a in forges + cleans:
        if a.target != victim:
            night.say(
                f"{a.actor}'s {a.ability} on {a.target} does nothing: not the mafia's victim."
            )
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
        over = f" (over {names([a.actor for a in cleans])}'s cleaning)" if cleans else ""
        night.say(f"{forges[-1].actor} forges {victim}'s role{over}: it is shown as {shown}.")
    else:
        night.reveals[victim] = "unknown"
        night.say(f"{cleans[-1].actor} cleans {victim}: {victim}'s role is shown as unknown.")


def step_executioners(night: Night) -> None:
    for p in night.state.alive:
        if p.role == "executioner" and p.target in night.dead and p.name not in night.dead:
            night.changed[p.name] = "jester"
            night.tell(p.name, {"kind": "role_change", "role": "jester"})
            night.say(f"{p.name}'s target {p.target} died at night, so {p.name} becomes a jester.")


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
        night.say("Nobody dies tonight.")
    after = state.with_dead(night.dead)
    for name, role in night.changed.items():
        after = after.with_player(replace(after.player(name), role=role, target=None))
    results = {k: tuple(v) for k, v in night.results.items()}
    return NightOutcome(
        tuple(night.dead), results, dict(night.reveals), (), tuple(night.lines), after
    )
