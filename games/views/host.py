"""The host's dashboard (everything, host only) and the host's actions."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import deadlines, hooks, ratelimit, services
from ..errors import GameRuleError
from ..forms import (
    CancelForm,
    CoHostForm,
    ExtendForm,
    HandOverForm,
    HostPostForm,
    ModkillForm,
    ReplaceForm,
    SlotChoiceForm,
    form_message,
)
from ..inactivity import slots_needing_replacement
from ..models import Game, Phase
from ..reads.access import Viewer, cohosts, get_game
from ..reads.phase_history import phase_records
from ..reads.policy import host_controls
from ..reads.seats import replacement_queue
from ..reads.vote_count import vote_count
from ..reads.wills import wills_for_host


def _require_host(game: Game, user: Any) -> Viewer:
    viewer = Viewer.of(game, user)
    if not viewer.is_host:
        raise Http404(_("Only the host sees the host's page."))
    return viewer


@login_required
def dashboard(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_game(game_id)
    viewer = _require_host(game, request.user)
    slots = list(
        game.slots.select_related("user", "executioner_target__user")
        .prefetch_related("replacements__old_user", "replacements__new_user")
        .order_by("seat")
    )
    phase: Phase | None = game.current_phase() if game.is_running else None
    living = [s for s in slots if s.alive]
    context = {
        "game": game,
        "viewer": viewer,
        "threads": viewer.readable_threads(),
        "slots": slots,
        "phase": phase,
        "records": list(reversed(phase_records(game, slots, include_open=True))),
        "extend_form": ExtendForm(phase=phase),
        "modkill_form": ModkillForm(slots=living),
        "replace_form": ReplaceForm(slots=slots),
        "next_form": SlotChoiceForm(slots=slots, auto_id="next_%s"),
        "queue": replacement_queue(game, sees_all=True),
        "post_form": HostPostForm(threads=viewer.readable_threads()),
        "needs_replacement": slots_needing_replacement(game),
        "vote_count": vote_count(phase) if phase is not None and phase.is_day else None,
        "deadline_health": deadlines.health(),
        "phase_overdue": _overdue_seconds(phase),
        # The side domains' sections (e.g. the chat webhook).
        "panels": hooks.panels("host", request, game=game),
        # Co-hosts and backup hosts; only the game's own host changes them or hands it over.
        "cohosts": cohosts(game),
        "is_the_host": viewer.is_the_host,
        # The controls shown are those the services accept now (one policy).
        "controls": host_controls(game, request.user, phase),
        "cohost_form": CoHostForm(auto_id="cohost_%s"),
        "hand_over_form": HandOverForm(auto_id="handover_%s"),
        "wills": wills_for_host(game),  # the host reads every will (last wills only)
    }
    return render(request, "games/host.html", context)


def _overdue_seconds(phase: Phase | None) -> int | None:
    """How long this game's open phase has been past its deadline (None: it is not)."""
    if phase is None or phase.resolved or phase.deadline is None:
        return None
    late = (timezone.now() - phase.deadline).total_seconds()
    return int(late) if late > 0 else None


def _host_op(request: HttpRequest, game: Game, op: str) -> str:
    """Run one host action; return the success message. Raises GameRuleError."""
    user, gid = request.user, game.pk
    slots = list(game.slots.select_related("user"))
    form: forms.Form  # each action's own form
    if op == "extend":
        extend = ExtendForm(request.POST)
        if not extend.is_valid():
            return _form_error(extend)
        services.extend_deadline(user, gid, by=extend.length())
        return _("The deadline was extended.")
    if op == "cut":
        services.cut_deadline_now(user, gid)
        return _("The phase was ended now.")
    if op == "skip-turn":
        services.skip_speaker(user, gid)
        return _("The turn was skipped: the rules' default applies.")
    if op == "pause":
        services.pause_game(user, gid)
        return _("The game is paused.")
    if op == "resume":
        services.resume_game(user, gid)
        return _("The game has resumed.")
    if op == "modkill":
        form = ModkillForm(request.POST, slots=[s for s in slots if s.alive])
        if not form.is_valid():
            return _form_error(form)
        slot = services.modkill(
            user, gid, form.cleaned_data["slot"], reason=form.cleaned_data["reason"]
        )
        return _("%(name)s was modkilled.") % {"name": slot.display_name}
    if op == "replace":
        form = ReplaceForm(request.POST, slots=slots)
        if not form.is_valid():
            return _form_error(form)
        slot = services.replace_player(
            user, gid, form.cleaned_data["slot"], form.cleaned_data["username"]
        )
        return _("%(name)s now plays seat %(seat)s.") % {
            "name": slot.display_name,
            "seat": slot.seat,
        }
    if op == "cancel":
        form = CancelForm(request.POST)
        if not form.is_valid():
            return _form_error(form)
        services.cancel_game(user, gid, reason=form.cleaned_data["reason"])
        return _("The game is cancelled; the thread says so to everyone who signed up.")
    if op == "count":
        count = services.post_vote_count(user, gid)
        return _("%(label)s is posted.") % {"label": count.label}
    if op == "replace_next":
        form = SlotChoiceForm(request.POST, slots=slots)
        if not form.is_valid():
            return _form_error(form)
        slot = services.replace_with_next(user, gid, form.cleaned_data["slot"])
        return _("%(name)s now plays seat %(seat)s (next in the queue).") % {
            "name": slot.display_name,
            "seat": slot.seat,
        }
    if op == "post":
        form = HostPostForm(request.POST, threads=Viewer.of(game, request.user).readable_threads())
        if not form.is_valid():
            return _form_error(form)
        ratelimit.enforce("post", request)
        services.host_post(
            user, gid, body=form.cleaned_data["body"], thread=form.cleaned_data["thread"]
        )
        return _("Posted.")
    if op == "cohost-add":
        form = CoHostForm(request.POST)
        if not form.is_valid():
            return _form_error(form)
        added = services.add_cohost(
            user, gid, form.cleaned_data["username"], form.cleaned_data["kind"]
        )
        return _("%(name)s is now a %(kind)s.") % {
            "name": added.user.get_username(),
            "kind": added.get_kind_display().lower(),
        }
    if op == "cohost-remove":
        try:
            removed = int(request.POST.get("user_id", ""))
        except ValueError:
            raise _FormError(_("Choose the co-host to remove.")) from None
        services.remove_cohost(user, gid, removed)
        if removed == getattr(user, "pk", None):
            return _("You stepped down: you no longer host this game.")
        return _("The co-host was removed.")
    if op == "hand-over":
        form = HandOverForm(request.POST)
        if not form.is_valid():
            return _form_error(form)
        handed = services.hand_over(user, gid, form.cleaned_data["username"])
        return _("%(name)s hosts the game now; you stay on as a co-host.") % {
            "name": handed.host.get_username()
        }
    if side := hooks.host_action(op):  # a side domain's (e.g. the chat webhook's)
        return side(request, gid)
    raise Http404(_("No such host action."))


class _FormError(Exception):
    pass


def _form_error(form: Any) -> str:
    # The fields' labels, never their names ("Replacement (username): ...").
    raise _FormError(form_message(form))


@login_required
@require_POST
def host_action(request: HttpRequest, game_id: int, op: str) -> HttpResponse:
    game = get_game(game_id)
    _require_host(game, request.user)
    try:
        message = _host_op(request, game, op)
    except (GameRuleError, _FormError, ratelimit.RateLimited) as exc:
        messages.error(request, getattr(exc, "message", str(exc)))
    else:
        messages.success(request, message)
        if op == "cohost-remove" and not Viewer.of(get_game(game_id), request.user).is_host:
            # Stepped down: the dashboard is no longer theirs.
            return HttpResponseRedirect(reverse("games:thread", args=[game_id]))
    return HttpResponseRedirect(reverse("games:host", args=[game_id]))
