"""Night helpers both forum night methods (RAR in rar.py, NAR in nar.py) share.

Small, stable functions over the tables of roles.py: what each ability does (its
components), the mafia's "last kill stands" rule, one-shot vests in ``state.memory``,
cop results, result objects, public reveals (a janitor's ``unknown``) and building the
``NightOutcome``. Nothing here decides an action resolution order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...model import Action, GameState, NightOutcome, Player, frozen_map
from ...text import _, gettext_noop, ngettext, pgettext
from ..base import names
from .roles import INVESTIGATION_IMMUNE, MAFIA, ROLES, VISITING_ABILITIES, cop_result

# -- what an ability does -------------------------------------------------------------
# Components (RAR's "basic components") of each ability, besides the visit itself.
# A jail is a roleblock plus a protection: one action, so one link in a RAR chain.
COMPONENTS: Mapping[str, frozenset[str]] = {
    "kill": frozenset({"kill"}),
    "protect": frozenset({"protect"}),
    "investigate": frozenset({"investigate"}),
    "block": frozenset({"block"}),
    "jail": frozenset({"block", "protect"}),
    "track": frozenset({"track"}),
    "watch": frozenset({"watch"}),
    "swap": frozenset({"swap"}),
    "redirect": frozenset({"redirect"}),
    "frame": frozenset({"frame"}),
    "clean": frozenset({"clean"}),
}

# Abilities that move other actions' effects instead of landing on a player themselves.
REDIRECTING = frozenset({"swap", "redirect"})

# Passive roles, never blocked, redirected or tracked.
PARANOID_GUN_OWNERS = frozenset({"paranoid_gun_owner"})

# memory key: names of players whose one-shot vest is used up
VESTS_SPENT = "vests_spent"


def components(ability: str) -> frozenset[str]:
    """The effects an ability produces (``kill``, ``protect``, ``block``...)."""
    return COMPONENTS.get(ability, frozenset())


def is_visit(ability: str) -> bool:
    """Whether using the ability visits its target (trackers and watchers see it, a
    paranoid gun owner shoots the visitor)."""
    return ability in VISITING_ABILITIES


def is_factional_kill(state: GameState, action: Action) -> bool:
    """A ``kill`` that is the faction's shared kill rather than the actor's own gun."""
    if action.ability != "kill":
        return False
    return ROLES[state.player(action.actor).role].ability("kill") is None


def last_kill_stands(
    state: GameState, actions: Sequence[Action]
) -> tuple[tuple[Action, ...], tuple[str, ...]]:
    """Drop the factional kills a later member of the same faction replaced.

    Only actions with targets count: ``[]`` is "no action", not "the faction holds
    fire". Returns the kept actions (in their order) and one line per dropped kill.
    """
    last: dict[str, Action] = {}
    for action in actions:
        if action.targets and is_factional_kill(state, action):
            last[state.player(action.actor).alignment] = action
    kept: list[Action] = []
    lines: list[str] = []
    for action in actions:
        if not action.targets:
            continue
        if is_factional_kill(state, action):
            final = last[state.player(action.actor).alignment]
            if final is not action:
                lines.append(
                    _(
                        "%(actor)s's mafia kill on %(target)s is replaced by %(final)s's on "
                        "%(final_target)s: the last kill submitted stands."
                    )
                    % {
                        "actor": action.actor,
                        "target": action.target,
                        "final": final.actor,
                        "final_target": final.target,
                    }
                )
                continue
        kept.append(action)
    return tuple(kept), tuple(lines)


def action_name(state: GameState, action: Action) -> str:
    """The action in a player's words, without its target: "Bob's shot"."""
    if action.ability == "kill" and is_factional_kill(state, action):
        return _("%(actor)s's mafia kill") % {"actor": action.actor}
    template = ACTION_NAMES.get(action.ability)
    if template is None:
        return _("%(actor)s's %(ability)s") % {"actor": action.actor, "ability": action.ability}
    return _(template) % {"actor": action.actor}  # i18n: marked at its source


def action_phrase(state: GameState, action: Action) -> str:
    """The action with its target: "Cat's roleblock on Bob", "Dan's swap of Ann and Eve"."""
    if action.ability == "swap":
        return _("%(actor)s's swap of %(first)s and %(second)s") % {
            "actor": action.actor,
            "first": action.targets[0],
            "second": action.targets[1],
        }
    if action.ability == "redirect":
        return _("%(actor)s's redirection of %(first)s's actions onto %(second)s") % {
            "actor": action.actor,
            "first": action.targets[0],
            "second": action.targets[1],
        }
    values = {"actor": action.actor, "target": action.target, "ability": action.ability}
    if action.ability == "kill" and is_factional_kill(state, action):
        return _("%(actor)s's mafia kill on %(target)s") % values
    template = ACTION_PHRASES.get(action.ability)
    if template is None:
        return _("%(actor)s's %(ability)s on %(target)s") % values
    return _(template) % values  # i18n: marked at its source


def reading(result: str) -> str:
    """What a cop is told ("mafia", "innocent"), inside a sentence."""
    if result == "mafia":
        return pgettext("investigation result", "mafia")
    if result == "innocent":
        return pgettext("investigation result", "innocent")
    return result


def ability_noun(state: GameState, action: Action) -> str:
    """The action's name without its actor: "shot", "mafia kill" ("their shot")."""
    if action.ability == "kill" and is_factional_kill(state, action):
        return _("mafia kill")
    noun = ABILITY_NOUNS.get(action.ability)
    return _(noun) if noun else action.ability  # i18n: marked at its source


ABILITY_NOUNS: Mapping[str, str] = {
    "kill": gettext_noop("shot"),
    "protect": gettext_noop("protection"),
    "investigate": gettext_noop("investigation"),
    "block": gettext_noop("roleblock"),
    "jail": gettext_noop("jail"),
    "track": gettext_noop("tracking"),
    "watch": gettext_noop("watch"),
    "swap": gettext_noop("swap"),
    "redirect": gettext_noop("redirection"),
    "frame": gettext_noop("frame"),
    "clean": gettext_noop("cleaning"),
}

# "Bob's shot": an action named in an explanation, without its target.
ACTION_NAMES: Mapping[str, str] = {
    "kill": gettext_noop("%(actor)s's shot"),
    "protect": gettext_noop("%(actor)s's protection"),
    "investigate": gettext_noop("%(actor)s's investigation"),
    "block": gettext_noop("%(actor)s's roleblock"),
    "jail": gettext_noop("%(actor)s's jail"),
    "track": gettext_noop("%(actor)s's tracking"),
    "watch": gettext_noop("%(actor)s's watch"),
    "swap": gettext_noop("%(actor)s's swap"),
    "redirect": gettext_noop("%(actor)s's redirection"),
    "frame": gettext_noop("%(actor)s's frame"),
    "clean": gettext_noop("%(actor)s's cleaning"),
}
# "Cat's roleblock on Bob": the same with its one target.
ACTION_PHRASES: Mapping[str, str] = {
    "kill": gettext_noop("%(actor)s's shot on %(target)s"),
    "protect": gettext_noop("%(actor)s's protection on %(target)s"),
    "investigate": gettext_noop("%(actor)s's investigation of %(target)s"),
    "block": gettext_noop("%(actor)s's roleblock on %(target)s"),
    "jail": gettext_noop("%(actor)s's jail on %(target)s"),
    "track": gettext_noop("%(actor)s's tracking of %(target)s"),
    "watch": gettext_noop("%(actor)s's watch on %(target)s"),
    "frame": gettext_noop("%(actor)s's frame on %(target)s"),
    "clean": gettext_noop("%(actor)s's cleaning on %(target)s"),
}


# -- modifiers --------------------------------------------------------------------------
# Alignments that "target mafia" for a weak player and read guilty to a cop.
SCUM = frozenset({MAFIA, "serial_killer"})

# memory key: how many X-shot uses each player has spent (name -> count)
SHOTS_USED = "shots_used"


def modifier_number(player: Player, slug: str) -> int | None:
    """N of a ``slug:N`` modifier the player has (``shots:2`` -> 2), else None."""
    prefix = slug + ":"
    for text in player.modifiers:
        if text.startswith(prefix):
            return int(text[len(prefix) :])
    return None


def shots_used(state: GameState, name: str) -> int:
    return int(state.memory.get(SHOTS_USED, {}).get(name, 0))


def is_scum(player: Player) -> bool:
    return player.alignment in SCUM


def is_ninja(player: Player) -> bool:
    return player.has("ninja")


def is_macho(player: Player) -> bool:
    return player.has("macho")


def is_weak(player: Player) -> bool:
    return player.has("weak")


def allegiance_failures(
    state: GameState, actions: Sequence[Action]
) -> tuple[tuple[Action, ...], tuple[str, ...]]:
    """Drop the actions of loyal and disloyal players that fail "as if roleblocked".

    Judged on the targets the player chose (a loyal player's action on anyone outside
    their alignment fails; a disloyal player's on anyone inside it), before anything is
    resolved: a failed action does nothing, is not a visit, and a tracker sees no visit."""
    seats = {p.name: p for p in state.players if p.has("loyal") or p.has("disloyal")}
    if not seats:  # the usual night: nothing to check (and no look-up per action)
        return tuple(actions), ()
    players = {p.name: p for p in state.players}
    kept: list[Action] = []
    lines: list[str] = []
    for action in actions:
        actor = seats.get(action.actor)
        if actor is None:
            kept.append(action)
            continue
        wrong = [t for t in action.targets if _off_limits(actor, players[t])]
        if not wrong:
            kept.append(action)
            continue
        if actor.has("loyal"):
            line = ngettext(
                "%(action)s fails as if roleblocked: %(actor)s is loyal and %(targets)s is "
                "outside the %(faction)s faction.",
                "%(action)s fails as if roleblocked: %(actor)s is loyal and %(targets)s are "
                "outside the %(faction)s faction.",
                len(wrong),
            )
        else:
            line = ngettext(
                "%(action)s fails as if roleblocked: %(actor)s is disloyal and %(targets)s is "
                "inside the %(faction)s faction.",
                "%(action)s fails as if roleblocked: %(actor)s is disloyal and %(targets)s are "
                "inside the %(faction)s faction.",
                len(wrong),
            )
        lines.append(
            line
            % {
                "action": action_phrase(state, action),
                "actor": action.actor,
                "targets": names(wrong),
                "faction": actor.alignment,
            }
        )
    return tuple(kept), tuple(lines)


def _off_limits(actor: Player, target: Player) -> bool:
    if actor.has("loyal"):
        return target.alignment != actor.alignment
    if actor.has("disloyal"):
        return target.alignment == actor.alignment
    return False


def is_bulletproof(player: Player) -> bool:
    return player.has("bulletproof")


def is_strong_willed(player: Player) -> bool:
    return player.has("strong_willed")


def is_paranoid_gun_owner(player: Player) -> bool:
    return player.role in PARANOID_GUN_OWNERS


def has_vest(state: GameState, name: str) -> bool:
    """Whether the player still has an unspent one-shot vest."""
    player = state.player(name)
    return player.has("one_shot_bulletproof") and name not in state.memory.get(VESTS_SPENT, ())


def with_vests_spent(state: GameState, names: Iterable[str]) -> GameState:
    """The state with these players' vests used up (kept sorted in memory)."""
    new = set(names)
    if not new:
        return state
    spent = sorted(set(state.memory.get(VESTS_SPENT, ())) | new)
    return state.with_memory(**{VESTS_SPENT: spent})


# -- results ----------------------------------------------------------------------------
def looks_mafia(player: Player, framed: bool) -> bool:
    """What a sane cop would see: a frame reads mafia (it beats a godfather's immunity);
    otherwise the godfather reads innocent and everyone else their alignment."""
    if framed:
        return True
    if player.role in INVESTIGATION_IMMUNE:
        return False
    return is_scum(player)


def investigation_result(
    state: GameState, cop: str, target: str, framed: bool = False, landed_on: str | None = None
) -> dict[str, Any]:
    """``{"kind": "investigation", "target", "result"}`` after frames and sanity.

    ``target`` is the player the cop chose; when the investigation was redirected the
    result is about ``landed_on`` (also given, as ``landed_on``)."""
    seen = state.player(landed_on or target)
    result = cop_result(state.player(cop).sanity, looks_mafia(seen, framed))
    return _result("investigation", target, landed_on, result=result)


def track_result(
    target: str, visited: Iterable[str], landed_on: str | None = None
) -> dict[str, Any]:
    """``{"kind": "track", "target", "visited": [...]}`` (``[]``: went nowhere)."""
    return _result("track", target, landed_on, visited=sorted(set(visited)))


def watch_result(
    target: str, visitors: Iterable[str], landed_on: str | None = None
) -> dict[str, Any]:
    """``{"kind": "watch", "target", "visitors": [...]}``."""
    return _result("watch", target, landed_on, visitors=sorted(set(visitors)))


def clean_result(target: str, role: str) -> dict[str, Any]:
    """The janitor learns the role of the player they cleaned."""
    return {"kind": "clean", "target": target, "role": role}


def _result(kind: str, target: str, landed_on: str | None, **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": kind, "target": target, **fields}
    if landed_on is not None and landed_on != target:
        data["landed_on"] = landed_on
    return data


def reveals(state: GameState, dead: Iterable[str], cleaned: Iterable[str]) -> dict[str, str]:
    """The role shown for each player who died; ``unknown`` for a cleaned one."""
    hidden = set(cleaned)
    return {n: "unknown" if n in hidden else state.player(n).role for n in sorted(set(dead))}


def finish_night(
    state: GameState,
    dead: Iterable[str],
    results: Mapping[str, Sequence[Mapping[str, Any]]],
    cleaned: Iterable[str],
    explanation: Sequence[str],
    vests_spent: Iterable[str] = (),
) -> NightOutcome:
    """The NightOutcome: deaths applied, vests spent, reveals built, results sorted."""
    dead = tuple(sorted(set(dead)))
    after = with_vests_spent(state.with_dead(dead), vests_spent)
    return NightOutcome(
        dead=dead,
        results=frozen_map({k: tuple(v) for k, v in sorted(results.items()) if v}),
        reveals=frozen_map(reveals(state, dead, cleaned)),
        vote_immunity=(),
        explanation=tuple(explanation),
        state=after,
    )
