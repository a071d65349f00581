"""Agent accounts in the JSON API: a person registers their agents and manages their tokens.

The same services (``games.services.agents``) as the ``/agents/`` pages. Only people: a
call with an agent's own token is refused (403, ``agent_account``), so a leaked key cannot
make more keys. A token's ``key`` is in the answer that made it, and never again.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from games.api import docs
from games.api.serializers import ApiTokenSerializer, InputSerializer, api_token_data
from games.api.typed import serializer_for
from games.api.views import GameAPIView, _valid
from games.errors import ErrorCode, NotFound
from games.models import Agent, AgentToken
from games.reads.agents import agent_called, agents_of

from . import services as agent_services
from .provenance import provenance
from .shapes import AgentPage


class AgentSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="Its user name: how it appears in games.")
    description = serializers.CharField(allow_blank=True)
    code_url = serializers.CharField(allow_blank=True, help_text="Where its code can be read.")
    model_name = serializers.CharField(allow_blank=True, help_text="The model that plays.")
    model_version = serializers.CharField(allow_blank=True, help_text="Its version.")
    owner = serializers.CharField(help_text="The person who registered it.")
    created_at = serializers.DateTimeField()
    live_tokens = serializers.IntegerField(help_text="Tokens not revoked.")


AgentPageSerializer = serializer_for(AgentPage)


class AgentTokenSerializer(ApiTokenSerializer):
    """An agent's token (its own name in the document)."""


class NewAgentTokenSerializer(AgentTokenSerializer):
    key = serializers.CharField(
        help_text="Send it as `Authorization: Token <key>`. Shown this once only."
    )


class AgentEditSerializer(InputSerializer):
    """What its owner says of an agent (a key left out: left as it is)."""

    description = serializers.CharField(max_length=2000, required=False, allow_blank=True)
    code_url = serializers.CharField(
        max_length=200, required=False, allow_blank=True, help_text="An http(s) address."
    )
    model_name = serializers.CharField(
        max_length=agent_services.MAX_MODEL_NAME,
        required=False,
        allow_blank=True,
        help_text='What plays: "gpt-5", "reference bot"... One line.',
    )
    model_version = serializers.CharField(
        max_length=agent_services.MAX_MODEL_VERSION,
        required=False,
        allow_blank=True,
        help_text="Its version. One line.",
    )


class AgentCreateSerializer(AgentEditSerializer):
    name = serializers.CharField(max_length=150, help_text="Named as a person is at sign-up.")
    token_name = serializers.CharField(
        max_length=80, required=False, allow_blank=True, help_text="A name for its first token."
    )


class AgentCreatedSerializer(serializers.Serializer):
    agent = AgentSerializer()
    token = NewAgentTokenSerializer()


class TokenCreateSerializer(InputSerializer):
    name = serializers.CharField(max_length=80, required=False, allow_blank=True)


class AgentTokenListSerializer(serializers.Serializer):
    results = AgentTokenSerializer(many=True)


class AgentListSerializer(serializers.Serializer):
    results = AgentSerializer(many=True)


def agent_data(agent: Agent, live_tokens: int | None = None) -> dict[str, Any]:
    if live_tokens is None:
        live_tokens = agent.tokens.filter(revoked_at__isnull=True).count()
    return {
        "name": agent.user.get_username(),
        "description": agent.description,
        "code_url": agent.code_url,
        "model_name": agent.model_name,
        "model_version": agent.model_version,
        "owner": agent.owner.get_username(),
        "created_at": agent.created_at,
        "live_tokens": live_tokens,
    }


def token_data(token: AgentToken, key: str | None = None) -> dict[str, Any]:
    data = api_token_data(token)
    if key is not None:
        data["key"] = key
    return data


class AgentsView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.read(AgentListSerializer)
    def get(self, request: Request) -> Response:
        """Your agents, by name."""
        agent_services.require_person(request.user)
        agents = agents_of(request.user)
        live: dict[int, int] = {}
        for token in AgentToken.objects.filter(agent__in=agents, revoked_at__isnull=True):
            live[token.agent_id] = live.get(token.agent_id, 0) + 1
        return Response({"results": [agent_data(a, live.get(a.pk, 0)) for a in agents]})

    @docs.write(AgentCreatedSerializer, request=AgentCreateSerializer, status=201)
    def post(self, request: Request) -> Response:
        """Register an agent; the answer holds its first token's key (shown this once)."""
        agent_services.require_person(request.user)
        data = _valid(AgentCreateSerializer, request)
        name, token_name = data.pop("name"), data.pop("token_name", "")
        agent = agent_services.register_agent(request.user, name, **data)  # what it says of it
        new = agent_services.create_token(
            request.user, agent.user.get_username(), token_name=token_name
        )
        return Response(
            {"agent": agent_data(agent, 1), "token": token_data(new.token, new.key)},
            status=status.HTTP_201_CREATED,
        )


class AgentView(GameAPIView):
    # Its own name: the default ("agents_retrieve") is the list's too.
    @extend_schema(operation_id="agent_retrieve")
    @docs.read(AgentPageSerializer)
    def get(self, request: Request, name: str) -> Response:
        """An agent's public page: its owner, model and code, its refusal and timeout
        rates (the README's agents section says how they are counted) and how often the
        players of its finished blind games spotted it."""
        agent = agent_called(name)
        if agent is None:
            raise NotFound(_("There is no agent of that name."), ErrorCode.NO_AGENT)
        return Response(provenance(agent))

    @docs.write(AgentSerializer, request=AgentEditSerializer)  # (422: a refused value)
    def patch(self, request: Request, name: str) -> Response:
        """Change what your agent's page says of it (a key left out is left as it is)."""
        data = _valid(AgentEditSerializer, request)
        agent = agent_services.edit_agent(request.user, name, **data)
        return Response(agent_data(agent))


class AgentTokensView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.read(AgentTokenListSerializer)
    def get(self, request: Request, name: str) -> Response:
        """Your agent's tokens, newest first, the revoked ones too (never their keys)."""
        tokens = agent_services.list_tokens(request.user, name)
        return Response({"results": [token_data(t) for t in tokens]})

    @docs.write(NewAgentTokenSerializer, request=TokenCreateSerializer, status=201)
    def post(self, request: Request, name: str) -> Response:
        """A new token for your agent; its key is in this answer only."""
        data = _valid(TokenCreateSerializer, request)
        new = agent_services.create_token(request.user, name, token_name=data.get("name", ""))
        return Response(token_data(new.token, new.key), status=status.HTTP_201_CREATED)


class RevokeTokenView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(AgentTokenSerializer)
    def post(self, request: Request, name: str, token_id: int) -> Response:
        """Revoke a token of your agent: it signs in no one from now on."""
        token = agent_services.revoke_token(request.user, name, token_id)
        return Response(token_data(token))
