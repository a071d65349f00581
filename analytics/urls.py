"""The analytics app's pages."""

from django.urls import URLPattern, path

from . import stats_views

urlpatterns: list[URLPattern] = [
    # Statistics from finished games (analytics.stats).
    path("setups/<slug:slug>/stats/", stats_views.setup_stats_page, name="setup_stats"),
    path("players/<str:name>/stats/", stats_views.player_stats_page, name="player_stats"),
]
