"""The agents' answers in the JSON API, as typed shapes (``games.shapes``' way: the
serializers, so the OpenAPI components, are derived from them by ``games.api.typed``).
(No ``from __future__ import annotations``: ``TypedDict`` must see its keys' types.)
"""

from typing import Annotated

from games.shapes import AgentProvenance, AgentRate, Doc


class AgentPage(AgentProvenance):
    """An agent's public page in the API: who runs what, and how it has played (its
    provenance, and how often the players of its blind games spotted it)."""

    spotted: Annotated[
        AgentRate,
        Doc(
            "Of the guesses made in the finished blind games it held a seat in (by their "
            "people, after the end), those that named its seat; of 0: no such guess."
        ),
    ]
