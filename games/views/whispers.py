"""The whispers page (the ``whispers`` variant): a player's whispers grouped by the other
player, with a form to whisper to any living player; the host's and, after the game,
everyone's: every whisper, grouped by the pair of players."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .. import ratelimit
from ..errors import GameRuleError
from ..forms import WhisperForm, form_message
from ..reads.access import Viewer, get_game
from ..reads.policy import whisper_refusal
from ..reads.whispers import conversations, has_whispers
from ..services.whispers import MAX_WHISPER_LENGTH, send_whisper


def whispers_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_game(game_id)
    slots = list(game.slots.select_related("user").order_by("seat"))
    viewer = Viewer.of(game, request.user, slots)
    if not has_whispers(viewer):
        # 404 for everyone else alike: a spectator learns nothing of the game's whispers.
        raise Http404(_("No whispers to read."))
    # The form is shown exactly when the service would take a whisper (one policy).
    refusal = whisper_refusal(viewer, game.current_phase())
    block = refusal.message if refusal is not None else ""
    me = viewer.slot
    recipients = [] if block or me is None else [s for s in slots if s.alive and s.pk != me.pk]
    return render(
        request,
        "games/whispers.html",
        {
            "game": game,
            "viewer": viewer,
            "threads": viewer.readable_threads(),
            "conversations": conversations(viewer, slots),
            "by_pair": viewer.sees_everything,
            "cannot_whisper": block,
            "recipients": recipients,
            "form": WhisperForm(),
            "max_length": MAX_WHISPER_LENGTH,
        },
    )


@login_required
@require_POST
@ratelimit.limited("post")  # a whisper is talk: it counts against the posts' limit
def whisper(request: HttpRequest, game_id: int) -> HttpResponse:
    get_game(game_id)
    url = reverse("games:whispers", args=[game_id])
    form = WhisperForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_message(form))
        return HttpResponseRedirect(url + "#whisper-form")
    try:
        sent = send_whisper(
            request.user, game_id, to=form.cleaned_data["to"], body=form.cleaned_data["body"]
        )
    except GameRuleError as exc:
        messages.error(request, exc.message)
        return HttpResponseRedirect(url + "#whisper-form")
    messages.success(
        request, _("You whispered to %(name)s.") % {"name": sent.recipient.display_name}
    )
    return HttpResponseRedirect(url)
