"""The series' pages (``/league/series/``, ``/league/series/<id>/``), the staff's form that
makes one and their "start the next game" button, the league page's panel, and the JSON
API's ``GET /api/v1/series/`` and ``GET /api/v1/series/{id}/``. All draw ``league.reads``."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import docs
from games.api.typed import serializer_for
from games.api.views import GameAPIView
from games.errors import GameRuleError, NotFound
from games.forms import SiteForm
from games.league import FORMATS

from . import reads, series
from .series import MAX_ROTATIONS, may_make_series
from .shapes import SeriesDetail, SeriesSummary

SeriesSummarySerializer = serializer_for(SeriesSummary)
SeriesDetailSerializer = serializer_for(SeriesDetail)

PANEL_SERIES = 5  # the newest series the league page lists


class SeriesForm(SiteForm):
    """What staff give a new series; the service checks the rest (entrants, games)."""

    setup = forms.ChoiceField(label="Setup", choices=())
    entrants = forms.CharField(
        label="Entrants",
        widget=forms.Textarea(attrs={"rows": 6}),
        max_length=2000,
        help_text="One name a line, in rotation order: as many as the setup has seats.",
    )
    games = forms.IntegerField(
        label="Games",
        required=False,
        min_value=1,
        max_value=200,
        help_text=f"A multiple of the seats, at most {MAX_ROTATIONS} rotations; "
        "blank: one rotation.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["setup"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [
            (slug, f"{f.setup.name} ({f.setup.player_count} seats)")
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
        raise PermissionDenied("Only the site's staff may make a series.")
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
    messages.success(request, "The series is made and its first game has started.")
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
        raise PermissionDenied("Only the site's staff may start a series' games.")
    try:
        game = series.start_next(series_id)
    except NotFound as exc:
        raise Http404(exc.message) from None
    if game is not None:
        messages.success(request, "The next game has started.")
    else:
        messages.info(request, "No game was due to start (see the series' status).")
    return redirect("league:series", series_id)


def league_panel(request: HttpRequest, **_: Any) -> str:
    """The league page's: the newest series and a link to them all."""
    return render_to_string(
        "league/series_panel.html",
        {"series": reads.series_list(limit=PANEL_SERIES)},
        request=request,
    )


# -- the JSON API ------------------------------------------------------------------------------
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
