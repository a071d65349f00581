"""The analytics app's JSON API, under /api/v1/ beside the games core's."""

from django.urls import URLPattern, path  # noqa: F401

urlpatterns: list[URLPattern] = []
