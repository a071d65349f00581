"""What the webhooks app answers (typed; the API's serializers are made from these; no
``from __future__ import annotations``: the serializers read the annotations)."""

from datetime import datetime
from typing import Annotated, TypedDict

from games.shapes import Doc


class WebhookStatus(TypedDict):
    url_masked: Annotated[str, Doc("Only the site: the URL itself is secret.")]
    failure: Annotated[str | None, Doc("Why the last delivery failed for good (null: no failure).")]
    failed_at: datetime | None
    failed_posts: Annotated[int, Doc("Posts not sent: POST host/webhook/retry/.")]
    pending_posts: int


class WebhookAnswer(TypedDict):
    webhook: Annotated[WebhookStatus | None, Doc("The chat webhook; null: none.")]
