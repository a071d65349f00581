"""The analytics app's pages."""

from django.urls import URLPattern, path  # noqa: F401

urlpatterns: list[URLPattern] = []
