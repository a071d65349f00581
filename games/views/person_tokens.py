"""A person's API tokens page (``/accounts/tokens/``): the list, a form that makes one, and
revoking one. As on an agent's page, a new key is shown once: the POST that made it keeps it
in the session and redirects, and the page takes it out as it shows it."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from ..errors import GameRuleError, NotFound
from ..forms import SiteForm, form_message
from ..services import person_tokens

NEW_KEY = "person_tokens_new_key"  # the session's one-time slot for a key just made


class PersonTokenForm(SiteForm):
    name = forms.CharField(
        label=gettext_lazy("Token name"),
        required=False,
        max_length=person_tokens.MAX_TOKEN_NAME,
        help_text=gettext_lazy("Optional: where it is used (“laptop”, “my bot”)."),
    )


@login_required
def tokens_page(request: HttpRequest) -> HttpResponse:
    try:
        tokens = person_tokens.list_tokens(request.user)
    except GameRuleError as exc:  # an agent's account: its tokens are on its page
        messages.error(request, exc.message)
        tokens = []
    return render(
        request,
        "account/tokens.html",
        {
            "tokens": tokens,
            "new_key": request.session.pop(NEW_KEY, None),
            "form": PersonTokenForm(),
        },
    )


@require_POST
@login_required
def token_new(request: HttpRequest) -> HttpResponse:
    form = PersonTokenForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_message(form))
        return redirect("person_tokens")
    try:
        new = person_tokens.create_token(request.user, name=form.cleaned_data["name"])
    except GameRuleError as exc:
        messages.error(request, exc.message)
    else:
        request.session[NEW_KEY] = {"id": new.token.pk, "key": new.key}
    return redirect("person_tokens")


@require_POST
@login_required
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        person_tokens.revoke_token(request.user, token_id)
    except NotFound as exc:
        raise Http404(exc.message) from None
    except GameRuleError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The token is revoked: it signs in no one from now on."))
    return redirect("person_tokens")
