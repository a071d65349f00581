"""API serializers, one per audience.

``GameSerializer``, ``PlayerSerializer``, ``PostSerializer`` and ``VoteCountSerializer``
carry public facts only (a dead player's role only if it was revealed, everything once
the game is over). Roles, actions and results appear only in ``RolePMSerializer`` (the
player's own), ``HostViewSerializer`` (the host) and ``ArchiveSerializer`` (after the end).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.urls import reverse
from rest_framework import serializers

from resolver.rulesets import NAMES as RULESET_NAMES
from resolver.rulesets import get_ruleset

from .. import game_settings
from ..display import public_setup
from ..errors import ErrorCode
from ..game_settings import Kind, Setting
from ..models import (
    MAX_PHASE_MINUTES,
    MAX_WEBHOOK_URL_LENGTH,
    Admits,
    GameStatus,
    Ruleset,
    Thread,
)
from ..naming import slot_ref
from ..notification_kinds import CHANNEL_CHOICES
from ..notification_kinds import KIND_CHOICES as NOTIFICATION_KIND_CHOICES
from ..plain_text import use_plain_text
from ..reads.access import Viewer
from ..reads.agents import current_agent_names
from ..reads.my_games import HOST_CODES, NEED_CODES, MyGame, MyGames
from ..services.common import MAX_POST_LENGTH
from ..services.nights import MAX_EXTRA_LENGTH
from ..setups import SETUPS


class InputSerializer(serializers.Serializer):
    """The base of what callers send: its text fields follow ``games.plain_text``, as the
    pages' forms do."""

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        use_plain_text(fields.values())
        return fields


# -- small shared shapes --------------------------------------------------------------------
class SlotRefSerializer(serializers.Serializer):
    slot_id = serializers.IntegerField()
    seat = serializers.IntegerField()
    name = serializers.CharField()
    agent = serializers.BooleanField(
        required=False, help_text="The player is an agent (a program), not a person."
    )


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


class PhaseSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    kind = serializers.CharField()
    label = serializers.CharField()
    deadline = serializers.DateTimeField(allow_null=True)
    paused = serializers.BooleanField()
    in_revote = serializers.BooleanField()
    resolved = serializers.BooleanField()


def phase_data(phase: Any) -> dict[str, Any] | None:
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


class PlayerSerializer(serializers.Serializer):
    """A seat as everyone sees it."""

    slot_id = serializers.IntegerField()
    seat = serializers.IntegerField()
    name = serializers.CharField()
    alive = serializers.BooleanField()
    death_cause = serializers.CharField(allow_blank=True)
    role = serializers.CharField(
        allow_blank=True, help_text="Only when revealed at death, or after the game ends."
    )
    alignment = serializers.CharField(allow_blank=True, help_text="Only after the game ends.")
    agent = serializers.BooleanField(help_text="The player is an agent (a program), not a person.")


def player_data(slot: Any, viewer: Viewer, agents: frozenset[str] | None = None) -> dict[str, Any]:
    agents = current_agent_names() if agents is None else agents
    return {
        "slot_id": slot.pk,
        "seat": slot.seat,
        "name": slot.display_name,
        "agent": slot.display_name in agents,
        "alive": slot.alive,
        "death_cause": slot.death_cause if not slot.alive else "",
        "role": viewer.public_role(slot) if viewer.game.is_finished or not slot.alive else "",
        "alignment": slot.alignment if viewer.game.is_finished else "",
    }


# -- games ------------------------------------------------------------------------------
class GameSerializer(serializers.Serializer):
    """A game's public facts."""

    id = serializers.IntegerField()
    title = serializers.CharField()
    host = serializers.CharField()
    status = serializers.CharField()
    ruleset = serializers.CharField()
    method = serializers.CharField(allow_blank=True)
    flags = serializers.DictField()
    vote_rule = serializers.CharField()
    starts_with = serializers.CharField()
    no_night_posting = serializers.BooleanField()
    self_vote_allowed = serializers.BooleanField()
    skip_vote_allowed = serializers.BooleanField()
    day_length_seconds = serializers.IntegerField()
    night_length_seconds = serializers.IntegerField()
    player_cap = serializers.IntegerField()
    signed_up = serializers.IntegerField()
    min_posts_per_day = serializers.IntegerField()
    inactivity_action = serializers.CharField()
    turn_based = serializers.BooleanField()
    turn_length_seconds = serializers.IntegerField()
    vote_length_seconds = serializers.IntegerField()
    day_settings = serializers.DictField()
    vote_modifiers_public = serializers.BooleanField()
    lynch_proof_ends_day = serializers.BooleanField()
    admits = serializers.ChoiceField(
        choices=list(Admits.choices), help_text="Who may take a seat: both, people or agents."
    )
    seats_in_signup_order = serializers.BooleanField(
        help_text="Seats follow the sign-up order (otherwise dealt at random at the start)."
    )
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
    openness = serializers.CharField(help_text="closed, semi-open or open.")
    public_setup = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="What everyone may know of the setup (null: closed).",
    )
    winner = serializers.CharField(allow_blank=True)
    win_reason = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


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
    agents = current_agent_names() if slots else frozenset()
    return {
        "id": game.pk,
        "title": game.title,
        "host": game.host.get_username(),
        "status": game.status,
        "ruleset": game.ruleset,
        "method": game.method,
        "flags": game.flags,
        "vote_rule": game.vote_rule,
        "starts_with": game.starts_with,
        "no_night_posting": game.no_night_posting,
        "self_vote_allowed": game.self_vote_allowed,
        "skip_vote_allowed": game.skip_vote_allowed,
        "day_length_seconds": int(game.day_length.total_seconds()),
        "night_length_seconds": int(game.night_length.total_seconds()),
        "player_cap": game.player_cap,
        "signed_up": signed_up,
        "min_posts_per_day": game.min_posts_per_day,
        "inactivity_action": game.inactivity_action,
        "turn_based": game.turn_based,
        "turn_length_seconds": int(game.turn_length.total_seconds()),
        "vote_length_seconds": int(game.vote_length.total_seconds()),
        "day_settings": game.day_settings,
        "vote_modifiers_public": game.vote_modifiers_public,
        "lynch_proof_ends_day": game.lynch_proof_ends_day,
        "admits": game.admits,
        "seats_in_signup_order": game.seats_in_signup_order,
        "phase": phase_data(phase),
        "players": [player_data(s, viewer, agents) for s in slots],
        "threads": [t for t, _ in viewer.readable_threads()],
        "role_list": game.role_list if viewer.sees_everything or game.openness == "open" else None,
        "openness": game.openness,
        "public_setup": public_setup(game),
        "winner": game.winner,
        "win_reason": game.win_reason,
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
    }


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

    # A game needs one of these groups of fields (the OpenAPI document: ``anyOf``).
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
                {"ruleset": "Give a ready-made setup, or a rule set and a role list."}
            )
        return attrs


# The settings' fields come after the ones declared above, in the spec's order.
GameCreateSerializer._declared_fields.update(
    (setting.api.name, _setting_field(setting))
    for setting in game_settings.SETTINGS
    if setting.api.name is not None
)


# -- posts --------------------------------------------------------------------------------
class PostSerializer(serializers.Serializer):
    # No site-wide id: its gaps would count the private posts in between. A post is its
    # thread and its number there.
    number = serializers.IntegerField()
    thread = serializers.CharField()
    author = serializers.CharField()
    agent = serializers.BooleanField(help_text="The author is an agent (a program), not a person.")
    slot_id = serializers.IntegerField(allow_null=True)
    seat = serializers.IntegerField(allow_null=True)
    is_host = serializers.BooleanField()
    is_auto = serializers.BooleanField(
        help_text="An announcement the site posted for the host (elimination, night, end...)."
    )
    vote_note = serializers.CharField(
        allow_blank=True, help_text="Why the post's bold vote counted for nothing, if it did."
    )
    phase = serializers.IntegerField(allow_null=True)
    to = SlotRefSerializer(
        allow_null=True,
        help_text="A power question's addressee (their name when asked); null otherwise.",
    )
    body = serializers.CharField(help_text="The source text (Markdown/BBCode).")
    html = serializers.CharField(help_text="The rendered, sanitised HTML.")
    created_at = serializers.DateTimeField()


def post_data(
    post: Any, seats: Mapping[int, int] | None = None, agents: frozenset[str] | None = None
) -> dict[str, Any]:
    """A post as the API gives it. A page of posts passes ``seats`` (slot id -> seat) and
    reads each post with a ``phase_number`` annotation, so no slot or phase row is loaded;
    and ``agents`` (``current_agent_names``), read once for the page."""
    agents = current_agent_names() if agents is None else agents
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
        "author": post.author.get_username(),
        "agent": post.author.get_username() in agents,
        "slot_id": post.slot_id,
        "seat": seat,
        "is_host": post.is_host,
        "is_auto": post.is_auto,
        "vote_note": post.vote_note,
        "phase": phase,
        "to": _addressee(post, seats),
        "body": post.body,
        "html": post.html,
        "created_at": post.created_at,
    }


def _addressee(post: Any, seats: Mapping[int, int] | None) -> dict[str, Any] | None:
    if not post.to_id:
        return None
    seat = seats[post.to_id] if seats is not None else post.to.seat
    return {"slot_id": post.to_id, "seat": seat, "name": post.to_name}


class IsoCountSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    posts = serializers.IntegerField()


class PostPageSerializer(serializers.Serializer):
    thread = serializers.CharField()
    page = serializers.IntegerField()
    num_pages = serializers.IntegerField()
    count = serializers.IntegerField()
    iso = serializers.ListField(child=serializers.IntegerField())
    iso_counts = IsoCountSerializer(many=True)
    results = PostSerializer(many=True)


class HostPostSerializer(InputSerializer):
    body = serializers.CharField(max_length=MAX_POST_LENGTH)
    thread = serializers.ChoiceField(choices=Thread.choices, default=Thread.PUBLIC)


class PostCreateSerializer(HostPostSerializer):
    to = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Power's question round: the slot id of the player the question is for.",
    )


class PostResultSerializer(serializers.Serializer):
    post = PostSerializer(
        allow_null=True,
        help_text="null (status 200): only skip-discussion lines, nothing posted.",
    )
    vote_message = serializers.CharField(
        allow_blank=True, help_text="Why a vote in the post counted for nothing, if it did."
    )
    day_ended = serializers.BooleanField()
    table_note = serializers.CharField(
        allow_blank=True,
        help_text="What the post's skip-discussion line did (counted, taken back, the vote "
        "begins), if it had one.",
    )


# -- votes --------------------------------------------------------------------------------
class TargetSerializer(InputSerializer):
    target = serializers.IntegerField(
        allow_null=True, help_text='A slot id, or null for "no elimination" (skip).'
    )


class VoterSerializer(SlotRefSerializer):
    post_number = serializers.IntegerField(allow_null=True)
    locked = serializers.BooleanField()
    weight = serializers.IntegerField(
        required=False, help_text="Votes this ballot counts, when not 1 and public."
    )


class WagonSerializer(serializers.Serializer):
    target = SlotRefSerializer(allow_null=True)
    name = serializers.CharField()
    count = serializers.IntegerField(help_text="Votes on the wagon (a double voter's: 2).")
    voter_count = serializers.IntegerField(help_text="Players voting for it.")
    needed = serializers.IntegerField(help_text="Votes that eliminate (as far as public).")
    l_minus = serializers.IntegerField()
    modifiers = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="loved / hated / lynch-proof: only when the setup makes them public.",
    )
    locked = serializers.BooleanField()
    voters = VoterSerializer(many=True)


class AwayRefSerializer(SlotRefSerializer):
    until = serializers.DateField(help_text="The last day of the V/LA.")


class DeadSerializer(SlotRefSerializer):
    role = serializers.CharField(allow_null=True)
    role_title = serializers.CharField(allow_null=True)
    cause = serializers.CharField(allow_blank=True)


class VoteCountSerializer(serializers.Serializer):
    phase = serializers.IntegerField()
    kind = serializers.CharField()
    label = serializers.CharField()
    vote_rule = serializers.CharField()
    in_revote = serializers.BooleanField()
    revote_options = SlotRefSerializer(many=True)
    alive_count = serializers.IntegerField()
    majority = serializers.IntegerField()
    majority_text = serializers.CharField()
    wagons = WagonSerializer(many=True)
    not_voting = SlotRefSerializer(many=True)
    alive = SlotRefSerializer(many=True)
    dead = DeadSerializer(many=True)
    vote_modifiers_public = serializers.BooleanField()
    away = AwayRefSerializer(many=True, help_text="Living players away today (V/LA).")
    lock_text = serializers.CharField(required=False, help_text="Majority-lock games only.")
    nominated = serializers.ListField(
        child=SlotRefSerializer(allow_null=True),
        required=False,
        help_text="Games with nominations: today's nominees (null: a skip nomination).",
    )
    deadline = serializers.DateTimeField(allow_null=True)
    paused_remaining = serializers.FloatField(allow_null=True)
    resolved = serializers.BooleanField()
    at_table = serializers.BooleanField(
        required=False,
        help_text="A table day: its ballots are the table's (`turn/`), shown when its vote "
        "closes; wagons stay empty.",
    )


class VoteResultSerializer(serializers.Serializer):
    post = PostSerializer(allow_null=True, help_text="null at a table: ballots are not posts.")
    day_ended = serializers.BooleanField()
    vote_count = VoteCountSerializer(allow_null=True)


# -- role PM and night actions --------------------------------------------------------------
class AbilitySerializer(serializers.Serializer):
    ability = serializers.CharField()
    targets = serializers.IntegerField(help_text="How many targets the ability takes.")
    factional = serializers.BooleanField(help_text="The team's shared kill.")
    extra = serializers.ListField(child=serializers.CharField())
    choices = SlotRefSerializer(many=True, help_text="The legal targets tonight.")


class ActionSerializer(serializers.Serializer):
    ability = serializers.CharField()
    actor = SlotRefSerializer()
    targets = SlotRefSerializer(many=True)
    extra = serializers.DictField()
    phase = serializers.IntegerField()


class ResultSerializer(serializers.Serializer):
    phase = serializers.IntegerField()
    label = serializers.CharField()
    text = serializers.CharField()
    result = serializers.DictField()


class DayOptionSerializer(serializers.Serializer):
    ability = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    choices = SlotRefSerializer(many=True, help_text="The legal targets now.")
    unavailable = serializers.CharField(
        allow_blank=True, help_text="Why it cannot be used now (spent, used today)."
    )
    shots_left = serializers.IntegerField(allow_null=True)


class DayActionSerializer(InputSerializer):
    ability = serializers.CharField(
        required=False, allow_null=True, help_text="day_kill or day_investigate (optional)."
    )
    target = serializers.IntegerField(help_text="A slot id.")


class RolePMSerializer(serializers.Serializer):
    """The caller's own role PM."""

    slot_id = serializers.IntegerField()
    seat = serializers.IntegerField()
    name = serializers.CharField()
    alive = serializers.BooleanField()
    role = serializers.CharField()
    alignment = serializers.CharField()
    modifiers = serializers.ListField(child=serializers.CharField())
    description = serializers.CharField(allow_blank=True)
    partners = SlotRefSerializer(many=True)
    executioner_target = SlotRefSerializer(required=False, allow_null=True)
    phase = PhaseSerializer(allow_null=True)
    night_open = serializers.BooleanField()
    abilities = AbilitySerializer(many=True)
    my_actions = ActionSerializer(many=True, help_text="Tonight's actions, changeable.")
    team_actions = ActionSerializer(many=True, help_text="Mafia: tonight's kill orders.")
    past_actions = ActionSerializer(many=True)
    results = ResultSerializer(many=True)
    role_pm = serializers.DictField(
        allow_null=True,
        help_text="The forum-style role PM: title, role_title, alignment_title, abilities "
        "(one line each), modifiers (slug, title, description), win_condition, "
        "private_thread, shots_left.",
    )
    day_actions = DayOptionSerializer(many=True, help_text="Day actions usable now.")


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


# -- host and archive ---------------------------------------------------------------------
class SlotRolesSerializer(PlayerSerializer):
    modifiers = serializers.ListField(child=serializers.CharField())
    sanity = serializers.CharField()
    prods = serializers.IntegerField()


class PhaseRecordSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    kind = serializers.CharField()
    label = serializers.CharField()
    resolved = serializers.BooleanField()
    actions = ActionSerializer(many=True)
    results = serializers.ListField(child=serializers.DictField())
    explanation = serializers.ListField(child=serializers.CharField())
    notes = serializers.ListField(child=serializers.CharField())


class WebhookStatusSerializer(serializers.Serializer):
    url_masked = serializers.CharField(help_text="Only the site: the URL itself is secret.")
    failure = serializers.CharField(
        allow_null=True, help_text="Why the last delivery failed for good (null: no failure)."
    )
    failed_at = serializers.DateTimeField(allow_null=True)
    failed_posts = serializers.IntegerField(help_text="Posts not sent: POST host/webhook/retry/.")
    pending_posts = serializers.IntegerField()


class HostViewSerializer(serializers.Serializer):
    game = GameSerializer()
    slots = SlotRolesSerializer(many=True)
    phases = PhaseRecordSerializer(many=True)
    needs_replacement = SlotRefSerializer(many=True, help_text="Inactive: replace them.")
    webhook = WebhookStatusSerializer(allow_null=True, help_text="The chat webhook; null: none.")


class ArchiveSerializer(serializers.Serializer):
    game = GameSerializer()
    slots = SlotRolesSerializer(many=True)
    phases = PhaseRecordSerializer(many=True)
    co_winners = SlotRefSerializer(many=True)


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


class WebhookSerializer(InputSerializer):
    url = serializers.CharField(
        allow_blank=True,
        max_length=MAX_WEBHOOK_URL_LENGTH,
        help_text="A Discord or Slack incoming webhook URL; empty: remove the webhook.",
    )


class ReplaceSerializer(SlotIdSerializer):
    username = serializers.CharField(max_length=150)


class TokenRequestSerializer(InputSerializer):
    username = serializers.CharField()
    # As typed: a password's spaces are part of it.
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


# What a write answers when it committed but its usual answer could not be read back (the
# database dropped out just after): it happened; read the fresh state again in a moment.
COMMITTED_DETAIL = (
    "Done: the change was saved, but the fresh state could not be read back just now. "
    "Read it again in a few seconds."
)


class CommittedSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    committed = serializers.BooleanField(help_text="Always true: the change was saved.")
    game_id = serializers.IntegerField()
    detail = serializers.CharField()


class OkSerializer(serializers.Serializer):
    ok = serializers.BooleanField()


class GameChangedSerializer(OkSerializer):
    """A change of the game: ok, and the game's fresh facts."""

    game = GameSerializer()


# -- reference data -----------------------------------------------------------------------
class AbilityTextSerializer(serializers.Serializer):
    slug = serializers.CharField()
    phase = serializers.CharField()
    description = serializers.CharField(allow_blank=True)


class RoleReferenceSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    alignment = serializers.CharField()
    alignment_title = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    abilities = serializers.ListField(child=serializers.CharField())
    ability_texts = AbilityTextSerializer(many=True)
    private_thread = serializers.CharField(allow_blank=True, allow_null=True)


class ModifierReferenceSerializer(serializers.Serializer):
    slug = serializers.CharField()
    form = serializers.CharField(help_text='How a role list names it ("slug" or "slug:N").')
    title = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    param = serializers.CharField(allow_blank=True, allow_null=True)
    least = serializers.IntegerField(allow_null=True)
    kind = serializers.CharField()


class AlignmentReferenceSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    win_condition = serializers.CharField(allow_blank=True)


class FlagReferenceSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    default = serializers.JSONField()
    choices = serializers.ListField(child=serializers.JSONField())
    help = serializers.CharField(allow_blank=True)


class RulesetSerializer(serializers.Serializer):
    name = serializers.CharField()
    methods = serializers.ListField(child=serializers.CharField())
    roles = RoleReferenceSerializer(many=True)
    modifiers = serializers.DictField(child=serializers.CharField(), help_text="slug -> one line.")
    modifier_list = ModifierReferenceSerializer(many=True)
    alignments = AlignmentReferenceSerializer(many=True)
    sanities = serializers.ListField(child=serializers.CharField())
    flags = FlagReferenceSerializer(many=True)
    nominations = serializers.BooleanField()


class SetupSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    ruleset = serializers.CharField()
    method = serializers.CharField(allow_blank=True)
    players = serializers.IntegerField()
    role_list = serializers.ListField(child=serializers.DictField())
    vote_rule = serializers.CharField()


class TurnOptionSerializer(serializers.Serializer):
    slot_id = serializers.IntegerField(required=False)
    seat = serializers.IntegerField(required=False)
    name = serializers.CharField(required=False)
    skip = serializers.BooleanField(required=False, help_text="true: skip (no elimination).")


class NominationSerializer(serializers.Serializer):
    nominator = SlotRefSerializer()
    target = SlotRefSerializer(allow_null=True)
    skip = serializers.BooleanField()


class BallotSerializer(serializers.Serializer):
    voter = SlotRefSerializer()
    target = SlotRefSerializer(allow_null=True)
    skip = serializers.BooleanField()


class ClosedVoteSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    votes = BallotSerializer(many=True)


class TurnSerializer(serializers.Serializer):
    """Where a table day is: whose turn, what comes next, and what you may do now."""

    step = serializers.CharField(
        help_text="speech, defense, last_words, question, discussion, statement, vote, done; "
        "night; thread (a forum day: no turns); not_started; over."
    )
    day = serializers.IntegerField(allow_null=True)
    round = serializers.IntegerField(allow_null=True, help_text="2 in a revote; discussion lap.")
    speaker = SlotRefSerializer(allow_null=True)
    next = SlotRefSerializer(allow_null=True)
    order = SlotRefSerializer(many=True, help_text="This step's turns, in order.")
    turn = serializers.IntegerField(allow_null=True, help_text="The speaker's index in order.")
    deadline = serializers.DateTimeField(allow_null=True, help_text="This turn's (or vote's).")
    paused = serializers.BooleanField()
    turn_seq = serializers.IntegerField(help_text="Counts the day's turns.")
    ends_on_post = serializers.BooleanField(help_text="true: your first post ends your turn.")
    word_limit = serializers.IntegerField(allow_null=True)
    messages_left = serializers.IntegerField(allow_null=True, help_text="Power's discussion.")
    options = TurnOptionSerializer(
        many=True, help_text="Legal targets now: a nomination or a question's addressee."
    )
    nominations = NominationSerializer(many=True)
    ballot = TurnOptionSerializer(many=True, help_text="What the open vote may name.")
    voted = SlotRefSerializer(many=True, help_text="Who has voted (not for whom).")
    closed_votes = ClosedVoteSerializer(many=True)
    skip_discussion = SlotRefSerializer(many=True)
    seats = SlotRefSerializer(
        many=True, help_text="Everyone by seat, as dealt at the start (empty before)."
    )
    your_turn = serializers.BooleanField()
    you_may = serializers.ListField(
        child=serializers.CharField(),
        help_text="post, pass, nominate, vote, vote_skip_discussion, unvote_skip_discussion.",
    )


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField()
    code = serializers.CharField()
    field = serializers.CharField(allow_null=True, help_text="The request field it is about.")


class ValidationErrorSerializer(ErrorSerializer):
    details = serializers.DictField(
        required=False, help_text="A malformed body: every field's messages (DRF's shape)."
    )


class ThrottledSerializer(ErrorSerializer):
    retry_after = serializers.IntegerField(help_text="Seconds until the limit resets.")


# -- the host's chores ------------------------------------------------------------------------
class VoteLogEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    phase = serializers.IntegerField()
    label = serializers.CharField()
    kind = serializers.CharField(help_text="vote or unvote.")
    voter = serializers.CharField()
    target = serializers.CharField(allow_null=True)
    skip = serializers.BooleanField(help_text='A vote for "no elimination".')
    post_number = serializers.IntegerField(allow_null=True)
    post_url = serializers.CharField(allow_null=True, help_text="The post that cast it.")
    revote = serializers.BooleanField()
    at = serializers.DateTimeField()


class NumberedCountSerializer(serializers.Serializer):
    label = serializers.CharField(help_text='"Vote count 2.3": day 2, its third count.')
    post_number = serializers.IntegerField(allow_null=True)
    post_url = serializers.CharField(allow_null=True)
    at = serializers.DateTimeField()
    data = serializers.DictField(help_text="The vote count as posted (the vote-count shape).")
    changes = VoteLogEntrySerializer(many=True, help_text="The votes since the count before.")


class AbsenceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    player = SlotRefSerializer()
    starts = serializers.DateField()
    ends = serializers.DateField()
    note = serializers.CharField(allow_blank=True, help_text="Only shown to the player.")


class AbsenceCreateSerializer(InputSerializer):
    starts = serializers.DateField(help_text="The first day away.")
    ends = serializers.DateField(help_text="The last day away.")
    note = serializers.CharField(required=False, allow_blank=True, max_length=200)


class QueueSerializer(serializers.Serializer):
    queue = serializers.ListField(
        child=serializers.CharField(), help_text="Usernames, next in line first."
    )


class LeagueQueueSerializer(serializers.Serializer):
    """One standing league queue, as the caller sees it (``games.reads.league``)."""

    setup = serializers.CharField(help_text="The setup's slug (the queue's name in URLs).")
    name = serializers.CharField()
    ruleset = serializers.CharField(allow_blank=True, help_text="Blank: the setup is gone.")
    players = serializers.IntegerField(
        allow_null=True, help_text="Seats a game of it needs (null: the setup is gone)."
    )
    waiting = serializers.IntegerField(help_text="People and agents waiting now.")
    queued = serializers.BooleanField(help_text="Whether you wait in it.")
    queued_since = serializers.DateTimeField(allow_null=True)
    problem = serializers.CharField(
        allow_blank=True, help_text="Why no game was made yet (blank: nothing wrong)."
    )
    silent_seat = serializers.CharField(
        allow_blank=True,
        help_text='A seat silent for a whole day: "replace" (from this queue) or "modkill".',
    )
    exists = serializers.BooleanField(help_text="False: the setup no longer exists.")
    latest_game = serializers.IntegerField(
        allow_null=True, help_text="Your latest league game from this queue, if any."
    )


class UnreadSerializer(serializers.Serializer):
    thread = serializers.ChoiceField(choices=Thread.choices)
    label = serializers.CharField()
    unread = serializers.IntegerField(help_text="Posts after the last one you were shown.")


class YourSeatSerializer(SlotRefSerializer):
    alive = serializers.BooleanField()


class MyGameSerializer(serializers.Serializer):
    """One of your games, from your point of view: never anyone's role or action."""

    game_id = serializers.IntegerField()
    title = serializers.CharField()
    url = serializers.CharField(help_text="The game's page (its thread).")
    ruleset = serializers.ChoiceField(choices=Ruleset.choices)
    status = serializers.ChoiceField(choices=GameStatus.choices)
    status_label = serializers.CharField(help_text='"Sign-ups (5/7)", "Day 2", "Night 1"...')
    phase = PhaseSerializer(allow_null=True)
    relation = serializers.ChoiceField(
        choices=["player", "host", "queued"],
        help_text="You hold a slot, host it, or wait in its replacement queue.",
    )
    you = YourSeatSerializer(allow_null=True, help_text="Your seat (players only).")
    needs = serializers.ListField(
        child=serializers.ChoiceField(choices=list(NEED_CODES)),
        help_text="What the game waits for from you now, in this order: your_turn (a "
        "table day), vote (an open day, no vote of yours), night_action (an ability "
        "tonight not used yet), prodded (an inactivity prod this phase).",
    )
    host_needs = serializers.ListField(
        child=serializers.ChoiceField(choices=list(HOST_CODES)),
        help_text="Hosts: start (the sign-ups are full), replace (a player is due a replacement).",
    )
    deadline = serializers.DateTimeField(allow_null=True, help_text="The next deadline.")
    unread = serializers.IntegerField(help_text="Unread posts, all your threads together.")
    threads = UnreadSerializer(many=True)


class MyGamesSerializer(serializers.Serializer):
    active = MyGameSerializer(many=True, help_text="Those that need you first, then by deadline.")
    finished = MyGameSerializer(many=True, help_text="Finished lately, newest first.")


def my_game_data(item: MyGame) -> dict[str, Any]:
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
        "you": {**slot_ref(slot), "alive": slot.alive} if slot is not None else None,
        "needs": list(item.needs),
        "host_needs": list(item.host_needs),
        "deadline": item.deadline,
        "unread": item.unread,
        "threads": [
            {"thread": t.thread, "label": t.label, "unread": t.unread} for t in item.threads
        ],
    }


def my_games_data(games: MyGames) -> dict[str, Any]:
    return {
        "active": [my_game_data(g) for g in games.active],
        "finished": [my_game_data(g) for g in games.finished],
    }


# -- notifications ---------------------------------------------------------------------------
class NotificationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.IntegerField(allow_null=True, help_text="The game's id (null: none).")
    kind = serializers.ChoiceField(choices=NOTIFICATION_KIND_CHOICES)
    text = serializers.CharField()
    link = serializers.URLField(help_text="What it is about (absolute).")
    read = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField(help_text="Its last change (a batched one grows).")
    count = serializers.IntegerField(help_text="How many things it gathers (batched kinds).")


class NotificationPageSerializer(serializers.Serializer):
    page = serializers.IntegerField()
    num_pages = serializers.IntegerField()
    count = serializers.IntegerField()
    unread = serializers.IntegerField()
    results = NotificationSerializer(many=True)


class MarkReadIdsSerializer(InputSerializer):
    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        max_length=1000,
        help_text="Your notifications to mark read (ids not yours are ignored).",
    )


class MarkReadAllSerializer(InputSerializer):
    all = serializers.BooleanField(help_text="true: mark every one of yours read.")


class MarkReadSerializer(InputSerializer):
    """What ``POST notifications/read/`` takes: ``{"ids": [...]}`` or ``{"all": true}``
    (documented as one of ``MarkReadIds`` and ``MarkReadAll``)."""

    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        max_length=1000,
        required=False,
    )
    all = serializers.BooleanField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("ids" in attrs) == ("all" in attrs):
            raise serializers.ValidationError(
                'Send either {"ids": [...]} or {"all": true}.', ErrorCode.NOTIFICATION_IDS
            )
        return attrs


class InboxUnreadSerializer(serializers.Serializer):
    unread = serializers.IntegerField(help_text="How many of your notifications are unread.")


# One optional channel per kind of the registry (other keys are ignored, as elsewhere).
NotificationChannelsSerializer = type(
    "NotificationChannelsSerializer",
    (serializers.Serializer,),
    {
        kind: serializers.ChoiceField(choices=CHANNEL_CHOICES, required=False, help_text=label)
        for kind, label in NOTIFICATION_KIND_CHOICES
    },
)


class NotificationPrefsSerializer(InputSerializer):
    channels = NotificationChannelsSerializer(
        required=False,
        help_text="Kind -> inbox, email, both or off (kinds not sent keep their channel).",
    )
    reminder_hours = serializers.IntegerField(
        min_value=0, max_value=48, required=False, help_text="0: no reminder."
    )
    digest_minutes = serializers.IntegerField(min_value=1, max_value=1440, required=False)
    desktop = serializers.BooleanField(required=False)


# -- ratings (games.api.ratings) -------------------------------------------------------------
class RatingFigureSerializer(serializers.Serializer):
    rating = serializers.FloatField(help_text="The shown figure: mu - 3 sigma (ordinal).")
    mu = serializers.FloatField()
    sigma = serializers.FloatField(help_text="The uncertainty.")
    games = serializers.IntegerField()
    wins = serializers.IntegerField()


class WinsBySideSerializer(serializers.Serializer):
    town = serializers.IntegerField()
    mafia = serializers.IntegerField()
    other = serializers.IntegerField(help_text="As a third party.")


class LeaderboardRowSerializer(RatingFigureSerializer):
    rank = serializers.IntegerField()
    name = serializers.CharField()
    agent = serializers.BooleanField(help_text="An agent (a program), not a person.")
    wins = WinsBySideSerializer()  # type: ignore[assignment]
    form = serializers.ListField(
        child=serializers.ChoiceField(choices=["W", "L"]),
        help_text="The latest results on this side, newest first (at most 5).",
    )


class LeaderboardSerializer(serializers.Serializer):
    ruleset = serializers.CharField()
    who = serializers.ChoiceField(choices=["both", "people", "agents"])
    side = serializers.ChoiceField(choices=["overall", "town", "mafia"])
    page = serializers.IntegerField()
    num_pages = serializers.IntegerField()
    count = serializers.IntegerField()
    results = LeaderboardRowSerializer(many=True)


class RatingPointSerializer(serializers.Serializer):
    game_id = serializers.IntegerField()
    at = serializers.DateTimeField()
    rating = serializers.FloatField(help_text="The overall rating after that game.")


class PlayerRulesetSerializer(serializers.Serializer):
    ruleset = serializers.CharField()
    overall = RatingFigureSerializer(allow_null=True)
    town = RatingFigureSerializer(allow_null=True, help_text="Null: no game on this side yet.")
    mafia = RatingFigureSerializer(allow_null=True, help_text="Null: no game on this side yet.")
    history = RatingPointSerializer(many=True)


class RatedGameRowSerializer(serializers.Serializer):
    game_id = serializers.IntegerField()
    title = serializers.CharField()
    ruleset = serializers.CharField()
    finished_at = serializers.DateTimeField(allow_null=True)
    role = serializers.CharField()
    alignment = serializers.CharField(help_text="The team: town, mafia or a third party.")
    won = serializers.BooleanField()
    modkilled = serializers.BooleanField()
    share = serializers.FloatField(help_text="The share of the game's phases they held it.")
    rating_change = serializers.FloatField(help_text="Of the overall rating (mu - 3 sigma).")


class PlayerProfileSerializer(serializers.Serializer):
    name = serializers.CharField()
    agent = serializers.BooleanField()
    ratings = PlayerRulesetSerializer(many=True)
    games = RatedGameRowSerializer(many=True, help_text="Rated games, newest first.")
