"""Setup pages and the balance simulator: a setup's role list, a form to play N bot games
through the resolver (a Celery task), and the run's progress and win rates per faction
with 95% intervals as a server-rendered SVG chart."""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.hooks import panels

from .. import display
from ..forms import MAX_SIMULATED_GAMES, SimulateForm, form_message
from ..models import Openness, Ruleset, SavedSetup, SimulationRun, StartsWith, VoteRule
from ..setups import SETUPS
from ..simulator import rates
from .common import SignedInRequest

CHART_WIDTH, BAR_HEIGHT, LABEL_WIDTH = 640, 28, 130
TEXT_WIDTH = 140  # room right of the widest interval for "85% (80%-89%)"


def _setup(slug: str, saved_id: int | None, user: Any) -> tuple[str, dict[str, Any], Any]:
    """(name, create_game kwargs, the SavedSetup or None) of a ready-made or own setup."""
    if saved_id is not None:
        saved = SavedSetup.objects.filter(pk=saved_id, owner_id=getattr(user, "pk", None)).first()
        if saved is None:
            raise Http404(_("No such setup."))
        from ..services import saved_setup_kwargs

        return saved.name, saved_setup_kwargs(saved), saved
    if slug not in SETUPS:
        raise Http404(_("No such setup."))
    return SETUPS[slug].name, SETUPS[slug].game_kwargs(), None


def setup_page(request: HttpRequest, slug: str = "", saved_id: int | None = None) -> HttpResponse:
    name, kwargs, saved = _setup(slug, saved_id, request.user)
    runs = SimulationRun.objects.filter(setup=slug, saved_setup=saved)[:10]
    return render(
        request,
        "games/setup.html",
        {
            "name": name,
            "slug": slug,
            "saved": saved,
            "setup": SETUPS.get(slug),
            "kwargs": kwargs,
            "lines": [display.entry_line(kwargs["ruleset"], e) for e in kwargs["role_list"]],
            "ruleset_title": Ruleset(kwargs["ruleset"]).label,
            "vote_rule": VoteRule(kwargs.get("vote_rule") or VoteRule.PLURALITY).label,
            "starts_with": StartsWith(kwargs.get("starts_with") or StartsWith.DAY).label.lower(),
            "openness": Openness(kwargs.get("openness") or Openness.CLOSED).label,
            "runs": runs,
            "max_games": MAX_SIMULATED_GAMES,
            "panels": panels("setup", request, slug=slug, ruleset=kwargs["ruleset"]),
        },
    )


@login_required
@require_POST
def simulate(request: SignedInRequest, slug: str = "", saved_id: int | None = None) -> HttpResponse:
    _name, _kwargs, saved = _setup(slug, saved_id, request.user)
    form = SimulateForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_message(form))
        return HttpResponseRedirect(request.path.rsplit("simulate/", 1)[0])
    run = SimulationRun.objects.create(
        setup=slug if saved is None else "",
        saved_setup=saved,
        games=form.cleaned_data["games"],
        requested_by=request.user,
    )
    from ..tasks import simulate_setup

    if settings.EMBEDDED_SERVICES:  # no worker in the one-process setup: a thread instead
        threading.Thread(target=simulate_setup, args=(run.pk,), daemon=True).start()
    else:
        simulate_setup.delay(run.pk)
    return HttpResponseRedirect(reverse("games:simulation", args=[run.pk]))


def simulation(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(SimulationRun.objects.select_related("saved_setup"), pk=run_id)
    if run.saved_setup is not None and run.saved_setup.owner_id != getattr(
        request.user, "pk", None
    ):
        raise Http404(_("No such simulation."))
    name, kwargs, _saved = _setup(run.setup, run.saved_setup_id, request.user)
    back = (
        reverse("games:saved_setup", args=[run.saved_setup_id])
        if run.saved_setup_id
        else reverse("games:setup", args=[run.setup])
    )
    return render(
        request,
        "games/simulation.html",
        {
            "run": run,
            "name": name,
            "chart": chart(run, kwargs["ruleset"]),
            "setup_url": back,
            "running": run.status in ("queued", "running"),
        },
    )


def chart(run: SimulationRun, ruleset: str) -> dict[str, Any]:
    """Bars of each faction's win rate with its 95% interval, as SVG coordinates; each
    bar's figures stand right of its interval's whisker, never on it."""
    span = CHART_WIDTH - LABEL_WIDTH - TEXT_WIDTH
    bars = []
    for i, rate in enumerate(rates(run.wins or {}, run.done)):
        y = 10 + i * (BAR_HEIGHT + 12)
        bars.append(
            {
                "label": display.alignment_title(ruleset, rate.faction),
                "y": y,
                "text_y": y + BAR_HEIGHT * 0.7,
                "mid": y + BAR_HEIGHT / 2,
                "width": round(rate.rate * span, 1),
                "low_x": round(LABEL_WIDTH + rate.low * span, 1),
                "high_x": round(LABEL_WIDTH + rate.high * span, 1),
                "end_x": round(LABEL_WIDTH + max(rate.rate, rate.high) * span + 8, 1),
                "percent": f"{rate.rate:.0%}",
                "interval": f"{rate.low:.0%}–{rate.high:.0%}",
                "wins": rate.wins,
            }
        )
    height = 20 + len(bars) * (BAR_HEIGHT + 12)
    return {
        "bars": bars,
        "width": CHART_WIDTH,
        "height": height,
        "label_width": LABEL_WIDTH,
        "axis_end": LABEL_WIDTH + span,
    }
