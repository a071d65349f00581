from django.apps import AppConfig


class AnalyticsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "analytics"

    def ready(self) -> None:
        from games.hooks import register_panel

        from . import stats_views

        # Statistics from finished games on the setup, player and agent pages.
        register_panel("setup", stats_views.setup_panel)
        register_panel("player", stats_views.player_panel)
        register_panel("agent", stats_views.agent_panel)
