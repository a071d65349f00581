"""The agent pages: a person's agents with the form that registers one (``/agents/``), and
each agent's public page (``/agents/<name>/``), where its owner also manages its tokens.

A new token's key is shown once: the POST that made it keeps it in the session and
redirects, and the agent page takes it out as it shows it (a reload shows it no more).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from games.errors import GameRuleError, InvalidInput, NotFound
from games.forms import SiteForm, apply_service_error, form_message
from games.hooks import panels
from games.models import AgentToken
from games.reads.agents import agent_called, agents_of
from games.reads.reliability import record

from . import services as agent_services
from .provenance import refusal_rate, timeout_rate

NEW_KEY = "agents_new_key"  # the session's one-time slot for a key just made


class AgentEditForm(SiteForm):
    """What its owner says of an agent: shown on its public page."""

    description = forms.CharField(
        label=gettext_lazy("Description"),
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        max_length=2000,
    )
    code_url = forms.CharField(
        label=gettext_lazy("Link to its code"),
        required=False,
        max_length=200,
        help_text=gettext_lazy("An http(s) address where people can read how it plays."),
    )
    model_name = forms.CharField(
        label=gettext_lazy("Model"),
        required=False,
        max_length=agent_services.MAX_MODEL_NAME,
        help_text=gettext_lazy("What plays: “gpt-5”, “reference bot”…"),
    )
    model_version = forms.CharField(
        label=gettext_lazy("Model version"),
        required=False,
        max_length=agent_services.MAX_MODEL_VERSION,
    )


class AgentForm(AgentEditForm):
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=150,
        help_text=gettext_lazy(
            "How it appears in games: letters, digits, single spaces and . @ + - _"
        ),
    )
    field_order = ["name", "description", "code_url", "model_name", "model_version"]


class TokenForm(SiteForm):
    name = forms.CharField(
        label=gettext_lazy("Token name"),
        required=False,
        max_length=80,
        help_text=gettext_lazy("Optional: where it is used (“laptop”, “server”)."),
    )


def agent_url(name: str) -> str:
    return reverse("agents:agent", args=[name])


def _keep_key(request: HttpRequest, name: str, new: agent_services.NewToken) -> None:
    request.session[NEW_KEY] = {"agent": name, "id": new.token.pk, "key": new.key}


@login_required
def agents_page(request: HttpRequest) -> HttpResponse:
    """My agents, and the form that registers one (with its first token)."""
    form = AgentForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            agent = agent_services.register_agent(
                request.user,
                data["name"],
                description=data["description"],
                code_url=data["code_url"],
                model_name=data["model_name"],
                model_version=data["model_version"],
            )
            name = agent.user.get_username()
            _keep_key(request, name, agent_services.create_token(request.user, name))
        except GameRuleError as exc:
            apply_service_error(exc, form)
        else:
            messages.success(
                request, _("%(name)s is registered. Copy its token now.") % {"name": name}
            )
            return redirect(agent_url(name))
    return render(
        request,
        "agents/agents.html",
        {
            "form": form,
            "agents": agents_of(request.user),
            "is_agent": agent_services.is_agent(request.user),
        },
    )


def agent_page(request: HttpRequest, name: str) -> HttpResponse:
    """An agent's public page; its owner also sees its tokens and the forms."""
    agent = agent_called(name)
    if agent is None:
        raise Http404(_("There is no agent of that name."))
    mine = request.user.is_authenticated and agent.owner_id == request.user.pk
    context: dict[str, Any] = {
        "agent": agent,
        "mine": mine,
        "refusals": refusal_rate(agent),
        "timeouts": timeout_rate(agent),
        "record": record(agent.user),
        "panels": panels("agent", request, agent=agent),
    }
    if mine:
        new_key = request.session.pop(NEW_KEY, None)
        if new_key and new_key.get("agent") != name:
            new_key = None
        context.update(
            tokens=list(AgentToken.objects.filter(agent=agent).select_related("agent__user")),
            new_key=new_key,
            edit_form=AgentEditForm(
                initial={field: getattr(agent, field) for field in AgentEditForm.base_fields}
            ),
            token_form=TokenForm(),
        )
    return render(request, "agents/agent.html", context)


def _owner_action(request: HttpRequest, name: str, call: Any, success: Any) -> HttpResponse:
    """Run an owner's change; another person (or nobody) finds no such agent (404)."""
    try:
        call()
    except NotFound as exc:
        raise Http404(exc.message) from None
    except GameRuleError as exc:
        messages.error(request, exc.message)
    else:
        if success:
            messages.success(request, success)
    return redirect(agent_url(name))


@require_POST
@login_required
def agent_edit(request: HttpRequest, name: str) -> HttpResponse:
    form = AgentEditForm(request.POST)

    def call() -> None:
        agent_services.owned_agent(request.user, name)
        if not form.is_valid():
            raise InvalidInput(form_message(form))
        agent_services.edit_agent(
            request.user,
            name,
            **{field: form.cleaned_data[field] for field in AgentEditForm.base_fields},
        )

    return _owner_action(request, name, call, _("Saved."))


@require_POST
@login_required
def agent_token_new(request: HttpRequest, name: str) -> HttpResponse:
    form = TokenForm(request.POST)

    def call() -> None:
        agent_services.owned_agent(request.user, name)
        if not form.is_valid():
            raise InvalidInput(form_message(form))
        new = agent_services.create_token(request.user, name, token_name=form.cleaned_data["name"])
        _keep_key(request, name, new)

    return _owner_action(request, name, call, "")


@require_POST
@login_required
def agent_token_revoke(request: HttpRequest, name: str, token_id: int) -> HttpResponse:
    return _owner_action(
        request,
        name,
        lambda: agent_services.revoke_token(request.user, name, token_id),
        _("The token is revoked: it signs in no one from now on."),
    )
