from django.apps import AppConfig


class AnalyticsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "analytics"

    def ready(self) -> None:
        from games.hooks import register_export_part, register_panel

        from . import probe_views, probes, stats_views

        # Statistics from finished games on the setup, player and agent pages.
        register_panel("setup", stats_views.setup_panel)
        register_panel("player", stats_views.player_panel)
        register_panel("agent", stats_views.agent_panel)
        # The behaviour leaderboard, linked from the core's leaderboard.
        register_panel("leaderboard", stats_views.leaderboard_panel)
        # Belief probes: the role PM page's link, the review's scores, the players' figures,
        # and the open data's ``parts.probes``.
        register_panel("role", probe_views.role_panel)
        register_panel("review", probe_views.review_panel)
        register_panel("player", probe_views.person_panel)
        register_panel("agent", probe_views.agent_panel)
        register_export_part("probes", probes.export_part)
