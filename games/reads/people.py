"""Finding a person by a name as someone typed it (the host's Replace form, the API)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from ..naming import fold


def user_called(name: str) -> Any | None:
    """The user whose name is ``name`` as written, else the one it folds to
    (``naming.fold``: "zoe smith" finds "Zoë Smith"), else None."""
    name = name.strip()
    users = get_user_model().objects
    exact = users.filter(username__iexact=name).first()
    if exact is not None or not name:
        return exact
    wanted = fold(name)
    # Sign-up keeps folds unique, so at most one matches; the names are short and few.
    for pk, username in users.values_list("pk", "username").iterator():
        if fold(username) == wanted:
            return users.get(pk=pk)
    return None
