"""The analytics app's pages."""

from django.urls import URLPattern, path

from . import probe_views, stats_views

urlpatterns: list[URLPattern] = [
    # Statistics from finished games (analytics.stats).
    path("setups/<slug:slug>/stats/", stats_views.setup_stats_page, name="setup_stats"),
    path("players/<str:name>/stats/", stats_views.player_stats_page, name="player_stats"),
    # Belief probes (analytics.probes): a player's daily form.
    path("games/<int:game_id>/probes/", probe_views.probes_page, name="game_probes"),
    # Behaviour metrics ranked (analytics.behaviour_board).
    path(
        "leaderboard/<str:ruleset>/behaviour/",
        stats_views.behaviour_board_page,
        name="behaviour_board",
    ),
]
