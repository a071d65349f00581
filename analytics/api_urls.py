"""The analytics app's JSON API, under /api/v1/ beside the games core's."""

from django.urls import URLPattern, path

from . import stats_views

urlpatterns: list[URLPattern] = [
    # Statistics from finished games (analytics.stats).
    path("setups/<slug:slug>/stats/", stats_views.SetupStatsView.as_view(), name="api-setup-stats"),
    path(
        "players/<str:name>/stats/", stats_views.PlayerStatsView.as_view(), name="api-player-stats"
    ),
]
