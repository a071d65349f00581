"""The lobby (every game, public) and the host's create-a-game page."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from resolver.rulesets import get_ruleset

from .. import services
from ..errors import GameRuleError
from ..forms import GameForm, apply_service_error, flag_field_name, role_formset, split_length
from ..models import Game, GameStatus, Ruleset
from ..setups import SETUPS

LOBBY_LIMIT = 50


def lobby(request: HttpRequest) -> HttpResponse:
    games = Game.objects.select_related("host").annotate(players=Count("slots"))
    sections = [
        ("Sign-ups", games.filter(status=GameStatus.SIGNUPS)),
        ("Running", games.filter(status=GameStatus.RUNNING)),
        ("Finished", games.filter(status=GameStatus.FINISHED).order_by("-finished_at")),
    ]
    return render(
        request,
        "games/lobby.html",
        {"sections": [(title, list(qs[:LOBBY_LIMIT])) for title, qs in sections]},
    )


def _initial(setup_slug: str, ruleset: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Form and formset initial data: from a ready-made setup, or the rule set's defaults."""
    setup = SETUPS.get(setup_slug)
    if setup is None:
        return {"ruleset": ruleset, "title": ""}, []
    kwargs = setup.game_kwargs()
    day, day_unit = split_length(kwargs["day_length"])
    night, night_unit = split_length(kwargs["night_length"])
    initial = {
        "title": setup.name,
        "ruleset": setup.ruleset,
        "setup": setup.slug,
        "method": kwargs["method"] or get_ruleset(setup.ruleset).methods[0],
        "vote_rule": kwargs["vote_rule"],
        "starts_with": kwargs["starts_with"],
        "no_night_posting": kwargs["no_night_posting"],
        "self_vote_allowed": kwargs["self_vote_allowed"],
        "skip_vote_allowed": kwargs["skip_vote_allowed"],
        "day_length": day,
        "day_unit": day_unit,
        "night_length": night,
        "night_unit": night_unit,
    }
    for name, value in kwargs["flags"].items():
        initial[flag_field_name(name)] = value if isinstance(value, bool) else str(value)
    roles = [
        {k: v for k, v in entry.items() if k in {"role", "count", "modifiers", "sanity"}}
        for entry in kwargs["role_list"]
    ]
    return initial, roles


@login_required
def create_game(request: HttpRequest) -> HttpResponse:
    setup_slug = request.GET.get("setup", "")
    ruleset = request.POST.get("ruleset") or request.GET.get("ruleset", "")
    if setup_slug in SETUPS and not ruleset:
        ruleset = SETUPS[setup_slug].ruleset
    if ruleset not in Ruleset.values:
        # Step 1: pick a ready-made setup or a rule set to start from.
        return render(
            request,
            "games/create_start.html",
            {"setups": list(SETUPS.values()), "rulesets": Ruleset.choices},
        )
    initial, roles = _initial(setup_slug, ruleset)
    RoleFormSet = role_formset(ruleset)
    if request.method == "POST":
        form = GameForm(request.POST, ruleset=ruleset)
        formset = RoleFormSet(request.POST, prefix="roles")
        if form.is_valid() and formset.is_valid():
            try:
                game = services.create_game(
                    request.user, **form.service_kwargs(formset.role_list())
                )
            except GameRuleError as exc:
                apply_service_error(exc, form, formset)
            else:
                messages.success(request, "The game is open for sign-ups.")
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
            "roles": list(rules.roles.values()),
            "modifiers": dict(rules.modifiers),
        },
    )
