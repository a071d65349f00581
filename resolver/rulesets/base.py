"""What every rule set shares: role and ability data, flag data, and input checks.

A rule set is a ``Ruleset`` subclass holding its roles, abilities and flags as data and
overriding ``resolve_night``, ``resolve_day`` and ``check_winner``. The checks here turn
raw scenario JSON into ``Action`` and ``DayVotes`` values or raise ``InvalidScenario``;
rule sets add their own restrictions through ``check_action``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .. import text
from ..errors import InvalidScenario
from ..model import (
    SKIP,
    Action,
    DayActionOutcome,
    DayOutcome,
    DayVotes,
    GameState,
    NightOutcome,
    Player,
    Verdict,
)
from ..text import _, gettext_noop, ngettext
from ..votes import VoteCount, tally

# How an ability may target its user.
NEVER, ALLOWED, ONLY = "never", "allowed", "only"


# What each ability is called where a page names it ("Day kill" for ``day_kill``): said once
# here, for every rule set, so that it is in the catalogue; an ability missing here is
# called after its slug (English only: tests/resolver/test_text.py asks for every one).
ABILITY_TITLES: Mapping[str, str] = {
    "block": gettext_noop("Block"),
    "check": gettext_noop("Check"),
    "clean": gettext_noop("Clean"),
    "day_investigate": gettext_noop("Day investigate"),
    "day_kill": gettext_noop("Day kill"),
    "forge": gettext_noop("Forge"),
    "frame": gettext_noop("Frame"),
    "heal": gettext_noop("Heal"),
    "investigate": gettext_noop("Investigate"),
    "jail": gettext_noop("Jail"),
    "kill": gettext_noop("Kill"),
    "protect": gettext_noop("Protect"),
    "redirect": gettext_noop("Redirect"),
    "swap": gettext_noop("Swap"),
    "track": gettext_noop("Track"),
    "visit": gettext_noop("Visit"),
    "watch": gettext_noop("Watch"),
}


def ability_title(slug: str) -> str:
    """The ability's name in the caller's language ("Day kill" for ``day_kill``)."""
    known = ABILITY_TITLES.get(slug)
    # i18n: marked at its source
    return _(known) if known else (slug or "").replace("_", " ").capitalize()


@dataclass(frozen=True)
class AbilitySpec:
    """One active night ability, as data.

    ``targets``: how many player names it takes. ``self_target``: NEVER, ALLOWED or ONLY.
    ``factional``: the faction's shared kill (one per faction per night, last one stands).
    ``uses``: how many nights it can be used (None: every night). ``extra``: required extra
    fields of the action, e.g. ``("role",)`` for the forger. ``description``: one line for
    a role PM ("Each night, you may..."). ``phase``: ``"night"`` (resolved with the night)
    or ``"day"`` (resolved at once, by day: see the forum rule set's day actions).
    """

    slug: str
    targets: int = 1
    self_target: str = NEVER
    factional: bool = False
    uses: int | None = None
    extra: tuple[str, ...] = ()
    dead_targets: bool = False  # may name a dead player (a no-op) instead of being invalid
    description: str = ""
    phase: str = "night"


@dataclass(frozen=True)
class RoleSpec:
    """A role: its default alignment, its active abilities, its display ``title``
    ("Vanilla Townie") and a one-line description.

    ``private_thread``: the name of the private thread the role's holders share from day 1
    (``"masons"``, ``"neighbors"``), for the site to open; None: no such thread.
    """

    slug: str
    alignment: str
    abilities: tuple[AbilitySpec, ...] = ()
    description: str = ""
    factional_kill: bool = False  # may use the faction's shared kill
    cop_like: bool = False  # takes a ``sanity``
    title: str = ""
    private_thread: str | None = None

    def ability(self, slug: str) -> AbilitySpec | None:
        return next((a for a in self.abilities if a.slug == slug), None)


@dataclass(frozen=True)
class FlagSpec:
    """A house-rule switch: its default and, for non-boolean flags, the allowed values.

    ``name`` is the key scenarios use (``protectionStopsAllKills``); ``title`` the display
    name ("Protection stops all kills"); ``help`` the one-line explanation.
    """

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] = field(default=(True, False))
    title: str = ""

    @property
    def description(self) -> str:
        """The one-line explanation, under the name roles and modifiers use."""
        return _(self.help)  # i18n: marked at its source

    def check(self, value: Any, where: str) -> Any:
        # bool is an int in Python: compare types too, so 1 is not taken for True.
        if not any(value == c and type(value) is type(c) for c in self.choices):
            allowed = ", ".join(map(_json_word, self.choices))
            raise InvalidScenario(
                _("Flag %(flag)s takes one of %(allowed)s, not %(value)s.")
                % {"flag": self.name, "allowed": allowed, "value": _json_word(value)},
                where,
            )
        return value


@dataclass(frozen=True)
class ModifierSpec:
    """A modifier a role-list entry may carry, as data: ``slug``, display ``title`` and a
    one-line ``description``. ``param`` names the number a parameterised modifier takes
    (``"N"`` for ``shots:N``; None: a plain modifier) and ``least`` its smallest legal
    value. ``kind``: ``"night"`` (changes night actions), ``"day"``, ``"vote"`` (changes the
    day vote) or ``"defence"`` (changes how the player survives kills); for listing only.
    """

    slug: str
    title: str
    wording: str  # the description as written, with ``{s}`` plural endings (see ``text``)
    param: str | None = None
    least: int = 1
    kind: str = "night"

    @property
    def description(self) -> str:
        """The one line every page shows where no number is given ("N times"): the raw
        ``wording`` is never shown, so "N time{s}" cannot reach a page (issue 33)."""
        return self.text()

    def text(self, arg: int | None = None) -> str:
        """The description with the parameter filled in, when there is one. A ``{s}`` after
        a word that counts the parameter is its plural ending: "N time{s}" reads "1 time",
        "2 times", and "N times" where no number is given."""
        plural = "" if arg == 1 else "s"
        text = _(self.wording).replace("{s}", plural)  # i18n: marked at its source
        if self.param is None or arg is None:
            return text
        return text.replace(self.param, str(arg))

    def label(self, arg: int | None = None) -> str:
        """The display name with the parameter filled in: "2-Shot"."""
        if self.param is None or arg is None:
            return _(self.title)  # i18n: marked at its source
        return _(self.title).replace(self.param, str(arg))  # i18n: marked at its source


def split_modifier(text: str) -> tuple[str, str | None]:
    """``"shots:2"`` -> ``("shots", "2")``; ``"ninja"`` -> ``("ninja", None)``."""
    slug, sep, arg = text.partition(":")
    return slug, (arg if sep else None)


def _json_word(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)


def names(items: Sequence[str]) -> str:
    """English list: ``['A', 'B', 'C']`` -> ``'A, B and C'`` (in the caller's language)."""
    return text.names(list(items))


class Ruleset:
    """Base of every rule set. Subclasses fill the class attributes and the three hooks."""

    name: ClassVar[str]
    methods: ClassVar[tuple[str, ...]]  # the first is the default
    roles: ClassVar[Mapping[str, RoleSpec]]
    modifier_specs: ClassVar[Mapping[str, ModifierSpec]] = {}
    flags: ClassVar[Mapping[str, FlagSpec]] = {}
    sanities: ClassVar[tuple[str, ...]] = ("sane",)
    alignments: ClassVar[tuple[str, ...]] = ("town", "mafia")
    # Display names and one-line win conditions of each alignment, for role PMs.
    alignment_titles: ClassVar[Mapping[str, str]] = {
        "town": gettext_noop("Town"),
        "mafia": gettext_noop("Mafia"),
    }
    win_conditions: ClassVar[Mapping[str, str]] = {}
    factional_kill: ClassVar[AbilitySpec | None] = None
    # Night abilities that tell their user something (a result) the night they are used,
    # and what a user who sent one and got nothing is told: each rule set's own answer to
    # what a blocked player learns (the forum's RAR: no feedback; power: "blocked cops
    # don't investigate", the only thing that stops a cop's result). Said by the site.
    result_abilities: ClassVar[frozenset[str]] = frozenset()
    no_result_line: ClassVar[str] = gettext_noop("Your action got no result.")
    dead_may_act: ClassVar[bool] = False
    # Refused night actions before the rules use a random valid target instead (classic:
    # "After 3 failed attempts, a default action is applied"); None: a refusal costs nothing.
    night_attempts: ClassVar[int | None] = None
    uses_nominations: ClassVar[bool] = False
    uses_immunity_card: ClassVar[bool] = False
    uses_executioner_target: ClassVar[bool] = False
    # -- what the site asks the rule set instead of branching on its name ---------------
    # How the day is played: "thread" (a free forum thread) or "table" (its day script,
    # ``resolver.days.get_day_script``).
    day_shape: ClassVar[str] = "table"
    # The site's vote rules the day may use, and the one a new game gets.
    vote_rules_allowed: ClassVar[tuple[str, ...]] = ("plurality",)
    default_vote_rule: ClassVar[str] = "plurality"
    # Some ballots count more than once (``vote_weights``).
    weighted_votes: ClassVar[bool] = False
    # Does a death show the dead player's role (as the resolver reveals it: a cleaned role
    # is "unknown")? False: roles stay hidden until the game ends (city, classic).
    reveals_roles_on_death: ClassVar[bool] = True

    @property
    def has_vote_modifiers(self) -> bool:
        """Does any modifier change the day vote (loved, hated, lynch-proof...)?"""
        return any(m.kind == "vote" for m in self.modifier_specs.values())

    def vote_weights(self, state: GameState) -> Mapping[str, int]:
        """Player -> how many votes their ballot counts, where not 1 (``weighted_votes``)."""
        return {}

    @property
    def modifiers(self) -> Mapping[str, str]:
        """slug -> description: the plain mapping the web app has always read."""
        return {slug: spec.description for slug, spec in self.modifier_specs.items()}

    # -- setup -------------------------------------------------------------------------
    def check_modifier(self, text: Any, where: str) -> tuple[str, int | None]:
        """Parse one modifier (``"ninja"``, ``"shots:2"``) into its slug and number, or raise
        InvalidScenario naming the known ones."""
        slug, arg = split_modifier(text) if isinstance(text, str) else (text, None)
        spec = self.modifier_specs.get(slug) if isinstance(slug, str) else None
        if spec is None:
            known = ", ".join(self.modifier_forms()) or _("none")
            raise InvalidScenario(
                _(
                    "Unknown modifier %(modifier)s for the %(rules)s rule set "
                    "(modifiers: %(known)s)."
                )
                % {"modifier": repr(text), "rules": self.name, "known": known},
                where,
            )
        if spec.param is None:
            if arg is not None:
                raise InvalidScenario(
                    _("The modifier %(modifier)s takes no number.") % {"modifier": slug}, where
                )
            return slug, None
        if arg is None or not arg.isascii() or not arg.isdigit() or int(arg) < spec.least:
            raise InvalidScenario(
                _(
                    "The modifier %(modifier)s needs a whole number of at least %(least)s, as in "
                    "%(example)s; %(text)s has none."
                )
                % {
                    "modifier": slug,
                    "least": spec.least,
                    "example": f"{slug}:{max(spec.least, 1)}",
                    "text": repr(text),
                },
                where,
            )
        return slug, int(arg)

    def modifier_forms(self) -> list[str]:
        """How each modifier is written: ``ninja``, ``shots:N``."""
        return [f"{s.slug}:{s.param}" if s.param else s.slug for s in self.modifier_specs.values()]

    def describe_modifier(self, text: str) -> tuple[str, str]:
        """Display name and one-line description of a modifier as written on a player
        (``"shots:2"`` -> ``("2-Shot", "Can use their own abilities 2 times in the game.")``);
        an unknown one is shown as written."""
        slug, arg = split_modifier(text)
        spec = self.modifier_specs.get(slug)
        if spec is None:
            return text, ""
        number = int(arg) if arg is not None and arg.isdigit() else None
        return spec.label(number), spec.text(number)

    def default_flags(self) -> dict[str, Any]:
        return {name: spec.default for name, spec in self.flags.items()}

    def check_flags(self, raw: Any, where: str) -> dict[str, Any]:
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise InvalidScenario(_("Flags must be an object of flag names to values."), where)
        flags = self.default_flags()
        for name, value in raw.items():
            spec = self.flags.get(name)
            if spec is None:
                known = ", ".join(sorted(self.flags)) or _("none")
                raise InvalidScenario(
                    _("Unknown flag %(flag)s for the %(rules)s rule set (known flags: %(known)s).")
                    % {"flag": repr(name), "rules": self.name, "known": known},
                    f"{where}.{name}",
                )
            flags[name] = spec.check(value, f"{where}.{name}")
        return flags

    def role(self, slug: str) -> RoleSpec:
        return self.roles[slug]

    def private_threads(self, state: GameState) -> dict[str, list[str]]:
        """Private threads the site opens on day 1 (``RoleSpec.private_thread``): thread name
        -> its members in seat order (dead members included: they were in it)."""
        threads: dict[str, list[str]] = {}
        for p in state.players:
            thread = self.roles[p.role].private_thread
            if thread is not None:
                threads.setdefault(thread, []).append(p.name)
        return threads

    def check_player(self, player: Player, where: str) -> None:
        """Rule-set-specific checks of one seat; the default accepts what parsing accepted."""

    def check_setup(self, state: GameState) -> None:
        """Checks that need the whole table (e.g. an executioner's target); default: none."""

    # -- night -------------------------------------------------------------------------
    def abilities_of(self, state: GameState, player: Player) -> tuple[AbilitySpec, ...]:
        """The active abilities this player has tonight (own ones, then the faction's kill)."""
        spec = self.roles[player.role]
        own = tuple(a for a in spec.abilities if self.unavailable(state, player, a) is None)
        if self.factional_kill is not None and self.may_use_factional_kill(state, player):
            return (*own, self.factional_kill)
        return own

    def shots_left(self, state: GameState, player: Player) -> int | None:
        """Uses left of a player's limited (X-shot) abilities; None: not limited."""
        return None

    def may_use_factional_kill(self, state: GameState, player: Player) -> bool:
        return self.roles[player.role].factional_kill or player.alignment == "mafia"

    def unavailable(self, state: GameState, player: Player, ability: AbilitySpec) -> str | None:
        """Why ``player`` cannot use their own ``ability`` tonight (one sentence), or None.

        Rule sets add their reasons (forum: X-shot, odd/even nights, novice)."""
        if ability.phase != "night":
            return _("%(player)s's %(ability)s is a day action, not a night one.") % {
                "player": player.name,
                "ability": ability.slug,
            }
        if self._spent(state, player.name, ability):
            return _("%(player)s has already used up the one-shot %(ability)s ability.") % {
                "player": player.name,
                "ability": ability.slug,
            }
        return None

    def _spent(self, state: GameState, actor: str, ability: AbilitySpec) -> bool:
        if ability.uses is None:
            return False
        used: int = state.memory.get("uses", {}).get(actor, {}).get(ability.slug, 0)
        return used >= ability.uses

    def parse_night(self, state: GameState, raw: Any, where: str) -> tuple[Action, ...]:
        if not isinstance(raw, list):
            raise InvalidScenario(_("A night must be a list of actions."), where)
        actions = tuple(
            self.parse_action(state, item, f"{where}[{i}]", i) for i, item in enumerate(raw)
        )
        self.check_night(state, actions, where)
        return actions

    def parse_action(self, state: GameState, raw: Any, where: str, index: int) -> Action:
        if not isinstance(raw, dict):
            raise InvalidScenario(_("An action must be an object with actor and targets."), where)
        actor_name = raw.get("actor")
        if not isinstance(actor_name, str) or not state.has_player(actor_name):
            raise InvalidScenario(
                _("The action's actor %(actor)s is not a player in this game.")
                % {"actor": repr(actor_name)},
                f"{where}.actor",
            )
        actor = state.player(actor_name)
        if not actor.alive and not self.dead_may_act:
            raise InvalidScenario(
                _("%(actor)s is dead and cannot act.") % {"actor": actor_name}, f"{where}.actor"
            )
        ability = self._pick_ability(state, actor, raw.get("ability"), where)
        targets = raw.get("targets")
        if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
            raise InvalidScenario(
                _("An action's targets must be a list of player names."), f"{where}.targets"
            )
        if targets and len(targets) != ability.targets:
            raise InvalidScenario(
                ngettext(
                    "%(actor)s's %(ability)s takes %(n)s target, not %(given)s.",
                    "%(actor)s's %(ability)s takes %(n)s targets, not %(given)s.",
                    ability.targets,
                )
                % {
                    "actor": actor_name,
                    "ability": ability.slug,
                    "n": ability.targets,
                    "given": len(targets),
                },
                f"{where}.targets",
            )
        for i, target in enumerate(targets):
            self._check_target(state, actor, ability, target, f"{where}.targets[{i}]")
        extra = {}
        for key in ability.extra:
            if not isinstance(raw.get(key), str) or not raw.get(key):
                raise InvalidScenario(
                    _("%(actor)s's %(ability)s needs a %(field)s field.")
                    % {"actor": actor_name, "ability": ability.slug, "field": repr(key)},
                    f"{where}.{key}",
                )
            extra[key] = raw[key]
        action = Action(actor_name, ability.slug, tuple(targets), index, extra)
        if targets:
            self.check_action(state, action, where)
        return action

    def check_night(self, state: GameState, actions: tuple[Action, ...], where: str) -> None:
        """Hook for checks of the whole night (forum: a compulsive player must act)."""

    def _pick_ability(self, state: GameState, actor: Player, slug: Any, where: str) -> AbilitySpec:
        available = self.abilities_of(state, actor)
        if slug is None:
            own = [a for a in available if not a.factional]
            if len(own) == 1:
                return own[0]
            if not own and len(available) == 1:
                return available[0]
            if not available:
                reasons = [
                    self.unavailable(state, actor, a) for a in self.roles[actor.role].abilities
                ]
                why = next((r for r in reasons if r), "")
                who = {"actor": actor.name, "role": actor.role, "why": why}
                text = (
                    _("%(actor)s (%(role)s) has no night ability to use: %(why)s")
                    if why
                    else _("%(actor)s (%(role)s) has no night ability to use.")
                )
                raise InvalidScenario(text % who, f"{where}.actor")
            raise InvalidScenario(
                _("%(actor)s (%(role)s) has several abilities (%(abilities)s); say which one.")
                % {
                    "actor": actor.name,
                    "role": actor.role,
                    "abilities": ", ".join(a.slug for a in available),
                },
                f"{where}.ability",
            )
        for ability in available:
            if ability.slug == slug:
                return ability
        spec = self.roles[actor.role].ability(slug) if isinstance(slug, str) else None
        if spec is not None:
            raise InvalidScenario(
                self.unavailable(state, actor, spec)
                or _("%(actor)s cannot use %(ability)s now.")
                % {"actor": actor.name, "ability": slug},
                f"{where}.ability",
            )
        raise InvalidScenario(
            _("%(actor)s (%(role)s) has no %(ability)s ability in the %(rules)s rule set.")
            % {"actor": actor.name, "role": actor.role, "ability": repr(slug), "rules": self.name},
            f"{where}.ability",
        )

    def _check_target(
        self, state: GameState, actor: Player, ability: AbilitySpec, target: str, where: str
    ) -> None:
        if not state.has_player(target):
            raise InvalidScenario(
                _("The target %(target)s is not a player in this game.") % {"target": repr(target)},
                where,
            )
        if not state.is_alive(target) and not ability.dead_targets:
            raise InvalidScenario(
                _("%(actor)s cannot target %(target)s: %(target)s is dead.")
                % {"actor": actor.name, "target": target},
                where,
            )
        is_self = target == actor.name
        if (
            ability.self_target == NEVER
            and is_self
            and not self.self_target_allowed(state, ability, actor)
        ):
            raise InvalidScenario(
                _("%(actor)s cannot use %(ability)s on themself in the %(rules)s rules.")
                % {"actor": actor.name, "ability": ability.slug, "rules": self.name},
                where,
            )
        if ability.self_target == ONLY and not is_self:
            raise InvalidScenario(
                _("%(actor)s's %(ability)s can only target themself.")
                % {"actor": actor.name, "ability": ability.slug},
                where,
            )

    def self_target_allowed(
        self, state: GameState, ability: AbilitySpec, actor: Player | None = None
    ) -> bool:
        """Hook: a flag or the actor's modifier may lift the self-targeting ban (forum)."""
        return False

    def check_action(self, state: GameState, action: Action, where: str) -> None:
        """Hook for rule-set-specific forbidden targets; raise InvalidScenario."""

    def resolve_night(self, state: GameState, actions: tuple[Action, ...]) -> NightOutcome:
        raise NotImplementedError

    # -- day ---------------------------------------------------------------------------
    def parse_day(self, state: GameState, raw: Any, where: str) -> DayVotes:
        if not isinstance(raw, dict):
            raise InvalidScenario(_("A day must be an object with votes."), where)
        unknown = set(raw) - {"votes", "nominations", "revote"}
        if unknown:
            raise InvalidScenario(
                _("A day has no field %(field)s.") % {"field": repr(sorted(unknown)[0])},
                f"{where}.{sorted(unknown)[0]}",
            )
        nominations = None
        if "nominations" in raw:
            if not self.uses_nominations:
                raise InvalidScenario(
                    _("The %(rules)s rule set has no nominations.") % {"rules": self.name},
                    f"{where}.nominations",
                )
            nominations = self._ballots(state, raw["nominations"], f"{where}.nominations")
        votes = self._ballots(state, raw.get("votes", {}), f"{where}.votes")
        revote = None
        if "revote" in raw:
            revote = self._ballots(state, raw["revote"], f"{where}.revote")
        day = DayVotes(votes, nominations, revote)
        self.check_day(state, day, where)
        return day

    def _ballots(self, state: GameState, raw: Any, where: str) -> dict[str, str]:
        if not isinstance(raw, dict):
            raise InvalidScenario(_("Votes must be an object of voter to target."), where)
        ballots = {}
        for voter, target in raw.items():
            if not state.has_player(voter):
                raise InvalidScenario(
                    _("The voter %(voter)s is not a player in this game.") % {"voter": repr(voter)},
                    where,
                )
            if not state.is_alive(voter):
                raise InvalidScenario(
                    _("%(voter)s is dead and cannot vote.") % {"voter": voter}, f"{where}.{voter}"
                )
            if not isinstance(target, str):
                raise InvalidScenario(
                    _('%(voter)s\'s vote must be a player name or "skip".') % {"voter": voter},
                    f"{where}.{voter}",
                )
            if target != SKIP:
                if not state.has_player(target):
                    raise InvalidScenario(
                        _("%(voter)s votes for %(target)s, who is not a player in this game.")
                        % {"voter": voter, "target": repr(target)},
                        f"{where}.{voter}",
                    )
                if not state.is_alive(target):
                    raise InvalidScenario(
                        _("%(voter)s votes for %(target)s, who is dead.")
                        % {"voter": voter, "target": target},
                        f"{where}.{voter}",
                    )
            ballots[voter] = target
        return ballots

    def resolve_day_action(
        self, state: GameState, raw: Any, phase: str = "day", where: str = "$.action"
    ) -> DayActionOutcome:
        """Resolve one day action at once (forum: day vigilante, day investigator)."""
        raise InvalidScenario(
            _("The %(rules)s rule set has no day actions.") % {"rules": self.name}, where
        )

    def count_votes(self, state: GameState, votes: Mapping[str, str]) -> VoteCount:
        """The live vote count (wagons, L-n) with the table's vote modifiers, if any."""
        return tally(votes, state.alive_names)

    def check_day(self, state: GameState, day: DayVotes, where: str) -> None:
        """Hook for rule-set-specific day checks (classic: votes only for nominees)."""

    def resolve_day(self, state: GameState, day: DayVotes) -> DayOutcome:
        raise NotImplementedError

    # -- outside the resolver's phases -------------------------------------------------
    def remove_player(self, state: GameState, name: str) -> GameState:
        """A modkill or a replacement-less removal: the player simply dies."""
        return state.with_dead([name])

    def check_winner(self, state: GameState) -> Verdict:
        raise NotImplementedError
