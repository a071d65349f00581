"""Agent accounts in the JSON API: a person registers their agents and manages their tokens.

The same services (``games.services.agents``) as the ``/agents/`` pages. Only people: a
call with an agent's own token is refused (403, ``agent_account``), so a leaked key cannot
make more keys. A token's ``key`` is in the answer that made it, and never again.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from ..models import Agent, AgentToken
from ..reads.agents import agents_of
from ..services import agents as agent_services
from . import docs
from .serializers import ApiTokenSerializer, InputSerializer, api_token_data
from .views import GameAPIView, _valid


class AgentSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="Its user name: how it appears in games.")
    description = serializers.CharField(allow_blank=True)
    code_url = serializers.CharField(allow_blank=True, help_text="Where its code can be read.")
    owner = serializers.CharField(help_text="The person who registered it.")
    created_at = serializers.DateTimeField()
    live_tokens = serializers.IntegerField(help_text="Tokens not revoked.")


class AgentTokenSerializer(ApiTokenSerializer):
    """An agent's token (its own name in the document)."""


class NewAgentTokenSerializer(AgentTokenSerializer):
    key = serializers.CharField(
        help_text="Send it as `Authorization: Token <key>`. Shown this once only."
    )


class AgentCreateSerializer(InputSerializer):
    name = serializers.CharField(max_length=150, help_text="Named as a person is at sign-up.")
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True)
    code_url = serializers.CharField(
        max_length=200, required=False, allow_blank=True, help_text="An http(s) address."
    )
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
        agent = agent_services.register_agent(
            request.user,
            data["name"],
            description=data.get("description", ""),
            code_url=data.get("code_url", ""),
        )
        new = agent_services.create_token(
            request.user, agent.user.get_username(), token_name=data.get("token_name", "")
        )
        return Response(
            {"agent": agent_data(agent, 1), "token": token_data(new.token, new.key)},
            status=status.HTTP_201_CREATED,
        )


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
