"""The league page (``/league/``: each standing queue, join and leave buttons, the signed-in
person's running league games) and ``GET /api/v1/queues/``, ``POST .../join/``,
``.../leave/``, from the same read (``league.reads.queues``) and services
(``league.services``). Joining runs the matchmaker at once: when the join fills a table,
the answer's ``latest_game`` is the game just started.

The series' pages (``/league/series/``, ``/league/series/<id>/``), the staff's form that
makes one and their "start the next game" button, the league page's panel, and the JSON
API's ``GET /api/v1/series/`` and ``GET /api/v1/series/{id}/``. All draw ``league.reads``.

Blind games (``league.guesses``, ``league.blind``): the review's guess panel and its form's
POST, the agent page's "spotted" panel, and ``GET``/``POST
/api/v1/games/{id}/agent-guesses/``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import docs
from games.api.serializers import InputSerializer
from games.api.typed import serializer_for
from games.api.views import GameAPIView
from games.errors import GameRuleError, NotFound
from games.forms import SiteForm, form_message
from games.hooks import panels
from games.models import Agent, Game
from games.reads.moderation import same_person
from games.reads.reliability import league_cooldown

from . import blind, guesses, reads, series, services
from .formats import FORMATS
from .guesses import MAX_SEATS_GIVEN
from .series import MAX_ROTATIONS, may_make_series
from .shapes import AgentGuesses, AgentGuessResult, LeagueQueue, SeriesDetail, SeriesSummary

LeagueQueueSerializer = serializer_for(LeagueQueue)
SeriesSummarySerializer = serializer_for(SeriesSummary)
SeriesDetailSerializer = serializer_for(SeriesDetail)

PANEL_SERIES = 5  # the newest series the league page lists


# -- the league page and its queues --------------------------------------------------------------
def league(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "league/league.html",
        {
            "queues": reads.queues(request.user),
            "games": reads.my_league_games(request.user),
            # Said before a Join is refused for it (the join still checks it).
            "cooldown": league_cooldown(same_person(request.user.pk))
            if request.user.is_authenticated
            else None,
            "panels": panels("league", request),
        },
    )


def _in_or_out(
    request: HttpRequest, move: Callable[[Any, str], Any], setup: str, done: str
) -> HttpResponse:
    try:
        move(request.user, setup)
    except GameRuleError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return redirect("league:league")


@require_POST
@login_required
def join(request: HttpRequest, setup: str) -> HttpResponse:
    done = _("You are in the queue: the game starts when the table is full.")
    return _in_or_out(request, services.join_queue, setup, done)


@require_POST
@login_required
def leave(request: HttpRequest, setup: str) -> HttpResponse:
    return _in_or_out(request, services.leave_queue, setup, _("You left the queue."))


class SeriesForm(SiteForm):
    """What staff give a new series; the service checks the rest (entrants, games)."""

    setup = forms.ChoiceField(label=gettext_lazy("Setup"), choices=())
    entrants = forms.CharField(
        label=gettext_lazy("Entrants"),
        widget=forms.Textarea(attrs={"rows": 6}),
        max_length=2000,
        help_text=gettext_lazy(
            "One name a line, in rotation order: as many as the setup has seats."
        ),
    )
    games = forms.IntegerField(
        label=gettext_lazy("Games"),
        required=False,
        min_value=1,
        max_value=200,
        help_text=lazy(
            lambda: (
                _("A multiple of the seats, at most %(rotations)s rotations; blank: one rotation.")
                % {"rotations": MAX_ROTATIONS}
            ),
            str,
        )(),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["setup"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [
            (
                slug,
                _("%(setup)s (%(seats)s seats)")
                % {"setup": f.setup.name, "seats": f.setup.player_count},
            )
            for slug, f in FORMATS.items()
            if f.setup is not None
        ]


def _list_page(request: HttpRequest, form: SeriesForm | None, status: int = 200) -> HttpResponse:
    may = may_make_series(request.user)
    return render(
        request,
        "league/series_list.html",
        {
            "series": reads.series_list(),
            "form": (form or SeriesForm()) if may else None,
        },
        status=status,
    )


def series_list_page(request: HttpRequest) -> HttpResponse:
    return _list_page(request, None)


@require_POST
@login_required
def series_create(request: HttpRequest) -> HttpResponse:
    if not may_make_series(request.user):
        raise PermissionDenied(_("Only the site's staff may make a series."))
    form = SeriesForm(request.POST)
    if not form.is_valid():
        return _list_page(request, form, status=400)
    try:
        made = series.create_series(
            request.user,
            setup=form.cleaned_data["setup"],
            entrants=form.cleaned_data["entrants"].splitlines(),
            games=form.cleaned_data["games"],
        )
    except GameRuleError as exc:
        form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        return _list_page(request, form, status=400)
    messages.success(request, _("The series is made and its first game has started."))
    return redirect("league:series", made.pk)


def series_page(request: HttpRequest, series_id: int) -> HttpResponse:
    try:
        detail = reads.series_detail(series_id)
    except NotFound as exc:
        raise Http404(exc.message) from None
    return render(
        request,
        "league/series.html",
        {"series": detail, "may_restart": may_make_series(request.user)},
    )


@require_POST
@login_required
def series_next(request: HttpRequest, series_id: int) -> HttpResponse:
    """Staff try again to start the next game (after a start that failed)."""
    if not may_make_series(request.user):
        raise PermissionDenied(_("Only the site's staff may start a series' games."))
    try:
        game = series.start_next(series_id)
    except NotFound as exc:
        raise Http404(exc.message) from None
    if game is not None:
        messages.success(request, _("The next game has started."))
    else:
        messages.info(request, _("No game was due to start (see the series' status)."))
    return redirect("league:series", series_id)


def league_panel(request: HttpRequest, **_: Any) -> str:
    """The league page's: the newest series and a link to them all."""
    return render_to_string(
        "league/series_panel.html",
        {"series": reads.series_list(limit=PANEL_SERIES)},
        request=request,
    )


# -- blind games: the players' guesses (league.guesses) and the agents' spotted rate ---------
class GuessForm(SiteForm):
    """Which seats of a finished blind game were agents' (none ticked: no agent)."""

    seats = forms.TypedMultipleChoiceField(
        label=gettext_lazy("The seats I think were agents"),
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args: Any, game: Game, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["seats"]
        assert isinstance(field, forms.TypedMultipleChoiceField)
        field.choices = [
            (slot.seat, f"{slot.seat}. {slot.display_name}")
            for slot in game.slots.select_related("user", "game").order_by("seat")
        ]


def review_guess_panel(request: HttpRequest, *, game: Game, **_: Any) -> str:
    """The review's, for a blind game: the truth, the guesses, and a player's form."""
    if not game.blind:
        return ""
    try:
        found = blind.guesses_of(game.pk, request.user)
    except GameRuleError:  # not over (the review opens only then anyway)
        return ""
    return render_to_string(
        "league/guess_panel.html",
        {
            "game": game,
            "found": found,
            "form": GuessForm(game=game) if found["may_guess"] else None,
        },
        request=request,
    )


@require_POST
@login_required
def guess_submit(request: HttpRequest, game_id: int) -> HttpResponse:
    """A player's guess from the review's panel; back to the review, told how it went."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise Http404(_("There is no such game."))
    back = reverse("games:review", args=[game.pk]) + "#agent-guesses"
    form = GuessForm(request.POST, game=game)
    if not form.is_valid():
        messages.error(request, form_message(form))
        return redirect(back)
    try:
        guess = guesses.submit_guess(request.user, game.pk, form.cleaned_data["seats"])
    except NotFound as exc:
        raise Http404(exc.message) from None
    except GameRuleError as exc:
        messages.error(request, exc.message)
        return redirect(back)
    result = blind.guess_result(guess)
    messages.success(
        request,
        _("Your guess is in: %(right)s of the seats you named were agents'.")
        % {"right": result["right"]},
    )
    return redirect(back)


def agent_spotted_panel(request: HttpRequest, *, agent: Agent, **_: Any) -> str:
    """The agent's page's: how often players of its finished blind games spotted it."""
    spotted = blind.spotted(agent)
    return render_to_string(
        "league/spotted_panel.html",
        {"spotted": spotted, "words": spotted.spoken},
        request=request,
    )


# -- the JSON API ------------------------------------------------------------------------------
class QueuesView(GameAPIView):
    permission_classes = [AllowAny]

    @docs.read(LeagueQueueSerializer(many=True))
    def get(self, request: Request) -> Response:
        """Every standing league queue: its setup, seats needed and waiting, whether you
        wait in it, its problem, and your latest game from it."""
        return Response(reads.queues(request.user))


class QueueJoinView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(LeagueQueueSerializer)
    def post(self, request: Request, setup: str) -> Response:
        """Wait in this setup's queue; a full table starts at once (you are told on the
        inbox, the bell's socket and by ``latest_game`` here). Refused 403
        ``league_cooldown`` for a while after a modkill for inactivity (the error says
        until when; so does ``reliability.league_cooldown_until`` of your player read)."""
        services.join_queue(request.user, setup)
        return Response(reads.queue_of(request.user, setup))


class QueueLeaveView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(LeagueQueueSerializer)
    def post(self, request: Request, setup: str) -> Response:
        """Stop waiting in this setup's queue."""
        services.leave_queue(request.user, setup)
        return Response(reads.queue_of(request.user, setup))


class SeriesListView(GameAPIView):
    permission_classes = [AllowAny]

    @docs.read(SeriesSummarySerializer(many=True))
    def get(self, request: Request) -> Response:
        """The newest duplicate series (at most 100): setup, entrants in rotation order and
        games over."""
        return Response(reads.series_list())


class SeriesView(GameAPIView):
    permission_classes = [AllowAny]

    @docs.read(SeriesDetailSerializer)
    def get(self, request: Request, series_id: int) -> Response:
        """One duplicate series: its games so far (who sits in each seat; roles and results
        once each game is over), each entrant's score over the games over (wins, by side,
        rating change), and the seed once the series is over (404 ``no_series``)."""
        return Response(reads.series_detail(series_id))


AgentGuessesSerializer = serializer_for(AgentGuesses)
AgentGuessResultSerializer = serializer_for(AgentGuessResult)


class GuessBodySerializer(InputSerializer):
    seats = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_SEATS_GIVEN),
        max_length=MAX_SEATS_GIVEN,
        help_text=gettext_lazy("The seat numbers you think were agents' (an empty list: none)."),
    )


class AgentGuessesView(GameAPIView):
    """A finished blind game's guesses: who guessed which seats, and the truth."""

    def get_permissions(self) -> list[Any]:
        # Anyone may read the guesses of a finished game; only a signed-in player guesses.
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    @docs.read(AgentGuessesSerializer, errors=(409, 422))
    def get(self, request: Request, game_id: int) -> Response:
        """After a blind game ends: the seats that were agents' and each player's guess
        (409 ``not_over`` before the end; 422 ``not_blind`` for a game that is not blind)."""
        return Response(blind.guesses_of(game_id, request.user))

    @docs.write(AgentGuessResultSerializer, request=GuessBodySerializer, status=201)
    def post(self, request: Request, game_id: int) -> Response:
        """Guess, once, which seats of a finished blind game were agents' (a person who
        held a seat; 403 ``agent_account`` for an agent, ``not_player`` for anyone else;
        409 ``not_over``, ``already_guessed``; 422 ``not_blind``, ``guess_seats``)."""
        body = GuessBodySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        guess = guesses.submit_guess(request.user, game_id, body.validated_data["seats"])
        return Response(blind.guess_result(guess), status=201)
