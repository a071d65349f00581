"""The role PM page: a player's own role, partners, night-action form and private results
(read by ``games.reads.role_pm``), and its forms' posts."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import services
from ..errors import GameRuleError
from ..forms import DayActionForm, NightActionForm, WillForm, WithdrawForm, form_message
from ..hooks import panels
from ..models import Game, Slot
from ..reads.access import Viewer, get_game
from ..reads.role_pm import RolePM
from ..reads.seats import replaced_out
from ..reads.wills import will_of
from .common import run_service


def role_context(game: Game, slot: Slot) -> dict[str, Any]:
    """The role PM page's context, from the ``RolePM`` read model (the API formats the same)."""
    read = RolePM.of(game, slot)
    names = {s.pk: s.display_name for s in read.slots}
    return {
        "rules": read.rules,
        "slots": read.slots,
        "names": names,
        "pm": read.pm,
        "description": read.description,
        "card": read.pm["card"],
        "day_options": read.day_options,
        "phase": read.night,
        "paused_night": read.paused_night,
        "options": read.night_options,
        "current": {a.ability: a for a in read.tonight},
        "team_kills": [
            {"actor": names.get(a.actor_id, "?"), "targets": [names.get(t, "?") for t in a.targets]}
            for a in read.team_kills
        ],
        "past_actions": [
            {
                "phase": a.phase,
                "ability": a.ability,
                "targets": [read.held(t, a) for t in a.targets],
            }
            for a in sorted(read.past, key=lambda a: (a.phase.number, a.pk))
        ],
        "results": read.results,
        "will": will_of(game, slot),  # None: the game has no last wills
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
    if not viewer.has_role or viewer.slot is None:  # (has_role: a slot; the test narrows)
        raise Http404(_("You have no role in this game."))
    return viewer.slot


@login_required
def role_pm(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_game(game_id)
    viewer = Viewer.of(game, request.user)
    if viewer.is_host and not viewer.is_player:
        return HttpResponseRedirect(reverse("games:host", args=[game_id]))
    if not viewer.has_role and request.method == "GET":
        replaced = replaced_out(game, request.user)
        if replaced is not None:
            # Still a 404 (the seat's role PM is its new holder's alone), saying why.
            context = {"game": game, "viewer": viewer, "replaced": replaced}
            context["threads"] = viewer.readable_threads()
            return render(request, "games/replaced.html", context, status=404)
    slot = _player_slot(game, request.user)
    context = role_context(game, slot)
    submitted = request.POST.get("form_ability", "") if request.method == "POST" else ""
    forms = _forms(context, request.POST if submitted else None, submitted)
    if submitted:
        form = next((f for f in forms if f.ability == submitted), None)
        if form is None:
            messages.error(request, _("You have no such ability tonight."))
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
                messages.success(
                    request, _("Your %(ability)s action is in.") % {"ability": form.ability}
                )
                return HttpResponseRedirect(request.path)
    context.update(
        {
            "game": game,
            "viewer": viewer,
            "slot": slot,
            "threads": viewer.readable_threads(),
            "forms": forms,
            "is_mafia": slot.is_mafia,
            # Side domains' links and panels for the seat's holder (analytics' probes).
            "panels": panels("role", request, game=game, slot=slot),
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
        success=_("Action withdrawn."),
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
        success=_("Done: see the thread and your results."),
        on_error=url,
    )


@login_required
@require_POST
def will(request: HttpRequest, game_id: int) -> HttpResponse:
    """The role PM's last-will form: keep (or change) the player's will."""
    game = get_game(game_id)
    _player_slot(game, request.user)
    url = reverse("games:role", args=[game_id])
    form = WillForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_message(form))
        return HttpResponseRedirect(url)
    text = form.cleaned_data["text"]
    return run_service(
        request,
        lambda: services.write_will(request.user, game_id, text),
        success=_(
            "Your will is saved: it is posted in the thread when you die "
            "(or, if you survive, when the game ends)."
        ),
        on_error=url,
    )
