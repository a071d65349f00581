"""The role PM: a player's own role, partners, night-action form and private results."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from resolver.model import GameState
from resolver.rulesets import get_ruleset

from .. import services
from ..errors import GameRuleError
from ..forms import DayActionForm, NightActionForm, WithdrawForm, form_message
from ..models import Game, NightAction, Phase, PrivateResult, Slot
from ..reads.access import Viewer, get_game
from .common import run_service


def open_night(game: Game) -> Phase | None:
    """The current night if actions can be sent now (running, not resolved, not paused)."""
    if not game.is_running:
        return None
    phase = game.current_phase()
    if phase is None or not phase.is_night or phase.resolved or phase.is_paused:
        return None
    return phase


def team_kill_actions(game: Game, slot: Slot, phase: Phase | None) -> list[NightAction]:
    """Tonight's faction-kill orders of the living mafia, which every living mafioso sees."""
    rules = get_ruleset(game.ruleset)
    if phase is None or rules.factional_kill is None or not (slot.alive and slot.is_mafia):
        return []
    return list(
        NightAction.objects.filter(
            phase=phase, ability=rules.factional_kill.slug, actor__alignment="mafia"
        )
        .select_related("actor__user")
        .order_by("updated_at", "id")
    )


def role_context(game: Game, slot: Slot) -> dict[str, Any]:
    """Everything a player's role PM shows (shared by the page and the API)."""
    rules = get_ruleset(game.ruleset)
    slots = list(game.slots.select_related("user").order_by("seat"))
    names = {s.pk: s.display_name for s in slots}
    state = GameState.from_dict(game.resolver_state) if game.resolver_state else None
    pm = services.role_pm(slot, slots, state)
    spec = rules.roles.get(slot.role)
    phase = open_night(game)
    options = services.night_options(game, slot) if phase is not None else []
    current = {}
    if phase is not None:
        current = {a.ability: a for a in NightAction.objects.filter(phase=phase, actor=slot)}
    past = list(
        NightAction.objects.filter(actor=slot, phase__resolved=True)
        .select_related("phase")
        .order_by("phase__number", "id")
    )
    results = list(
        PrivateResult.objects.filter(slot=slot).select_related("phase").order_by("phase__number")
    )
    return {
        "rules": rules,
        "slots": slots,
        "names": names,
        "pm": pm,
        "description": spec.description if spec else "",
        "card": pm["card"],
        "day_options": services.day_action_options(game, slot, state),
        "phase": phase,
        "options": options,
        "current": current,
        "team_kills": [
            {"actor": names.get(a.actor_id, "?"), "targets": [names.get(t, "?") for t in a.targets]}
            for a in team_kill_actions(game, slot, phase)
        ],
        "past_actions": [
            {
                "phase": a.phase,
                "ability": a.ability,
                "targets": [names.get(t, "?") for t in a.targets],
            }
            for a in past
        ],
        "results": results,
    }


def _forms(context: dict[str, Any], data: Any = None, submitted: str = "") -> list[NightActionForm]:
    roles = list(context["rules"].roles)
    forms = []
    for option in context["options"]:
        bound = data if data is not None and option["ability"] == submitted else None
        forms.append(
            NightActionForm(
                bound,
                option=option,
                names=context["names"],
                current=context["current"].get(option["ability"]),
                role_choices=roles,
            )
        )
    return forms


def _player_slot(game: Game, user: Any) -> Slot:
    viewer = Viewer.of(game, user)
    if not viewer.has_role:
        raise Http404("You have no role in this game.")
    return viewer.slot


@login_required
def role_pm(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_game(game_id)
    viewer = Viewer.of(game, request.user)
    if viewer.is_host and not viewer.is_player:
        return HttpResponseRedirect(reverse("games:host", args=[game_id]))
    slot = _player_slot(game, request.user)
    context = role_context(game, slot)
    submitted = request.POST.get("form_ability", "") if request.method == "POST" else ""
    forms = _forms(context, request.POST if submitted else None, submitted)
    if submitted:
        form = next((f for f in forms if f.ability == submitted), None)
        if form is None:
            messages.error(request, "You have no such ability tonight.")
            return HttpResponseRedirect(request.path)
        if form.is_valid():
            try:
                services.submit_night_action(
                    request.user,
                    game_id,
                    ability=form.ability,
                    targets=form.targets(),
                    extra=form.extra(),
                )
            except GameRuleError as exc:
                form.add_error(None, exc.message)
            else:
                messages.success(request, f"Your {form.ability} action is in.")
                return HttpResponseRedirect(request.path)
    context.update(
        {
            "game": game,
            "viewer": viewer,
            "slot": slot,
            "threads": viewer.readable_threads(),
            "forms": forms,
            "is_mafia": slot.is_mafia,
        }
    )
    return render(request, "games/role.html", context)


@login_required
@require_POST
def withdraw(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_game(game_id)
    _player_slot(game, request.user)
    url = reverse("games:role", args=[game_id])
    form = WithdrawForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_message(form))
        return HttpResponseRedirect(url)
    return run_service(
        request,
        lambda: services.withdraw_night_action(
            request.user, game_id, ability=form.cleaned_data["ability"]
        ),
        success="Action withdrawn.",
        on_error=url,
    )


@login_required
@require_POST
def day_action(request: HttpRequest, game_id: int) -> HttpResponse:
    """The role PM's day-action form: a shot or an investigation, resolved at once."""
    game = get_game(game_id)
    _player_slot(game, request.user)
    url = reverse("games:role", args=[game_id])
    form = DayActionForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_message(form))
        return HttpResponseRedirect(url)
    target, ability = form.cleaned_data["target"], form.cleaned_data["ability"] or None
    return run_service(
        request,
        lambda: services.use_day_action(request.user, game_id, target=target, ability=ability),
        success="Done: see the thread and your results.",
        on_error=url,
    )
