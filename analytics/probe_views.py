"""Belief probes (``analytics.probes``) on the site: ``GET``/``POST
/api/v1/games/{id}/probes/``, the form page ``/games/{id}/probes/``, the link on a player's
role PM page, the review's panel and the player's and agent's pages' panel."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import docs
from games.api.serializers import InputSerializer
from games.api.typed import serializer_for
from games.api.views import GameAPIView
from games.errors import ErrorCode, GameRuleError, InvalidInput
from games.forms import SiteForm
from games.models import Agent, Game, Slot
from games.reads.access import Viewer, get_game
from games.reads.people import user_called

from .models import Probe
from .probes import (
    NONE_GIVEN,
    Probes,
    day_tables,
    person_probes,
    probe_refusal,
    probes_data,
    readable,
    seat_rows,
    submit_probes,
)

# More than any game's seats: a longer list is refused before the game is read.
MAX_PROBES = 100


# -- the API -----------------------------------------------------------------------------------
class ProbabilityField(serializers.FloatField):
    """A JSON number from 0 to 1: not a bool (DRF's would read true as 1), nor NaN."""

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool):
            self.fail("invalid")
        value = super().to_internal_value(data)
        if not math.isfinite(value):
            self.fail("invalid")
        return value


class ProbeSerializer(serializers.Serializer):
    target = serializers.IntegerField(help_text="The slot id of another living player.")
    probability = ProbabilityField(
        min_value=0, max_value=1, help_text="From 0 to 1: how likely they are mafia."
    )


class ProbesSubmitSerializer(InputSerializer):
    """Today's probes: each a target and the probability that they are mafia."""

    probabilities = serializers.ListField(
        child=ProbeSerializer(),
        min_length=1,
        max_length=MAX_PROBES,
        help_text="Some or all of the other living players, each once.",
    )


ProbesSerializer = serializer_for(Probes)


class ProbesView(GameAPIView):
    @docs.read(ProbesSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        """The belief probes you may read: while the game runs, the ones you sent yourself
        (nobody reads another's, not the host nor your team); once it is over, everyone's,
        with each seat's Brier score."""
        return Response(probes_data(self.game(game_id), request.user))

    @docs.write(ProbesSerializer, request=ProbesSubmitSerializer, after_commit=True)
    def post(self, request: Request, game_id: int) -> Response:
        """Today's belief probes: for some or all of the other living players, the
        probability (0 to 1) that they are mafia. By day, while you are alive; sending again
        the same day replaces the day's probes. Nobody else reads them until the game is
        over (codes: ``probe`` for a probability that is not a number from 0 to 1 or a
        player given twice, ``probe_target`` for yourself or a dead player, ``no_player``
        for a slot id the game does not have)."""
        if not request.user.is_authenticated:
            self.permission_denied(request)
        serializer = ProbesSubmitSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        given = [
            (p["target"], p["probability"]) for p in serializer.validated_data["probabilities"]
        ]
        probabilities = dict(given)
        if len(probabilities) != len(given):
            raise InvalidInput(_("Give each player's probability once."), ErrorCode.PROBE)
        submit_probes(request.user, game_id, probabilities)
        return self.answer(game_id, lambda: probes_data(self.game(game_id), request.user))


# -- the form page -------------------------------------------------------------------------------
class ProbesForm(SiteForm):
    """A percentage (0 to 100, blank: none) for each other living player."""

    def __init__(self, *args: Any, targets: list[Slot], today: dict[int, float], **kw: Any):
        super().__init__(*args, **kw)
        for slot in targets:
            given = today.get(slot.pk)
            self.fields[f"p{slot.pk}"] = forms.DecimalField(
                label=slot.display_name,
                required=False,
                min_value=0,
                max_value=100,
                decimal_places=2,
                max_digits=5,
                initial=None if given is None else percent(given),
                widget=forms.NumberInput(attrs={"step": "0.01", "min": "0", "max": "100"}),
            )
        self.targets = targets

    def probabilities(self) -> dict[int, float]:
        """The percentages given, as probabilities by slot id."""
        return {
            slot.pk: float(value / 100)
            for slot in self.targets
            if (value := self.cleaned_data.get(f"p{slot.pk}")) is not None
        }

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.errors and not any(v is not None for v in cleaned.values()):
            raise forms.ValidationError(NONE_GIVEN)
        return cleaned


def percent(probability: float) -> str:
    """0.8137 -> "81.37" (as typed in the form: at most two decimals, no trailing zeros)."""
    text = f"{Decimal(str(probability)) * 100:.2f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def probes_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """Anyone may look (it says who may send); sending needs a signed-in player."""
    if request.method == "POST" and not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    game = get_game(game_id)
    slots = list(game.slots.select_related("user").order_by("seat"))
    for s in slots:
        s.game = game
    viewer = Viewer.of(game, request.user, slots)
    phase = game.current_phase()
    refusal = probe_refusal(game, viewer.slot, phase)
    me = viewer.slot
    targets = [] if refusal or me is None else [s for s in slots if s.alive and s.pk != me.pk]
    mine = [] if game.is_finished else readable(game, request.user)
    today = {p.target_id: p.probability for p in mine if phase and p.phase_id == phase.pk}
    form = ProbesForm(
        request.POST if request.method == "POST" and not refusal else None,
        targets=targets,
        today=today,
    )
    if request.method == "POST" and not refusal and form.is_valid():
        try:
            submit_probes(request.user, game_id, form.probabilities())
        except GameRuleError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, _("Your probes for today are in."))
            return HttpResponseRedirect(reverse("game_probes", args=[game_id]))
    for p in mine:
        p.target.game = game
    return render(
        request,
        "analytics/probes.html",
        {
            "game": game,
            "viewer": viewer,
            "threads": viewer.readable_threads(),
            "refusal": refusal,
            "form": form,
            "mine": [(p, percent(p.probability)) for p in mine],
        },
        status=400 if form.errors else 200,
    )


# -- the panels (``games.hooks``) ------------------------------------------------------------
def role_panel(request: HttpRequest, *, game: Game, slot: Slot, **_: Any) -> str:
    """The role PM page's link to the form, for the seat's holder. The same whatever the
    game's state, phase and theirs (the form page says when they may send): the role page
    is live, and a link that came and went with them would need pushing."""
    return render_to_string("analytics/probes_role_panel.html", {"game": game}, request=request)


def review_panel(request: HttpRequest, *, game: Game, **_: Any) -> str:
    """The review's: each seat's Brier score and probes, and every day's probes (nothing,
    and no read of the seats, for the many games nobody sent a probe in)."""
    if not Probe.objects.filter(game=game).exists():
        return ""
    rows = seat_rows(game)
    if not any(row.probes for row in rows):
        return ""
    tables = day_tables(game)
    return render_to_string(
        "analytics/probes_review_panel.html",
        {
            "rows": rows,
            "tables": [
                (t, [(s, [None if p is None else percent(p) for p in ps]) for s, ps in t.rows])
                for t in tables
            ],
        },
        request=request,
    )


def person_panel(request: HttpRequest, *, name: str, **_: Any) -> str:
    """The player's page's: their probes' Brier score over their finished games."""
    user = user_called(name)
    if user is None:
        return ""
    figures = person_probes(user.pk)
    if not figures.probes:
        return ""
    return render_to_string(
        "analytics/probes_person_panel.html", {"figures": figures}, request=request
    )


def agent_panel(request: HttpRequest, *, agent: Agent, **_: Any) -> str:
    return person_panel(request, name=agent.user.get_username())
