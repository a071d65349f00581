"""A person's API tokens in the JSON API: a name and password for a new token, the list of
one's tokens, and revoking one.

The same services (``games.services.person_tokens``) as the tokens page
(``/accounts/tokens/``). Every ``POST auth/token/`` makes a new token, whose key is in its
answer (``token``, the field clients have always read) and never again.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, get_user_model
from django.utils.translation import gettext as _
from rest_framework import serializers
from rest_framework.parsers import FormParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from .. import ratelimit
from ..errors import BadCredentials, ErrorCode
from ..models import PersonToken
from ..services import person_tokens
from . import docs
from . import serializers as s
from .parsers import JSONParser
from .views import GameAPIView, _valid


class PersonTokenSerializer(s.ApiTokenSerializer):
    """A person's token (its own name in the document)."""


class NewPersonTokenSerializer(PersonTokenSerializer):
    token = serializers.CharField(
        help_text="The key: send it as `Authorization: Token <token>`. Shown this once only."
    )


class PersonTokenListSerializer(serializers.Serializer):
    results = PersonTokenSerializer(many=True)


def token_data(token: PersonToken, key: str | None = None) -> dict[str, Any]:
    data = s.api_token_data(token)
    if key is not None:
        data["token"] = key
    return data


class TokenView(GameAPIView):
    """Exchange a username (or e-mail address) and password for a new API token (send it
    as ``Authorization: Token <token>``). Each call makes another token; list and revoke
    them at ``auth/tokens/``. A password change or reset revokes them all."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    # JSON, or a form as ``curl -d username=... -d password=...`` sends it.
    parser_classes = [JSONParser, FormParser]

    # Only the JSON body is declared: the form is the same schema, and a document with two
    # bodies of one schema breaks generated clients (openapi-python-client's module did not
    # import). The form stays accepted for curl.
    @docs.write(
        NewPersonTokenSerializer,
        request={"application/json": s.TokenRequestSerializer},
        game=False,
        rate_limit="login",
    )
    def post(self, request: Request) -> Response:
        data = _valid(s.TokenRequestSerializer, request)
        # Read as the login form reads it (NFKC: full-width letters are the ASCII ones).
        username = get_user_model().normalize_username(data["username"])
        ratelimit.check_login(request, username)
        user = authenticate(request, username=username, password=data["password"])
        if user is None:
            ratelimit.login_failed(request, username)
            raise BadCredentials(
                _("Wrong username or password."), ErrorCode.BAD_CREDENTIALS, "password"
            )
        new = person_tokens.create_token(user)
        return Response(token_data(new.token, new.key))


class PersonTokensView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.read(PersonTokenListSerializer)
    def get(self, request: Request) -> Response:
        """Your API tokens, newest first, the revoked ones too (never their keys)."""
        tokens = person_tokens.list_tokens(request.user)
        return Response({"results": [token_data(t) for t in tokens]})


class RevokePersonTokenView(GameAPIView):
    permission_classes = [IsAuthenticated]

    @docs.write(PersonTokenSerializer)
    def post(self, request: Request, token_id: int) -> Response:
        """Revoke one of your tokens: it signs in no one from now on, and the sockets
        signed in with it close."""
        token = person_tokens.revoke_token(request.user, token_id)
        return Response(token_data(token))
