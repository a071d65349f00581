"""Step 1 of the power night: roleblocks and jails, resolved as chains.

A block (or jail) lands unless its user is blocked by a block that lands. Blocks that form
a circle (A blocks B, B blocks A; or A -> B -> C -> A) have no natural answer, so every
player in the circle is blocked and none of their blocks lands: "mutual blocks = both fail",
and a jailkeeper caught in a circle protects nobody.

Priority (jailkeeper 3 > roleblocker 2 > mafia roleblocker 1) only matters with
``by_priority``: then a block can only stop a blocker of *equal or lower* priority from
blocking; a lower-priority block still lands on a higher-priority blocker (stopping their
other actions) but comes too late to stop their block. The circle rule wins over priority.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...graphs import strongly_connected_components
from ...text import _, ngettext
from ..base import names


@dataclass(frozen=True)
class Block:
    """``user`` blocks (or, with ``jail``, jails) ``target`` with the user's priority."""

    user: str
    target: str
    priority: int
    jail: bool = False

    @property
    def verb(self) -> str:
        return "jail" if self.jail else "block"


@dataclass(frozen=True)
class BlockOutcome:
    landed: tuple[Block, ...]
    failed: tuple[Block, ...]
    circles: tuple[tuple[str, ...], ...]  # each circle's players, in blocking order
    blocked: frozenset[str]  # every player whose actions fail tonight
    jailed: frozenset[str]  # targets of a landed jail: blocked and protected
    explanation: tuple[str, ...]


def find_circles(blocks: Iterable[Block]) -> tuple[tuple[str, ...], ...]:
    """Every circle of blocks (strongly connected groups that block each other), each
    naming its players in the order they acted."""
    edges: dict[str, list[str]] = {}
    for b in blocks:
        edges.setdefault(b.user, []).append(b.target)
    return tuple(
        group
        for group in strongly_connected_components(edges)
        if len(group) > 1 or group[0] in edges[group[0]]
    )


def resolve_blocks(blocks: Sequence[Block], by_priority: bool = False) -> BlockOutcome:
    """Which blocks land, who is blocked and who is jailed (see the module docstring)."""
    circles = find_circles(blocks)
    in_circle = {name for circle in circles for name in circle}
    aimed_at: dict[str, list[Block]] = {}
    for b in blocks:
        aimed_at.setdefault(b.target, []).append(b)
    memo: dict[Block, bool] = {}

    def can_stop(stopper: Block, block: Block) -> bool:
        return not by_priority or stopper.priority >= block.priority

    def lands(block: Block) -> bool:
        if block not in memo:
            # Outside circles the blocks feeding into a user form a tree, so this ends.
            stoppers = (c for c in aimed_at.get(block.user, ()) if can_stop(c, block))
            memo[block] = block.user not in in_circle and not any(lands(c) for c in stoppers)
        return memo[block]

    depth_memo: dict[Block, int] = {}

    def depth(block: Block) -> int:  # how many blocks feed into this one: explain causes first
        if block not in depth_memo:
            feeding = [] if block.user in in_circle else aimed_at.get(block.user, [])
            depth_memo[block] = 1 + max(map(depth, feeding), default=-1)
        return depth_memo[block]

    position = {b: i for i, b in enumerate(blocks)}
    ordered = sorted(blocks, key=lambda b: (depth(b), -b.priority, position[b]))
    landed = tuple(b for b in ordered if lands(b))
    failed = tuple(b for b in ordered if not lands(b))
    blocked = frozenset(in_circle | {b.target for b in landed})
    jailed = frozenset(b.target for b in landed if b.jail)
    jailers = {b.user for b in blocks if b.jail}
    lines = [_circle_line(circle, jailers) for circle in circles]
    for b in ordered:
        if b in landed:
            outranked = [c for c in landed if c.user == b.target and not can_stop(b, c)]
            lines.append(_landed_line(b, outranked))
        elif b.user not in in_circle:
            stoppers = sorted({c.user for c in landed if c.target == b.user and can_stop(c, b)})
            line = (
                _("%(user)s's jail on %(target)s fails: %(user)s was stopped by %(stoppers)s.")
                if b.jail
                else _(
                    "%(user)s's block on %(target)s fails: %(user)s was stopped by %(stoppers)s."
                )
            )
            lines.append(line % {"user": b.user, "target": b.target, "stoppers": names(stoppers)})
    return BlockOutcome(landed, failed, circles, blocked, jailed, tuple(lines))


def _circle_line(circle: tuple[str, ...], jailers: set[str]) -> str:
    jail = [name for name in circle if name in jailers]
    values = {"players": names(circle), "n": len(circle), "jailers": names(jail)}
    if len(circle) == 2:
        line = (
            _(
                "%(players)s block each other in a circle, so both are blocked: none of their "
                "actions happens (%(jailers)s's jail protects nobody)."
            )
            if jail
            else _(
                "%(players)s block each other in a circle, so both are blocked: none of their "
                "actions happens."
            )
        )
    elif jail:
        line = ngettext(
            "%(players)s block each other in a circle, so all %(n)s are blocked: none of their "
            "actions happens (%(jailers)s's jail protects nobody).",
            "%(players)s block each other in a circle, so all %(n)s are blocked: none of their "
            "actions happens (%(jailers)s's jail protects nobody).",
            len(circle),
        )
    else:
        line = ngettext(
            "%(players)s block each other in a circle, so all %(n)s are blocked: none of their "
            "actions happens.",
            "%(players)s block each other in a circle, so all %(n)s are blocked: none of their "
            "actions happens.",
            len(circle),
        )
    return line % values


def _landed_line(b: Block, outranked: list[Block]) -> str:
    values = {"user": b.user, "target": b.target}
    if b.jail:
        line = (
            _(
                "%(user)s jails %(target)s: %(target)s's actions are stopped and %(target)s "
                "is protected from kills tonight"
            )
            % values
        )
    else:
        line = _("%(user)s roleblocks %(target)s: %(target)s's actions are stopped") % values
    for c in outranked:
        but = (
            _("%(line)s, but %(user)s's jail has higher priority and still happens")
            if c.jail
            else _("%(line)s, but %(user)s's block has higher priority and still happens")
        )
        line = but % {"line": line, "user": c.user}
    return _("%(line)s.") % {"line": line}
