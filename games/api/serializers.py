"""API serializers, one per audience.

``GameSerializer``, ``PlayerSerializer``, ``PostSerializer`` and ``VoteCountSerializer``
carry public facts only (a dead player's role only if it was revealed, everything once
the game is over). Roles, actions and results appear only in ``RolePMSerializer`` (the
player's own), ``HostViewSerializer`` (the host) and ``ArchiveSerializer`` (after the end).

An answer's serializer is derived from its shape (``games.api.typed.serializer_for``); the
shape is said once, in ``games.shapes`` (or ``games.event_kinds`` when an event carries it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from .. import event_kinds, game_settings, naming, shapes
from ..display import public_setup
from ..event_kinds import SlotRef, TurnPayload, VoteCountPayload
from ..game_settings import Kind, Setting
from ..gateway import RULESET_NAMES
from ..gateway import rules_named as get_ruleset
from ..markup import plain_text
from ..models import (
    MAX_PHASE_MINUTES,
    MAX_THOUGHTS_LENGTH,
    CoHostKind,
    Ruleset,
    Thread,
)
from ..naming import seat_ref
from ..plain_text import use_plain_text
from ..reads import post_limit
from ..reads.access import Viewer, cohosts
from ..reads.agents import agents_shown, current_agent_names
from ..reads.my_games import MyGame, MyGames
from ..services.common import MAX_POST_LENGTH
from ..services.nights import MAX_EXTRA_LENGTH
from ..setups import SETUPS
from ..shapes import Phase, Player, Post
from .typed import serializer_for, written

# The answers' serializers are derived from their typed shapes (``games.shapes``,
# ``games.event_kinds``: ``serializer_for``), which the code that builds each answer is typed
# to return; only the game's (a field per game setting) and the inputs are written here.


class InputSerializer(serializers.Serializer):
    """The base of what callers send: its text fields follow ``games.plain_text``, as the
    pages' forms do."""

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        use_plain_text(fields.values())
        return fields


# -- small shared shapes --------------------------------------------------------------------
class ApiTokenSerializer(serializers.Serializer):
    """An API token as its owner sees it listed (an agent's or a person's): never its key."""

    id = serializers.IntegerField()
    name = serializers.CharField(allow_blank=True)
    prefix = serializers.CharField(help_text="The key's first characters, to tell it.")
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)
    revoked = serializers.BooleanField()


def api_token_data(token: Any) -> dict[str, Any]:
    """``ApiTokenSerializer``'s fields of a token row (``models.ApiToken``)."""
    return {
        "id": token.pk,
        "name": token.name,
        "prefix": token.prefix,
        "created_at": token.created_at,
        "last_used_at": token.last_used_at,
        "revoked_at": token.revoked_at,
        "revoked": token.revoked,
    }


SlotRefSerializer = serializer_for(SlotRef)


def mark_agents(value: Any, agents: frozenset[str] | None = None) -> Any:
    """``value`` (a vote count, a turn: JSON-shaped) with ``"agent": true/false`` added to
    every reference to a player in it (a mapping with ``slot_id`` and ``name``)."""
    if agents is None:
        agents = current_agent_names()
    if isinstance(value, Mapping):
        out = {k: mark_agents(v, agents) for k, v in value.items()}
        if "slot_id" in out and isinstance(out.get("name"), str):
            out["agent"] = out["name"] in agents
        return out
    if isinstance(value, (list, tuple)):
        return [mark_agents(v, agents) for v in value]
    return value


PhaseSerializer = serializer_for(Phase)


def phase_data(phase: Any) -> Phase | None:
    if phase is None:
        return None
    return {
        "number": phase.number,
        "kind": phase.kind,
        "label": phase.label,
        "deadline": phase.deadline,
        "paused": phase.is_paused,
        "in_revote": phase.in_revote,
        "resolved": phase.resolved,
    }


PlayerSerializer = serializer_for(Player)


def player_data(slot: Any, viewer: Viewer, agents: frozenset[str] | None = None) -> Player:
    agents = agents_shown(viewer.game) if agents is None else agents
    return {
        "slot_id": slot.pk,
        "seat": slot.seat,
        "name": slot.display_name,
        # Never beside a mask (it would narrow down whose it is); the account's own after.
        "agent": slot.real_name in agents and not naming.masked(slot),
        "alive": slot.alive,
        "death_cause": slot.death_cause if not slot.alive else "",
        "role": viewer.public_role(slot) if viewer.game.is_finished or not slot.alive else "",
        "alignment": slot.alignment if viewer.game.is_finished else "",
    }


# -- games ------------------------------------------------------------------------------
def _setting_output_field(setting: Setting) -> serializers.Field:
    """A game setting's field in a game the API shows (``game_settings.output``)."""
    help_text = setting.api_help or setting.help or None
    nullable = setting.optional or setting.default is None
    if setting.kind is Kind.BOOL:
        return serializers.BooleanField(help_text=help_text)
    if setting.kind is Kind.CHOICE:
        return serializers.ChoiceField(choices=list(setting.choices), help_text=help_text)
    if setting.kind is Kind.DAY_SETTINGS:
        return serializers.DictField(allow_null=nullable, help_text=help_text)
    if setting.kind is Kind.DURATION:
        return serializers.IntegerField(allow_null=nullable, help_text=help_text or "Seconds.")
    return serializers.IntegerField(allow_null=nullable, help_text=help_text)


# Every setting's output field, in the spec's order: GameSerializer's base.
_GameSettingFields = serializers.SerializerMetaclass(
    "_GameSettingFields",
    (serializers.Serializer,),
    {game_settings.output_name(s): _setting_output_field(s) for s in game_settings.SETTINGS},
)


class CoHostSerializer(serializers.Serializer):
    user_id = serializers.IntegerField(help_text="To remove them: DELETE cohosts/{user_id}/.")
    username = serializers.CharField()
    kind = serializers.ChoiceField(
        choices=CoHostKind.choices,
        help_text='"cohost" or "backup" (a backup host: the one who takes over if the host '
        "leaves; the same powers).",
    )


# Built at import from SETTINGS: mypy cannot type a class made by a call.
class GameSerializer(_GameSettingFields):  # type: ignore[misc, valid-type]
    """A game's public facts; its settings are ``game_settings.SETTINGS``' (one field
    each, ``game_settings.output``)."""

    id = serializers.IntegerField()
    title = serializers.CharField()
    host = serializers.CharField()
    cohosts = CoHostSerializer(
        many=True,
        help_text="Its co-hosts and backup hosts: each has the host's powers in the game.",
    )
    status = serializers.CharField()
    ruleset = serializers.CharField()
    method = serializers.CharField(allow_blank=True)
    flags = serializers.DictField()
    signed_up = serializers.IntegerField()
    house_rules = serializers.ListField(
        child=serializers.CharField(),
        help_text="What the game's settings change from the usual game, a sentence each.",
    )
    league_setup = serializers.CharField(
        allow_blank=True, help_text="A league game: the setup whose queue made it (else empty)."
    )
    rated = serializers.BooleanField(help_text="Its end changes the players' ratings.")
    phase = PhaseSerializer(allow_null=True)
    players = PlayerSerializer(many=True)
    threads = serializers.ListField(
        child=serializers.CharField(), help_text="Threads the caller may read."
    )
    role_list = serializers.ListField(
        child=serializers.DictField(),
        allow_null=True,
        help_text="The setup: only for the host, and for everyone after the game ends.",
    )
    public_setup = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="What everyone may know of the setup (null: closed).",
    )
    posts_left = serializers.IntegerField(
        allow_null=True,
        help_text="Your posts left today in the game thread under the game's post limit "
        "(null: unlimited now: no limit, not a day, the limit lifted, or you are not a "
        "living player). A post past it is refused with 409, code post_limit_reached; a "
        "vote is not a post.",
    )
    winner = serializers.CharField(allow_blank=True)
    win_reason = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


# The shapes that carry a game's facts name it (``shapes.GameFacts``).
written(GameSerializer)


def game_data(
    game: Any,
    viewer: Viewer,
    *,
    players: bool = True,
    phase: Any = None,
    signed_up: int | None = None,
) -> dict[str, Any]:
    """A game as the API shows it. A list passes what it read for all its games at once:
    the current ``phase`` (None: read here) and the number ``signed_up`` (None: counted
    here); then ``viewer`` carries the game's slots."""
    if not game.is_running:
        phase = None
    elif phase is None:
        phase = game.current_phase()
    slots = list(game.slots.select_related("user").order_by("seat")) if players else []
    if signed_up is None:
        signed_up = len(slots) if players else game.slots.count()
    agents = agents_shown(game) if slots else frozenset()
    return {
        "id": game.pk,
        "title": game.title,
        "host": game.host.get_username(),
        "cohosts": [
            {"user_id": c.user_id, "username": c.name, "kind": c.kind} for c in cohosts(game)
        ],
        "status": game.status,
        "ruleset": game.ruleset,
        "method": game.method,
        "flags": game.flags,
        **game_settings.output(game),
        "signed_up": signed_up,
        "house_rules": game_settings.house_rules(game),
        "league_setup": game.league_setup,
        "rated": game.rated,
        "phase": phase_data(phase),
        "players": [player_data(s, viewer, agents) for s in slots],
        "threads": [t for t, _ in viewer.readable_threads()],
        "role_list": game.role_list if viewer.sees_everything or game.openness == "open" else None,
        "public_setup": public_setup(game),
        "posts_left": _posts_left(viewer, phase),
        "winner": game.winner,
        "win_reason": game.win_reason,
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
    }


def _posts_left(viewer: Viewer, phase: Any) -> int | None:
    """The caller's posts left today (``reads.post_limit``; null: no limit applies)."""
    if viewer.game.post_limit is None or phase is None:
        return None
    allowance = post_limit.of_viewer(viewer, Thread.PUBLIC, phase)
    return allowance.posts_left if allowance is not None else None


class RoleEntrySerializer(InputSerializer):
    role = serializers.CharField()
    count = serializers.IntegerField(min_value=1, default=1)
    modifiers = serializers.ListField(child=serializers.CharField(), required=False)
    sanity = serializers.CharField(required=False)
    alignment = serializers.CharField(required=False)


def _setting_field(setting: Setting) -> serializers.Field:
    """The API's field of one game setting, from its spec entry."""
    help_text = setting.api_help or None
    if setting.kind is Kind.BOOL:
        return serializers.BooleanField(required=False, help_text=help_text)
    if setting.kind is Kind.CHOICE:
        return serializers.ChoiceField(
            choices=list(setting.choices), required=False, help_text=help_text
        )
    if setting.kind is Kind.DAY_SETTINGS:
        return serializers.DictField(required=False, help_text=help_text)
    least, most = game_settings.bounds(setting, setting.api)
    return serializers.IntegerField(
        min_value=least, max_value=most, required=False, help_text=help_text
    )


class GameCreateSerializer(InputSerializer):
    """A new game. The setup is checked against the rule set by the resolver."""

    # A game needs one of these groups of fields. The OpenAPI document declares the body as
    # one of two objects, ``GameFromSetupSerializer`` or ``GameFromRoleListSerializer``.
    needs_one_of = (("setup",), ("ruleset", "role_list"))

    title = serializers.CharField(max_length=200)
    setup = serializers.ChoiceField(
        choices=sorted(SETUPS), required=False, help_text="Start from a ready-made setup."
    )
    ruleset = serializers.ChoiceField(choices=Ruleset.choices, required=False)
    method = serializers.CharField(required=False, allow_blank=True)
    role_list = serializers.ListField(child=RoleEntrySerializer(), required=False, min_length=1)
    flags = serializers.DictField(required=False)

    # Then one field per game setting the API takes (``games.game_settings``).
    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not any(all(name in attrs for name in group) for group in self.needs_one_of):
            raise serializers.ValidationError(
                {"ruleset": _("Give a ready-made setup, or a rule set and a role list.")}
            )
        return attrs


# The settings' fields come after the ones declared above, in the spec's order.
GameCreateSerializer._declared_fields.update(
    (setting.api.name, _setting_field(setting))
    for setting in game_settings.SETTINGS
    if setting.api.name is not None
)


# A new game's body as the OpenAPI document gives it (``games.api.docs``): a choice of two
# objects, so that generated clients type it (an ``anyOf`` of ``required`` lists was ``Any``
# to them). The view reads both with ``GameCreateSerializer``. Declared after the settings'
# fields, which they inherit.
class GameFromSetupSerializer(GameCreateSerializer):
    """A new game from a ready-made setup; the fields given override its settings (a rule
    set and a role list: its roles)."""

    setup = serializers.ChoiceField(
        choices=sorted(SETUPS), help_text="Start from a ready-made setup."
    )


class GameFromRoleListSerializer(GameCreateSerializer):
    """A new game from a rule set and a role list (no ready-made setup)."""

    # DRF: the field is not inherited (None in a subclass takes a declared field away)
    setup = None  # type: ignore[assignment]
    ruleset = serializers.ChoiceField(choices=Ruleset.choices)
    role_list = serializers.ListField(child=RoleEntrySerializer(), min_length=1)


# -- posts --------------------------------------------------------------------------------
PostSerializer = serializer_for(Post)


def post_data(
    post: Any, seats: Mapping[int, int] | None = None, agents: frozenset[str] | None = None
) -> Post:
    """A post as the API gives it. A page of posts passes ``seats`` (slot id -> seat) and
    reads each post with a ``phase_number`` annotation, so no slot or phase row is loaded;
    and ``agents`` (``reads.agents.agents_shown``), read once for the page."""
    agents = agents_shown(post.game) if agents is None else agents
    if not post.slot_id:
        seat = None
    else:
        seat = seats[post.slot_id] if seats is not None else post.slot.seat
    phase = getattr(post, "phase_number", None)
    if phase is None and post.phase_id:
        phase = post.phase.number
    return {
        "number": post.number,
        "thread": post.thread,
        "author": post.author_name,
        "agent": post.author_name in agents,
        "slot_id": post.slot_id,
        "seat": seat,
        "is_host": post.is_host,
        "is_auto": post.is_auto,
        "vote_note": post.vote_note,
        "phase": phase,
        "to": _addressee(post, seats),
        "body": post.body,
        "html": post.html,
        "text": plain_text(post.html),
        "created_at": post.created_at,
    }


def _addressee(post: Any, seats: Mapping[int, int] | None) -> SlotRef | None:
    if not post.to_id:
        return None
    seat = seats[post.to_id] if seats is not None else post.to.seat
    return {"slot_id": post.to_id, "seat": seat, "name": post.to_name}


IsoCountSerializer = serializer_for(shapes.IsoCount)
PostPageSerializer = serializer_for(shapes.PostPage)


class HostPostSerializer(InputSerializer):
    body = serializers.CharField(max_length=MAX_POST_LENGTH)
    thread = serializers.ChoiceField(choices=Thread.choices, default=Thread.PUBLIC)


def thoughts_field() -> serializers.CharField:
    """An act's private ``thoughts`` (``games.services.thoughts``), said once."""
    return serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=MAX_THOUGHTS_LENGTH,
        help_text=(
            "Your private reasoning for this act: read by nobody, not the host nor your "
            "team, until the game ends; then by everyone, in the review and the export."
        ),
    )


class ThoughtsSerializer(InputSerializer):
    """An act with no other input: only its optional thoughts."""

    thoughts = thoughts_field()


class PostCreateSerializer(HostPostSerializer):
    thoughts = thoughts_field()
    to = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Power's question round: the slot id of the player the question is for.",
    )


PostResultSerializer = serializer_for(shapes.PostResult)


# -- votes --------------------------------------------------------------------------------
class TargetSerializer(InputSerializer):
    target = serializers.IntegerField(
        allow_null=True, help_text='A slot id, or null for "no elimination" (skip).'
    )
    thoughts = thoughts_field()


# The vote count's shapes are said once, in games.event_kinds (the ``vote_count`` event's).
VoteCountSerializer = serializer_for(VoteCountPayload)
VoteResultSerializer = serializer_for(event_kinds.VoteResult)


# -- role PM and night actions --------------------------------------------------------------
AbilitySerializer = serializer_for(shapes.Ability)
ActionSerializer = serializer_for(shapes.Action)
ResultSerializer = serializer_for(shapes.Result)
DayOptionSerializer = serializer_for(shapes.DayOption)


class DayActionSerializer(InputSerializer):
    ability = serializers.CharField(
        required=False, allow_null=True, help_text="day_kill or day_investigate (optional)."
    )
    target = serializers.IntegerField(help_text="A slot id.")
    thoughts = thoughts_field()


PartnerSerializer = serializer_for(shapes.Partner)
RolePMSerializer = serializer_for(shapes.RolePM)


# The most targets any ability of any rule set takes.
MAX_TARGETS = max(
    ability.targets
    for name in RULESET_NAMES
    for role in get_ruleset(name).roles.values()
    for ability in role.abilities
)


class NightActionSerializer(InputSerializer):
    ability = serializers.CharField()
    targets = serializers.ListField(
        child=serializers.IntegerField(), min_length=1, max_length=MAX_TARGETS
    )
    extra = serializers.DictField(
        child=serializers.CharField(max_length=MAX_EXTRA_LENGTH),
        required=False,
        help_text="Only the fields the ability declares (the forger's role).",
    )
    thoughts = thoughts_field()


# -- host and archive ---------------------------------------------------------------------
SlotRolesSerializer = serializer_for(shapes.SlotRoles)
PhaseRecordSerializer = serializer_for(shapes.PhaseRecord)
HostViewSerializer = serializer_for(shapes.HostView)
ArchiveSerializer = serializer_for(shapes.Archive)
GameReviewSerializer = serializer_for(shapes.GameReview)


class ExtendSerializer(InputSerializer):
    minutes = serializers.IntegerField(
        min_value=1,
        max_value=MAX_PHASE_MINUTES,
        help_text="How long to push the deadline back, in minutes (60: an hour; at most "
        f"{MAX_PHASE_MINUTES}, fourteen days). Paused, the time left grows instead. The new "
        "deadline is announced in the game thread.",
    )


class SlotIdSerializer(InputSerializer):
    slot_id = serializers.IntegerField()


class ModkillSerializer(SlotIdSerializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=200)


class CancelSerializer(InputSerializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=200)


class ReplaceSerializer(SlotIdSerializer):
    username = serializers.CharField(max_length=150)


class AddCoHostSerializer(InputSerializer):
    username = serializers.CharField(max_length=150)
    kind = serializers.ChoiceField(
        choices=CoHostKind.choices,
        default=CoHostKind.COHOST,
        help_text='"cohost" (default) or "backup": a backup host takes over if the host '
        "leaves; both have the host's powers.",
    )


class HandOverSerializer(InputSerializer):
    username = serializers.CharField(
        max_length=150, help_text="The new host: not a player of the game, not an agent."
    )


class TokenRequestSerializer(InputSerializer):
    username = serializers.CharField()
    # As typed: a password's spaces are part of it.
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)


# What a write answers when it committed but its usual answer could not be read back (the
# database dropped out just after): it happened; read the fresh state again in a moment.
COMMITTED_DETAIL = gettext_lazy(
    "Done: the change was saved, but the fresh state could not be read back just now. "
    "Read it again in a few seconds."
)


CommittedSerializer = serializer_for(shapes.Committed)
OkSerializer = serializer_for(shapes.Ok)
GameChangedSerializer = serializer_for(shapes.GameChanged)


# -- reference data -----------------------------------------------------------------------
AbilityTextSerializer = serializer_for(shapes.AbilityText)
RoleReferenceSerializer = serializer_for(shapes.RoleReference)
ModifierReferenceSerializer = serializer_for(shapes.ModifierReference)
AlignmentReferenceSerializer = serializer_for(shapes.AlignmentReference)
FlagReferenceSerializer = serializer_for(shapes.FlagReference)
RulesetSerializer = serializer_for(shapes.Ruleset)
SetupSerializer = serializer_for(shapes.Setup)


# The table's shapes are said once, in games.event_kinds (the ``turn`` event's payload).
TurnSerializer = serializer_for(TurnPayload)
ErrorSerializer = serializer_for(shapes.Error)
ValidationErrorSerializer = serializer_for(shapes.ValidationError)
ThrottledSerializer = serializer_for(shapes.Throttled)


# -- the host's chores ------------------------------------------------------------------------
VoteLogEntrySerializer = serializer_for(shapes.VoteLogEntry)
NumberedCountSerializer = serializer_for(shapes.NumberedCount)
AbsenceSerializer = serializer_for(shapes.Absence)


class AbsenceCreateSerializer(InputSerializer):
    starts = serializers.DateField(help_text="The first day away.")
    ends = serializers.DateField(help_text="The last day away.")
    note = serializers.CharField(required=False, allow_blank=True, max_length=200)


QueueSerializer = serializer_for(shapes.Queue)
UnreadSerializer = serializer_for(shapes.Unread)
YourSeatSerializer = serializer_for(shapes.YourSeat)
MyGameSerializer = serializer_for(shapes.MyGame)
MyGamesSerializer = serializer_for(shapes.MyGames)


def my_game_data(item: MyGame) -> shapes.MyGame:
    game, slot = item.game, item.slot
    return {
        "game_id": game.pk,
        "title": game.title,
        "url": reverse("games:thread", args=[game.pk]),
        "ruleset": game.ruleset,
        "status": game.status,
        "status_label": item.status_label,
        "phase": phase_data(item.phase),
        "relation": item.relation,
        "you": {**seat_ref(slot), "alive": slot.alive} if slot is not None else None,
        "needs": list(item.needs),
        "host_needs": list(item.host_needs),
        "deadline": item.deadline,
        "unread": item.unread,
        "threads": [
            {"thread": t.thread, "label": t.label, "unread": t.unread} for t in item.threads
        ],
    }


def my_games_data(games: MyGames) -> shapes.MyGames:
    return {
        "active": [my_game_data(g) for g in games.active],
        "finished": [my_game_data(g) for g in games.finished],
    }


# -- a player's reliability record (in the ratings app's player answer) --------------------
ReliabilityMarkSerializer = serializer_for(shapes.ReliabilityMark)
ReliabilitySerializer = serializer_for(shapes.Reliability)


GameExportSerializer = serializer_for(shapes.GameExport)
