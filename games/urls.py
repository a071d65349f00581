"""URLs of the games app (filled in by the views)."""

from django.urls import path  # noqa: F401

app_name = "games"

urlpatterns: list = []
