"""The JSON API: what a player or host does on the site, for programs.

Every state change is one call of ``games.services`` (one transaction: nothing is
half-applied); every read goes through ``games.reads`` (``access`` decides who sees what),
so the API shows exactly what the pages show each person. Errors: ``{"error", "code",
"field"}`` with a 4xx status.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.db.models import F
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import display, game_settings, naming, ratelimit, services, shapes
from ..errors import ErrorCode, InvalidInput, Refusal
from ..event_kinds import VoteCountPayload, VoteResult
from ..gateway import RULESET_NAMES
from ..inactivity import slots_needing_replacement
from ..models import Game, GameStatus, NightAction, Phase, Slot, Thread
from ..outage import answer_after_commit
from ..reads import policy, snapshot
from ..reads.access import Viewer, get_game, read_cohosts
from ..reads.agents import agents_shown
from ..reads.my_games import my_games
from ..reads.people import user_called
from ..reads.phase_history import phase_records
from ..reads.role_pm import RolePM
from ..reads.seats import replaced_out, seat_history
from ..reads.table import turn_view
from ..reads.thread_page import (
    parse_iso,
    read_thread_page,
    unknown_iso_line,
    unknown_names,
    unknown_seats,
)
from ..reads.vote_count import count_for, counted_phase, sees_whole_count
from ..setups import SETUPS
from . import docs
from . import serializers as s
from .errors import api_exception_handler


def committed(game_id: int) -> shapes.Committed:
    """The answer to a write that committed when its usual answer could not be read."""
    return {"ok": True, "committed": True, "game_id": game_id, "detail": str(s.COMMITTED_DETAIL)}


class GameAPIView(APIView):
    """Base: our error shape, and the game and viewer of the URL."""

    def get_exception_handler(self) -> Any:
        return api_exception_handler

    def game(self, game_id: int) -> Game:
        return get_game(game_id)

    def viewer(self, game: Game) -> Viewer:
        return Viewer.of(game, self.request.user)

    def answer(
        self,
        game_id: int,
        read: Callable[[], Any],
        known: Callable[[], Any] | None = None,
        status: int = 200,
    ) -> Response:
        """The answer to a write that HAS committed: ``read()``, the fresh state; if the
        database drops out under it, ``known()`` (what the write returned) or
        ``committed``. Never "nothing was changed": a bot would do it twice."""
        body = answer_after_commit(read, known or (lambda: committed(game_id)))
        return Response(body, status=status)

    def ok_with_game(self, game_id: int) -> shapes.GameChanged:
        """The usual answer to a change of the game: ok, and the game's fresh facts."""
        game = self.game(game_id)
        return {"ok": True, "game": s.game_data(game, self.viewer(game))}


def absolute(request: Request, path: str) -> str:
    """A site path as an absolute URL: SITE_URL when set (behind a proxy), else the request's."""
    site = (getattr(settings, "SITE_URL", "") or "").rstrip("/")
    return f"{site}{path}" if site else request.build_absolute_uri(path)


def _valid(serializer_class: type, request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _seat(slot: Slot) -> shapes.SlotRef:
    return naming.seat_ref(slot)


def _ref(slot: Slot | None) -> shapes.SlotRef | None:
    return None if slot is None else _seat(slot)


def _action(
    action: NightAction, by_id: dict[int, Slot], history: naming.SeatHistory | None = None
) -> shapes.Action:
    """An action; with ``history``, a past one: each slot named by its holder then."""

    def ref(slot: Slot) -> shapes.SlotRef:
        data = _seat(slot)
        if history is not None:
            data["name"] = history.holder(slot.pk, at=action.updated_at)
        return data

    actor = by_id.get(action.actor_id)
    return {
        "ability": action.ability,
        "actor": None if actor is None else ref(actor),
        "targets": [ref(by_id[t]) for t in action.targets if t in by_id],
        "extra": action.extra,
        "phase": action.phase.number,
    }


def _slots(game: Game) -> list[Slot]:
    return list(game.slots.select_related("user").order_by("seat"))


# -- reference data -------------------------------------------------------------------------
class RulesetsView(GameAPIView):
    """The rule sets: methods, roles (with abilities), modifiers and house-rule flags."""

    permission_classes = [AllowAny]

    @docs.read(s.RulesetSerializer(many=True))
    def get(self, request: Request) -> Response:
        data = [display.ruleset_reference(name) for name in RULESET_NAMES]
        return Response(data)


class SetupsView(GameAPIView):
    """The ready-made setups a game can start from."""

    permission_classes = [AllowAny]

    @docs.read(s.SetupSerializer(many=True))
    def get(self, request: Request) -> Response:
        data: list[shapes.Setup] = [
            {
                "slug": setup.slug,
                "name": setup.name,
                "description": setup.description,
                "ruleset": setup.ruleset,
                "method": setup.method,
                "players": setup.player_count,
                "role_list": list(setup.role_list),
                "vote_rule": setup.vote_rule,
            }
            for setup in SETUPS.values()
        ]
        return Response(data)


# -- games ----------------------------------------------------------------------------------
class GameListView(GameAPIView):
    @docs.read(
        s.GameSerializer(many=True),
        parameters=[OpenApiParameter("status", str, enum=list(GameStatus.values), required=False)],
    )
    def get(self, request: Request) -> Response:
        """Every game (newest first), optionally by status."""
        query = Game.objects.select_related("host").order_by("-created_at")
        wanted = request.query_params.get("status")
        if wanted is not None:
            if wanted not in GameStatus.values:
                message = _("Use one of %(choices)s.") % {"choices": ", ".join(GameStatus.values)}
                raise serializers.ValidationError({"status": [message]}, "invalid")
            query = query.filter(status=wanted)
        games = list(query[:100])
        read_cohosts(games)  # who may act as each one's host, in one query
        # The games' slots and current phases in two queries (not three or more a game).
        slots: dict[int, list[Slot]] = {g.pk: [] for g in games}
        for slot in Slot.objects.filter(game__in=games).order_by("seat"):
            slots[slot.game_id].append(slot)
        numbers = {g.phase_number for g in games if g.is_running and g.phase_number}
        phases = {
            (p.game_id, p.number): p
            for p in Phase.objects.filter(game__in=games, number__in=numbers)
        }
        return Response(
            [
                s.game_data(
                    g,
                    Viewer(g, request.user, None, slots[g.pk]),
                    players=False,
                    phase=phases.get((g.pk, g.phase_number)),
                    signed_up=len(slots[g.pk]),
                )
                for g in games
            ]
        )

    @docs.write(s.GameSerializer, request=s.GameCreateSerializer, status=201, after_commit=True)
    def post(self, request: Request) -> Response:
        """Host a new game (from a ready-made setup and/or your own settings)."""
        data = dict(_valid(s.GameCreateSerializer, request))
        kwargs: dict[str, Any] = {}
        slug = data.pop("setup", "")
        if slug:
            kwargs.update(SETUPS[slug].game_kwargs())
        kwargs.update({k: data[k] for k in ("title", "ruleset", "method", "flags") if k in data})
        if "role_list" in data:
            kwargs["role_list"] = [dict(entry) for entry in data["role_list"]]
        kwargs.update(game_settings.from_api(data))  # API names and units -> settings
        game = services.create_game(request.user, **kwargs)
        return self.answer(
            game.pk,
            lambda: s.game_data(game, Viewer.of(game, request.user)),
            status=status.HTTP_201_CREATED,
        )


class MyGamesView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.read(s.MyGamesSerializer)
    def get(self, request: Request) -> Response:
        """Your games: those you play, host or wait to replace into (and the ones finished
        lately), each with what it waits for from you now, its next deadline and your
        unread posts. The same read as the "my games" page."""
        return Response(s.my_games_data(my_games(request.user)))


class GameDetailView(GameAPIView):
    @docs.read(s.GameSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        """A game's public facts: settings, phase, players (roles only when public)."""
        game = self.game(game_id)
        return Response(s.game_data(game, self.viewer(game)))


class _GameOp(GameAPIView):
    """POST with no body: one service call, then the game's public facts."""

    permission_classes = [IsAuthenticated]

    def run(self, request: Request, game_id: int) -> Any:
        raise NotImplementedError

    @docs.write(s.GameChangedSerializer, after_commit=True)
    def post(self, request: Request, game_id: int) -> Response:
        self.run(request, game_id)
        return self.answer(game_id, lambda: self.ok_with_game(game_id))


class JoinView(_GameOp):
    """Sign up for a game."""

    def run(self, request: Request, game_id: int) -> Any:
        return services.join_game(request.user, game_id)


class LeaveView(_GameOp):
    """Withdraw your sign-up."""

    def run(self, request: Request, game_id: int) -> Any:
        return services.leave_game(request.user, game_id)


class StartView(_GameOp):
    """Host: deal the roles and start."""

    def run(self, request: Request, game_id: int) -> Any:
        return services.start_game(request.user, game_id)


# -- posts ----------------------------------------------------------------------------------
class PostsView(GameAPIView):
    @docs.read(
        s.PostPageSerializer,
        errors=(422,),  # an ISO of a player the game does not have
        parameters=[
            OpenApiParameter("thread", str, enum=list(Thread.values), required=False),
            OpenApiParameter(
                "page",
                str,
                required=False,
                description='A number, or "last": the newest page (past the end: the last '
                "page; anything else: the first).",
            ),
            OpenApiParameter(
                "iso",
                str,
                many=True,
                required=False,
                description="The players to filter to (ISO), by seat number or by name; "
                "a seat or a name no player of the game has is a 422 (code no_player).",
            ),
        ],
    )
    def get(self, request: Request, game_id: int) -> Response:
        """A page of a thread (25 posts), optionally filtered to some players (ISO)."""
        game = self.game(game_id)
        thread = request.query_params.get("thread", Thread.PUBLIC)
        slots = snapshot.slots(game)
        Viewer.of(game, request.user, slots).require_read(thread)
        asked = request.query_params.getlist("iso")
        iso = parse_iso(asked, slots)
        # Not the whole thread as if nothing was asked: say whom the game does not have.
        if nobody := unknown_iso_line(unknown_seats(iso, slots), unknown_names(asked, slots)):
            raise InvalidInput(nobody, ErrorCode.NO_PLAYER, "iso")
        page, iso_rows = read_thread_page(
            game,
            thread,
            iso,
            request.query_params.get("page"),
            slots,
            # The seat comes from the slots read above and the phase's number as a value:
            # no slot or phase rows (with their JSON columns) per post.
            annotations={"phase_number": F("phase__number")},
        )
        seats = {slot.pk: slot.seat for slot in slots}
        agents = agents_shown(game)
        counts: list[shapes.IsoCount] = [
            {"seat": c["seat"], "name": c["name"], "posts": c["posts"]} for c in iso_rows
        ]
        data: shapes.PostPage = {
            "thread": thread,
            "page": page.number,
            "num_pages": page.num_pages,
            "count": page.count,
            "iso": iso,
            "iso_counts": counts,
            "results": [s.post_data(p, seats, agents) for p in page.posts],
        }
        return Response(data)

    @docs.write(
        s.PostResultSerializer,
        request=s.PostCreateSerializer,
        status=201,
        refusals=policy.POSTING,
    )
    @ratelimit.limited("post")
    def post(self, request: Request, game_id: int) -> Response:
        """Post in a thread. A bold **Vote: Name** in a public day post votes (with secret
        votes, ``secret_votes``, the post shows **(voted)** in its place).

        Under the game's post limit (``post_limit``) a living player's game-thread posts
        are counted by day; past it a post is refused with 409, code
        ``post_limit_reached`` ("You have used your 5 posts today."), until the next day or
        the limit's lift (``post_limit_lifted`` before the deadline). The game's
        ``posts_left`` says what is left. The vote and unvote buttons, and a post that is
        only their vote line, are votes: never counted, never refused."""
        data = _valid(s.PostCreateSerializer, request)
        game = self.game(game_id)
        self.viewer(game).require_read(data["thread"])
        result = services.submit_post(
            request.user,
            game_id,
            body=data["body"],
            thread=data["thread"],
            to=data.get("to"),
            thoughts=data.get("thoughts", ""),
        )
        # 201 only when a post was created; a post of skip-discussion lines alone posts
        # nothing, and ``table_note`` says what it did.
        answer: shapes.PostResult = {
            "post": s.post_data(result.post) if result.post else None,
            "vote_message": result.vote_message,
            "day_ended": result.day_ended,
            "table_note": result.table_note,
        }
        return Response(
            answer, status=status.HTTP_201_CREATED if result.post else status.HTTP_200_OK
        )


# -- votes ----------------------------------------------------------------------------------
def _vote_count(game: Game, user: Any) -> VoteCountPayload | None:
    """The count as ``user`` may see it (secret votes: only the host sees it whole until
    the day ends)."""
    phase = counted_phase(game)
    if phase is None:
        return None
    count = count_for(game, services.day_count(phase), sees_whole_count(game, user))
    return s.mark_agents(count, agents_shown(game))


class VoteCountView(GameAPIView):
    @docs.read(s.VoteCountSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        """Today's vote count (by night: the last day's final count)."""
        game = self.game(game_id)
        vc = _vote_count(game, request.user)
        if vc is None:
            raise NotFound(_("No day has started yet."))
        return Response(vc)


def _vote_answer(view: GameAPIView, game_id: int, post: Any, day_ended: bool) -> Response:
    """The vote's post (from the write) and the fresh count (null if it cannot be read
    just now: the live count follows)."""

    def body(count: Callable[[], VoteCountPayload | None]) -> VoteResult:
        return {
            "post": s.post_data(post) if post else None,
            "day_ended": day_ended,
            "vote_count": count(),
        }

    return view.answer(
        game_id,
        lambda: body(lambda: _vote_count(view.game(game_id), view.request.user)),
        lambda: body(lambda: None),
    )


class VoteView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.VoteResultSerializer, request=s.TargetSerializer)
    @ratelimit.limited("vote")
    def post(self, request: Request, game_id: int) -> Response:
        """Vote for a player (slot id), or null for "no elimination". With secret votes
        (``secret_votes``) nothing is posted and the answer's count is as you may see it."""
        data = _valid(s.TargetSerializer, request)
        result = services.cast_vote(
            request.user, game_id, data["target"], thoughts=data.get("thoughts", "")
        )
        return _vote_answer(self, game_id, result.post, result.day_ended)


class UnvoteView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.VoteResultSerializer)
    @ratelimit.limited("vote")
    def post(self, request: Request, game_id: int) -> Response:
        """Withdraw your vote."""
        result = services.unvote(request.user, game_id)
        return _vote_answer(self, game_id, result.post, False)


class NominateView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.VoteCountSerializer, request=s.TargetSerializer, after_commit=True)
    @ratelimit.limited("vote")
    def post(self, request: Request, game_id: int) -> Response:
        """Classic: nominate a player (or null: skip, day 1 only). At a table: during your
        own speech, before or after its post; the nomination ends the speech."""
        data = _valid(s.TargetSerializer, request)
        services.nominate(request.user, game_id, data["target"], thoughts=data.get("thoughts", ""))
        return self.answer(game_id, lambda: _vote_count(self.game(game_id), request.user))


# -- turns (table days) ------------------------------------------------------------------------
def turn_data(game: Game, user: Any) -> dict[str, Any]:
    slots = _slots(game)
    viewer = next((x for x in slots if x.user_id == getattr(user, "pk", None)), None)
    phase = game.current_phase() if game.phase_number else None
    return turn_view(game, phase, slots, viewer if viewer and viewer.alive else None)


class TurnView(GameAPIView):
    @docs.read(s.TurnSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        """Whose turn it is at the table, what comes next, and what you may do now."""
        return Response(turn_data(self.game(game_id), request.user))


class PassTurnView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.TurnSerializer, request=s.ThoughtsSerializer, after_commit=True)
    def post(self, request: Request, game_id: int) -> Response:
        """End your turn without a post (the rules' default applies where there is one).
        The body is optional: only your ``thoughts``."""
        data = _valid(s.ThoughtsSerializer, request)
        services.pass_turn(request.user, game_id, thoughts=data.get("thoughts", ""))
        return self.answer(game_id, lambda: turn_data(self.game(game_id), request.user))


# -- role PM and night actions ----------------------------------------------------------------
def role_pm_data(game: Game, slot: Slot) -> shapes.RolePM:
    """The role PM as JSON, from the ``RolePM`` read model (the page shows the same)."""
    read = RolePM.of(game, slot)
    by_id = read.by_id
    night_open = read.night is not None
    return {
        "slot_id": slot.pk,
        "seat": slot.seat,
        "name": slot.display_name,
        "alive": slot.alive,
        "role": slot.role,
        "alignment": slot.alignment,
        "modifiers": list(slot.modifiers),
        "description": read.description,
        "role_pm": read.pm["card"],
        "day_actions": [
            {
                "ability": o["ability"],
                "description": o["description"],
                "choices": [_seat(by_id[c]) for c in o["choices"] if c in by_id],
                "unavailable": o["unavailable"],
                "shots_left": o["shots_left"],
            }
            for o in read.day_options
        ],
        "partners": read.pm["partners"],
        "executioner_target": read.pm.get("executioner_target"),
        "phase": s.phase_data(game.current_phase() if game.is_running else None),
        "night_open": night_open,
        "abilities": [
            {
                "ability": o["ability"],
                "targets": o["targets"],
                "factional": o["factional"],
                "extra": o["extra"],
                "choices": [_seat(by_id[c]) for c in o["choices"] if c in by_id],
            }
            for o in read.night_options
        ],
        "my_actions": [_action(a, by_id) for a in read.tonight],
        "team_actions": [_action(a, by_id) for a in read.team_kills],
        "past_actions": [_action(a, by_id, read.history) for a in read.past],
        "results": [
            {
                "phase": r.phase.number,
                "label": r.phase.label,
                "text": r.text,
                "result": naming.render_value(r.payload, read.result_names(r)),
            }
            for r in read.results
        ],
    }


def _player_slot(game: Game, user: Any) -> Slot:
    viewer = Viewer.of(game, user)
    if not viewer.has_role or viewer.slot is None:  # (has_role: a slot; the test narrows)
        replaced = replaced_out(game, user)
        if replaced is not None:
            if replaced["when"]:
                message = _(
                    "%(by)s replaced you on %(when)s: you have no role in this game now."
                ) % {"by": replaced["by"], "when": replaced["when"]}
            else:
                message = _("%(by)s replaced you: you have no role in this game now.") % {
                    "by": replaced["by"]
                }
            raise NotFound(message)
        raise NotFound(_("You have no role in this game."))
    return viewer.slot


class RoleView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.read(s.RolePMSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        """Your role PM: role, partners, tonight's abilities with legal targets, your
        actions and your private results."""
        game = self.game(game_id)
        return Response(role_pm_data(game, _player_slot(game, request.user)))


def _role_pm_answer(view: GameAPIView, game_id: int) -> Response:
    """The answer to a night or day action: the fresh role PM."""

    def read() -> shapes.RolePM:
        game = view.game(game_id)
        return role_pm_data(game, _player_slot(game, view.request.user))

    return view.answer(game_id, read)


class ActionsView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.RolePMSerializer, request=s.NightActionSerializer, after_commit=True)
    def post(self, request: Request, game_id: int) -> Response:
        """Send (or change) tonight's use of an ability; targets are slot ids."""
        data = _valid(s.NightActionSerializer, request)
        services.submit_night_action(
            request.user,
            game_id,
            ability=data["ability"],
            targets=list(data["targets"]),
            extra=data.get("extra") or {},
            thoughts=data.get("thoughts", ""),
        )
        return _role_pm_answer(self, game_id)


class DayActionView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.RolePMSerializer, request=s.DayActionSerializer, after_commit=True)
    def post(self, request: Request, game_id: int) -> Response:
        """Use your day action now (a day vigilante's shot, a day investigation): it
        resolves at once; refused at night, twice a day or with no shots left."""
        data = _valid(s.DayActionSerializer, request)
        services.use_day_action(
            request.user,
            game_id,
            target=data["target"],
            ability=data.get("ability") or None,
            thoughts=data.get("thoughts", ""),
        )
        return _role_pm_answer(self, game_id)


class ActionDetailView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.RolePMSerializer, after_commit=True)
    def delete(self, request: Request, game_id: int, ability: str) -> Response:
        """Withdraw tonight's use of ``ability``."""
        services.withdraw_night_action(request.user, game_id, ability=ability)
        return _role_pm_answer(self, game_id)


# -- host -------------------------------------------------------------------------------------
def phases_data(
    game: Game,
    slots: list[Slot],
    *,
    include_open: bool,
    records: list[dict[str, Any]] | None = None,
    history: naming.SeatHistory | None = None,
) -> list[shapes.PhaseRecord]:
    """Each phase's record as data; ``records`` and ``history``, when the caller has read
    them (the review has), are not read again."""
    by_id = {x.pk: x for x in slots}
    if history is None:
        history = seat_history(game, slots)
    if records is None:
        records = phase_records(game, slots, include_open=include_open, history=history)
    actions: dict[int, list[NightAction]] = {}
    for action in NightAction.objects.filter(phase__game=game).select_related("phase"):
        actions.setdefault(action.phase_id, []).append(action)
    return [
        {
            "number": rec["phase"].number,
            "kind": rec["phase"].kind,
            "label": rec["label"],
            "resolved": rec["phase"].resolved,
            "actions": [_action(a, by_id, history) for a in actions.get(rec["phase"].pk, [])],
            "results": [{"player": _ref(r["slot"]), "text": r["text"]} for r in rec["results"]],
            "explanation": rec["explanation"],
            "notes": rec["notes"],
        }
        for rec in records
    ]


def slot_roles(slot: Slot, agents: frozenset[str]) -> shapes.SlotRoles:
    return {
        "slot_id": slot.pk,
        "seat": slot.seat,
        "name": slot.display_name,
        # The host's and the archive's: the account behind a masked name (anonymous games).
        "real_name": slot.real_name,
        "agent": slot.real_name in agents,
        "alive": slot.alive,
        "death_cause": slot.death_cause,
        "role": slot.role,
        "alignment": slot.alignment,
        "modifiers": list(slot.modifiers),
        "sanity": slot.sanity,
        "prods": slot.prods,
    }


class HostOnlyView(GameAPIView):
    permission_classes = [IsAuthenticated]

    def host_game(self, game_id: int) -> Game:
        game = self.game(game_id)
        if not self.viewer(game).is_host:
            raise policy.NOT_HOST.error()  # the services' refusal, code and all
        return game


class HostView(HostOnlyView):
    @docs.read(s.HostViewSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        """Host only: every role, every night action as it comes in, every explanation."""
        game = self.host_game(game_id)
        slots, agents = _slots(game), agents_shown(game)
        data: shapes.HostView = {
            "game": s.game_data(game, self.viewer(game)),
            "slots": [slot_roles(x, agents) for x in slots],
            "phases": phases_data(game, slots, include_open=True),
            "needs_replacement": [_seat(x) for x in slots_needing_replacement(game)],
        }
        return Response(data)


class HostOpView(HostOnlyView):
    """A host action: POST ``body`` (a serializer; None: no body), one service call
    (``run``), then the game's fresh facts. Each subclass's operation in the OpenAPI
    document is made from its own ``body``, ``rate_limit`` and docstring, once, here."""

    body: ClassVar[type[serializers.Serializer] | None] = None
    rate_limit: ClassVar[str | None] = None  # the kind of request it counts as (ratelimit)
    # The policy's name of the control (``policy.HOST_CONTROLS``): its refusals are listed
    control: ClassVar[str | None] = None
    refusals: ClassVar[tuple[Refusal, ...]] = ()  # or these, when it is no such control

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        refusals = policy.host_control_refusals(cls.control) if cls.control else cls.refusals
        docs.write(
            s.GameChangedSerializer,
            request=cls.body,
            after_commit=True,
            rate_limit=cls.rate_limit,
            refusals=refusals,
        )(cls)

    def run(self, request: Request, game_id: int, data: dict[str, Any]) -> Any:
        raise NotImplementedError

    def post(self, request: Request, game_id: int) -> Response:
        if self.rate_limit:
            ratelimit.enforce(self.rate_limit, request)
        data = _valid(self.body, request) if self.body else {}
        self.run(request, game_id, data)
        return self.answer(game_id, lambda: self.ok_with_game(game_id))


class ExtendView(HostOpView):
    """Push the current deadline back."""

    body = s.ExtendSerializer
    control = "extend"

    def run(self, request: Request, game_id: int, data: dict[str, Any]) -> Any:
        return services.extend_deadline(
            request.user, game_id, by=timedelta(minutes=data["minutes"])
        )


class SkipTurnView(HostOpView):
    """Table day: end the current turn (or close the vote); the default applies."""

    control = "skip_turn"

    def run(self, request: Request, game_id: int, data: dict[str, Any]) -> Any:
        return services.skip_speaker(request.user, game_id)


class CutView(HostOpView):
    """End the current phase now."""

    control = "cut"

    def run(self, request: Request, game_id: int, data: dict[str, Any]) -> Any:
        return services.cut_deadline_now(request.user, game_id)


class PauseView(HostOpView):
    """Stop the clock."""

    control = "pause"

    def run(self, request: Request, game_id: int, data: dict[str, Any]) -> Any:
        return services.pause_game(request.user, game_id)


class ResumeView(HostOpView):
    """Restart the clock."""

    control = "resume"

    def run(self, request: Request, game_id: int, data: dict[str, Any]) -> Any:
        return services.resume_game(request.user, game_id)


class ModkillView(HostOpView):
    """Remove a player from the game."""

    body = s.ModkillSerializer
    control = "modkill"

    def run(self, request: Request, game_id: int, data: dict[str, Any]) -> Any:
        return services.modkill(
            request.user, game_id, data["slot_id"], reason=data.get("reason", "")
        )


class ReplaceView(HostOpView):
    """A new person takes over a slot."""

    body = s.ReplaceSerializer
    control = "replace"

    def run(self, request: Request, game_id: int, data: dict[str, Any]) -> Any:
        new_user = user_called(data["username"])
        if new_user is None:
            raise InvalidInput(
                _("There is no user called %(name)s.") % {"name": repr(data["username"])},
                ErrorCode.NO_USER,
                "username",
            )
        return services.replace_player(request.user, game_id, data["slot_id"], new_user)


class CancelView(HostOpView):
    """Cancel a game in sign-ups: it leaves the lobby, and the thread tells everyone who
    signed up (with ``reason``, if given). Refused once the game has started
    (``signups_closed``) and for anyone but the host (``not_host``)."""

    body = s.CancelSerializer
    control = "cancel"

    def run(self, request: Request, game_id: int, data: dict[str, Any]) -> Any:
        return services.cancel_game(request.user, game_id, reason=data.get("reason", ""))


class RemoveSignupView(HostOpView):
    """Remove a player from the sign-ups."""

    body = s.SlotIdSerializer

    def run(self, request: Request, game_id: int, data: dict[str, Any]) -> Any:
        return services.remove_signup(request.user, game_id, data["slot_id"])


class HostPostView(HostOpView):
    """Post as the host in any thread."""

    body = s.HostPostSerializer
    rate_limit = "post"
    refusals = (policy.NOT_HOST, policy.MUTED, policy.NO_THREAD)

    def run(self, request: Request, game_id: int, data: dict[str, Any]) -> Any:
        return services.host_post(request.user, game_id, body=data["body"], thread=data["thread"])


class CoHostsView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(
        s.GameChangedSerializer,
        request=s.AddCoHostSerializer,
        after_commit=True,
        refusals=policy.host_control_refusals("cohosts"),
    )
    def post(self, request: Request, game_id: int) -> Response:
        """The host makes someone a co-host ("cohost") or a backup host ("backup"): either
        has the host's powers in this game (sees every role, uses every host control). Only
        the game's host may (``not_the_host``); a player of the game (``in_game``), the host
        itself (``host``) or an agent (``agent_host``) cannot be one."""
        data = _valid(s.AddCoHostSerializer, request)
        services.add_cohost(request.user, game_id, data["username"], data["kind"])
        return self.answer(game_id, lambda: self.ok_with_game(game_id))


class CoHostDetailView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(s.GameChangedSerializer, after_commit=True)
    def delete(self, request: Request, game_id: int, user_id: int) -> Response:
        """The host removes a co-host or backup host (a co-host may remove themself: step
        down). They see only what a spectator sees from then on."""
        services.remove_cohost(request.user, game_id, user_id)
        return self.answer(game_id, lambda: self.ok_with_game(game_id))


class HandOverView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(
        s.GameChangedSerializer,
        request=s.HandOverSerializer,
        after_commit=True,
        refusals=policy.host_control_refusals("cohosts"),
    )
    def post(self, request: Request, game_id: int) -> Response:
        """The host hands the game to another user: they become its host, and the old host
        one of its co-hosts. Refused for a player of the game (``in_game``) or an agent
        (``agent_host``); only the game's host may (``not_the_host``)."""
        data = _valid(s.HandOverSerializer, request)
        services.hand_over(request.user, game_id, data["username"])
        return self.answer(game_id, lambda: self.ok_with_game(game_id))


# -- archive ----------------------------------------------------------------------------------
class ArchiveView(GameAPIView):
    @docs.read(s.ArchiveSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        """After the game ends: every role, action, result and explanation."""
        game = self.game(game_id)
        if not game.is_finished:
            raise NotFound(_("The archive opens when the game ends."))
        slots, agents = _slots(game), agents_shown(game)
        co = set(game.co_winners or [])
        data: shapes.Archive = {
            "game": s.game_data(game, self.viewer(game)),
            "slots": [slot_roles(x, agents) for x in slots],
            "phases": phases_data(game, slots, include_open=False),
            "co_winners": [_seat(x) for x in slots if x.pk in co],
        }
        return Response(data)
