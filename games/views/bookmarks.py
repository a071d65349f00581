"""Bookmarks' pages: "My bookmarks" (``/bookmarks/``: each bookmark with its note, to edit
or remove) and a post's *Bookmark* page (its note field), reached from the *Bookmark* link
under every post.

That link is the same for everyone (a post is pushed once, the same to every reader: a
per-person "bookmarked" mark would break live equals reload), so whether a post is
bookmarked shows on its *Bookmark* page and on "My bookmarks" only. Thin: each form calls
one service (``games.services.bookmarks``); the list is ``games.reads.bookmarks``.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from ..errors import GameRuleError, NotFound
from ..forms import SiteForm, apply_service_error, form_message
from ..fragments import post_url
from ..models import Bookmark, Thread
from ..reads.access import THREAD_LABELS
from ..reads.bookmarks import excerpt, my_bookmarks
from ..services import bookmarks as services
from .common import SignedInRequest


class NoteForm(SiteForm):
    note = forms.CharField(
        label=gettext_lazy("Note"),
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        max_length=services.MAX_NOTE_LENGTH,
        help_text=gettext_lazy("Private: only you ever see it."),
    )


@login_required
def bookmarks_page(request: SignedInRequest) -> HttpResponse:
    # Each note's form has ids of its own: a page of them must not repeat an id.
    items = [
        {
            "b": b,
            "link": post_url(b.game_id, b.number, b.thread),
            "form": NoteForm(initial={"note": b.note}, auto_id=f"id_b{b.id}_%s"),
        }
        for b in my_bookmarks(request.user)
    ]
    return render(request, "games/bookmarks.html", {"items": items})


@login_required
def bookmark_post(
    request: SignedInRequest, game_id: int, number: int, thread: str = Thread.PUBLIC
) -> HttpResponse:
    """A post's *Bookmark* page: its excerpt and the note; saving bookmarks it (or changes
    the note of the bookmark already there). A post the person may not read is a 404."""
    try:
        post = services.readable_post(request.user, game_id, thread, number)
    except NotFound as exc:
        raise Http404(exc.message) from None
    existing = Bookmark.objects.filter(user_id=request.user.pk, post=post).first()
    form = NoteForm(
        request.POST if request.method == "POST" else None,
        initial={"note": existing.note if existing else ""},
    )
    if request.method == "POST" and form.is_valid():
        try:
            _bookmark, created = services.bookmark_post(
                request.user, game_id, number, thread=thread, note=form.cleaned_data["note"]
            )
        except NotFound as exc:
            raise Http404(exc.message) from None
        except GameRuleError as exc:
            apply_service_error(exc, form)
        else:
            where = {"number": number, "game": post.game.title}
            if created:
                said = _("Bookmarked: post #%(number)s in %(game)s.") % where
            else:
                said = _("Bookmark saved: post #%(number)s in %(game)s.") % where
            messages.success(request, said)
            return redirect("games:bookmarks")
    return render(
        request,
        "games/bookmark_post.html",
        {
            "post": post,
            "thread_label": THREAD_LABELS.get(thread, thread),
            "excerpt": excerpt(post.html),
            "link": post_url(game_id, number, thread),
            "existing": existing,
            "form": form,
        },
    )


@require_POST
@login_required
def bookmark_note(request: SignedInRequest, bookmark_id: int) -> HttpResponse:
    form = NoteForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_message(form))
        return redirect("games:bookmarks")
    try:
        services.edit_bookmark(request.user, bookmark_id, note=form.cleaned_data["note"])
    except NotFound as exc:
        raise Http404(exc.message) from None
    except GameRuleError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The note is saved."))
    return redirect(reverse("games:bookmarks") + f"#bookmark-{bookmark_id}")


@require_POST
@login_required
def bookmark_remove(request: SignedInRequest, bookmark_id: int) -> HttpResponse:
    try:
        services.remove_bookmark(request.user, bookmark_id)
    except NotFound as exc:
        raise Http404(exc.message) from None
    messages.success(request, _("The bookmark is removed."))
    return redirect("games:bookmarks")
