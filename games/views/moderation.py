"""The moderation pages: reporting a post or a player, the moderators' queue (reports in
context, appeals, declared alternate accounts), a person's record for moderators, the audit
log, the appeal page a sanctioned person reaches from their mail, and declaring an alt.

Thin: each form calls one service (``games.services.moderation``) and reads come from
``games.reads.moderation``. Pages for moderators answer 403 to everyone else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from ..errors import GameRuleError, NotFound
from ..forms import SiteForm, apply_service_error, form_message
from ..models import Appeal, ReportReason, SanctionKind, Thread
from ..reads import moderation as reads
from ..reads.access import Viewer, get_game
from ..reads.people import user_called
from ..services import moderation as services
from .common import back

ACTION_CHOICES = [
    (services.DISMISS, gettext_lazy("Dismiss the report")),
    *[(k.value, k.label) for k in SanctionKind],
]


class ReportForm(SiteForm):
    reason = forms.ChoiceField(choices=ReportReason.choices)
    text = forms.CharField(
        label=gettext_lazy("What happened"),
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        max_length=services.MAX_TEXT,
        help_text=gettext_lazy("Only the site's moderators read this (never the game's players)."),
    )


class ActionForm(SiteForm):
    action = forms.ChoiceField(choices=ACTION_CHOICES)
    reason = forms.ChoiceField(
        choices=[("", gettext_lazy("The report's reason")), *ReportReason.choices], required=False
    )
    days = forms.IntegerField(
        min_value=1,
        max_value=services.MAX_DAYS,
        required=False,
        help_text=gettext_lazy("For a mute or a suspension."),
    )
    note = forms.CharField(
        label=gettext_lazy("Note to the person"),
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        max_length=services.MAX_TEXT,
    )


class SanctionForm(ActionForm):
    """Acting on a person directly (their moderation page): no report, no dismissal."""

    action = forms.ChoiceField(choices=SanctionKind.choices)
    reason = forms.ChoiceField(choices=ReportReason.choices)


class AnswerForm(SiteForm):
    answer = forms.CharField(
        label=gettext_lazy("Answer to the person"),
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        max_length=services.MAX_TEXT,
    )


class AppealForm(SiteForm):
    text = forms.CharField(
        label=gettext_lazy("Why the sanction should go"),
        widget=forms.Textarea(attrs={"rows": 5}),
        max_length=services.MAX_APPEAL,
    )


class AltForm(SiteForm):
    main = forms.CharField(label=gettext_lazy("Your main account's name"), max_length=150)
    note = forms.CharField(
        label=gettext_lazy("Anything the moderators should know"),
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        max_length=1000,
    )


def _moderator(request: HttpRequest) -> None:
    if not reads.is_moderator(request.user):
        raise PermissionDenied(_("Only the site's moderators see this page."))


# -- reporting -----------------------------------------------------------------------------
def _report(
    request: HttpRequest, what: str, back_to: str, call: Callable[[dict[str, Any]], Any]
) -> HttpResponse:
    form = ReportForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            call(form.cleaned_data)
        except NotFound as exc:
            raise Http404(exc.message) from None
        except GameRuleError as exc:
            apply_service_error(exc, form)
        else:
            messages.success(request, _("Thank you: the site's moderators will look at it."))
            return redirect(back_to)
    return render(
        request, "moderation/report.html", {"form": form, "what": what, "back_to": back_to}
    )


@login_required
def report_post(
    request: HttpRequest, game_id: int, number: int, thread: str = Thread.PUBLIC
) -> HttpResponse:
    """Report a post of a thread you can read (a thread you cannot read is not there)."""
    game = get_game(game_id)
    if not Viewer.of(game, request.user).can_read(thread):
        raise Http404(_("There is no such thread."))
    back_to = reverse("games:post_link", args=[game_id, number])
    if thread != Thread.PUBLIC:
        back_to = reverse("games:private_thread", args=[game_id, thread])
    return _report(
        request,
        _("post #%(number)s in %(game)s") % {"number": number, "game": game.title},
        back_to,
        lambda data: services.file_report(
            request.user,
            reason=data["reason"],
            text=data["text"],
            game_id=game_id,
            thread=thread,
            number=number,
        ),
    )


@login_required
def report_player(request: HttpRequest, name: str) -> HttpResponse:
    person = user_called(name)
    if person is None:
        raise Http404(_("There is nobody of that name."))
    shown = person.get_username()
    return _report(
        request,
        shown,
        reverse("games:player", args=[shown]),
        lambda data: services.file_report(
            request.user, reason=data["reason"], text=data["text"], player=shown
        ),
    )


# -- the moderators' pages -----------------------------------------------------------------
@login_required
def queue(request: HttpRequest) -> HttpResponse:
    """Open reports in context (not those of a running game the moderator plays in),
    appeals waiting for an answer, alternate accounts waiting for approval."""
    _moderator(request)
    return render(
        request,
        "moderation/queue.html",
        {
            "reports": reads.queue(request.user),
            "open_count": reads.open_count(request.user),
            "appeals": reads.open_appeals(request.user),
            "alts": reads.pending_alts(),
            "action_form": ActionForm(auto_id=False),
            "answer_form": AnswerForm(auto_id=False),
        },
    )


def _run(request: HttpRequest, call: Callable[[], Any], success: str, to: str) -> HttpResponse:
    try:
        call()
    except NotFound as exc:
        raise Http404(exc.message) from None
    except GameRuleError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, success)
    return back(request, to)


@require_POST
@login_required
def handle_report(request: HttpRequest, report_id: int) -> HttpResponse:
    _moderator(request)
    form = ActionForm(request.POST)
    to = reverse("games:moderation")
    if not form.is_valid():
        messages.error(request, form_message(form))
        return back(request, to)
    data = form.cleaned_data
    return _run(
        request,
        lambda: services.handle_report(
            request.user,
            report_id,
            action=data["action"],
            reason=data["reason"],
            days=data["days"],
            note=data["note"],
        ),
        _("Done: the report is closed."),
        to,
    )


@require_POST
@login_required
def answer_appeal(request: HttpRequest, appeal_id: int) -> HttpResponse:
    _moderator(request)
    form = AnswerForm(request.POST)
    form.is_valid()
    grant = request.POST.get("grant") == "yes"
    return _run(
        request,
        lambda: services.answer_appeal(
            request.user, appeal_id, grant=grant, answer=form.cleaned_data.get("answer", "")
        ),
        _("The appeal is granted: the sanction is lifted.")
        if grant
        else _("The appeal is refused."),
        reverse("games:moderation"),
    )


@require_POST
@login_required
def decide_alt(request: HttpRequest, alt_id: int) -> HttpResponse:
    _moderator(request)
    approve = request.POST.get("approve") == "yes"
    return _run(
        request,
        lambda: services.decide_alt(request.user, alt_id, approve=approve),
        _("Approved: the two accounts never share a game.") if approve else _("Refused."),
        reverse("games:moderation"),
    )


@login_required
def person(request: HttpRequest, name: str) -> HttpResponse:
    """A person's record for moderators: their sanctions (lift one), reports about them,
    their alternates, and a form to act on them directly."""
    _moderator(request)
    subject = user_called(name)
    if subject is None:
        raise Http404(_("There is nobody of that name."))
    form = SanctionForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.sanction(
                request.user,
                subject,
                data["action"],
                reason=data["reason"],
                days=data["days"],
                note=data["note"],
            )
        except GameRuleError as exc:
            apply_service_error(exc, form)
        else:
            messages.success(request, _("Done: they are told, and it is in the log."))
            return redirect(reverse("games:moderation_person", args=[subject.get_username()]))
    return render(
        request,
        "moderation/person.html",
        {
            "subject": subject,
            "sanctions": reads.sanctions_of(subject.pk, request.user),
            "reports": reads.visible_reports(request.user)
            .filter(player=subject)
            .select_related("reporter", "game")
            .order_by("-created_at")[:50],
            "accounts": sorted(reads.same_person(subject.pk) - {subject.pk}),
            "alts": reads.approved_alts(subject.pk),
            "form": form,
        },
    )


@require_POST
@login_required
def lift(request: HttpRequest, sanction_id: int) -> HttpResponse:
    _moderator(request)
    return _run(
        request,
        lambda: services.lift(request.user, sanction_id, note=request.POST.get("note", "")),
        _("Lifted: they are told."),
        reverse("games:moderation"),
    )


@login_required
def log(request: HttpRequest) -> HttpResponse:
    _moderator(request)
    raw = request.GET.get("before", "")
    before = int(raw) if raw.isdigit() and len(raw) < 12 else None
    entries = reads.audit_log(request.user, before=before)
    older = entries[-1].pk if len(entries) == reads.LOG_PAGE else None
    return render(request, "moderation/log.html", {"entries": entries, "older": older})


# -- the sanctioned person's side ----------------------------------------------------------
def appeal(request: HttpRequest, token: str) -> HttpResponse:
    """The sanction and its one appeal, by the signed link in the person's notification
    (it works signed out: a suspended person cannot log in)."""
    row = reads.sanction_for_token(token)
    if row is None:
        raise Http404(_("This appeal link is not valid (or has expired)."))
    existing = Appeal.objects.filter(sanction=row).first()
    form = AppealForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and existing is None and form.is_valid():
        try:
            services.appeal(None, row.pk, text=form.cleaned_data["text"])
        except GameRuleError as exc:
            apply_service_error(exc, form)
        else:
            messages.success(request, _("Your appeal is sent: another moderator will answer it."))
            return redirect(reverse("games:appeal", args=[token]))
    return render(
        request,
        "moderation/appeal.html",
        {"sanction": row, "appeal": existing, "form": form, "until": reads.until_text(row)},
    )


@login_required
def declare_alt(request: HttpRequest) -> HttpResponse:
    """Declare this account an alternate of another (a moderator approves it)."""
    form = AltForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            services.declare_alt(
                request.user, form.cleaned_data["main"], note=form.cleaned_data["note"]
            )
        except GameRuleError as exc:
            apply_service_error(exc, form)
        else:
            messages.success(request, _("Declared: a moderator will look at it."))
            return redirect(reverse("games:declare_alt"))
    return render(
        request,
        "moderation/declare_alt.html",
        {"form": form, "declared": reads.alt_of(request.user)},
    )
