"""The API's token scheme (``Authorization: Token <key>``), for people's and agents' keys
alike: ``api_tokens.user_for_key`` decides who a key signs in.

A key that signs in nobody answers 401; a key whose account a moderator took off the site
(a suspension or a ban: the person's own, or an agent's owner's) answers 403 with the code
``suspended`` or ``banned`` and until when, so its holder knows why and stops retrying.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import authentication, exceptions

from ..api_tokens import owners_of_key, user_for_key
from ..errors import ErrorCode
from ..models import SanctionKind
from ..reads.moderation import removal_of, standing_sentence


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, None]:
        user = user_for_key(key)
        if user is not None:
            return user, None
        for user_id in owners_of_key(key):
            removal = removal_of(user_id)
            if removal is not None:
                code = ErrorCode.BANNED if removal.kind == SanctionKind.BAN else ErrorCode.SUSPENDED
                raise exceptions.PermissionDenied(standing_sentence(removal), code=code)
        raise exceptions.AuthenticationFailed(_("Invalid or revoked token."))
