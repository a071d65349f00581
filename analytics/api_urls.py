"""The analytics app's JSON API, under /api/v1/ beside the games core's."""

from django.urls import URLPattern, path

from . import probe_views, stats_views

urlpatterns: list[URLPattern] = [
    # Statistics from finished games (analytics.stats).
    path("setups/<slug:slug>/stats/", stats_views.SetupStatsView.as_view(), name="api-setup-stats"),
    path(
        "players/<str:name>/stats/", stats_views.PlayerStatsView.as_view(), name="api-player-stats"
    ),
    # Belief probes (analytics.probes).
    path("games/<int:game_id>/probes/", probe_views.ProbesView.as_view(), name="api-game-probes"),
]
