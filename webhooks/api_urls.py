from django.urls import path

from . import api

urlpatterns = [
    path("games/<int:game_id>/host/webhook/", api.WebhookView.as_view(), name="api-webhook"),
    path(
        "games/<int:game_id>/host/webhook/retry/",
        api.WebhookRetryView.as_view(),
        name="api-webhook-retry",
    ),
]
