"""The lobby (every game, public) and the host's create-a-game page."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from .. import display, services
from ..errors import GameRuleError
from ..forms import GameForm, apply_service_error, flag_field_name, form_initial, role_formset
from ..gateway import rules_named as get_ruleset
from ..models import Game, GameStatus, Ruleset, SavedSetup
from ..setups import SETUPS
from .common import SignedInRequest

LOBBY_LIMIT = 50


def lobby(request: HttpRequest) -> HttpResponse:
    games = Game.objects.select_related("host").annotate(players=Count("slots"))
    sections = [
        # (the slug names the section's id in any language)
        (
            "sign-ups",
            pgettext("lobby section", "Sign-ups"),
            games.filter(status=GameStatus.SIGNUPS),
        ),
        ("running", pgettext("lobby section", "Running"), games.filter(status=GameStatus.RUNNING)),
        (
            "finished",
            pgettext("lobby section", "Finished"),
            games.filter(status=GameStatus.FINISHED).order_by("-finished_at"),
        ),
    ]
    return render(
        request,
        "games/lobby.html",
        {"sections": [(slug, title, list(qs[:LOBBY_LIMIT])) for slug, title, qs in sections]},
    )


def _initial(
    setup_slug: str, ruleset: str, saved: SavedSetup | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Form and formset initial data: from a ready-made setup, a host's saved one, or the
    rule set's defaults."""
    setup = SETUPS.get(setup_slug)
    if saved is not None:
        kwargs, name, slug = services.saved_setup_kwargs(saved), saved.name, ""
    elif setup is not None:
        kwargs, name, slug = setup.game_kwargs(), setup.name, setup.slug
    else:
        return {"ruleset": ruleset, "title": ""}, []
    rules = get_ruleset(kwargs["ruleset"])
    initial = {
        "title": name,
        "ruleset": kwargs["ruleset"],
        "setup": slug,
        "method": kwargs.get("method") or rules.methods[0],
        **form_initial(rules, kwargs),
    }
    for name, value in (kwargs.get("flags") or {}).items():
        initial[flag_field_name(name)] = value if isinstance(value, bool) else str(value)
    roles = [
        {k: v for k, v in entry.items() if k in {"role", "count", "modifiers", "sanity"}}
        for entry in kwargs["role_list"]
    ]
    return initial, roles


@login_required
def create_game(request: SignedInRequest) -> HttpResponse:
    setup_slug = request.GET.get("setup", "")
    ruleset = request.POST.get("ruleset") or request.GET.get("ruleset", "")
    saved = None
    if request.GET.get("saved", "").isdigit():
        saved = SavedSetup.objects.filter(owner=request.user, pk=int(request.GET["saved"])).first()
    if saved is not None and not ruleset:
        ruleset = saved.ruleset
    if setup_slug in SETUPS and not ruleset:
        ruleset = SETUPS[setup_slug].ruleset
    if ruleset not in Ruleset.values:
        # Step 1: pick a ready-made setup or a rule set to start from.
        return render(
            request,
            "games/create_start.html",
            {
                "setups": list(SETUPS.values()),
                "rulesets": Ruleset.choices,
                "saved": list(SavedSetup.objects.filter(owner=request.user)[:50]),
            },
        )
    initial, roles = _initial(setup_slug, ruleset, saved)
    RoleFormSet = role_formset(ruleset)
    if request.method == "POST":
        form = GameForm(request.POST, ruleset=ruleset)
        formset = RoleFormSet(request.POST, prefix="roles")
        if form.is_valid() and formset.is_valid():
            kwargs = form.service_kwargs(formset.role_list())
            try:
                with transaction.atomic():  # the game and its saved setup, or neither
                    game = services.create_game(request.user, **kwargs)
                    form.apply_side_fields(request.user, game.pk)
                    if form.cleaned_data.get("save_as"):
                        services.save_setup(request.user, form.cleaned_data["save_as"], kwargs)
            except GameRuleError as exc:
                apply_service_error(exc, form, formset)
            else:
                messages.success(request, _("The game is open for sign-ups."))
                return redirect("games:thread", game.pk)
    else:
        initial.setdefault("ruleset", ruleset)
        form = GameForm(initial=initial, ruleset=ruleset)
        formset = RoleFormSet(initial=roles, prefix="roles")
    rules = get_ruleset(ruleset)
    return render(
        request,
        "games/create.html",
        {
            "form": form,
            "formset": formset,
            "rules": rules,
            "ruleset": ruleset,
            "ruleset_label": Ruleset(ruleset).label,
            "setup": SETUPS.get(setup_slug),
            "saved": saved,
            "reference": display.ruleset_reference(ruleset),
        },
    )
