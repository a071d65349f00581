from django.apps import AppConfig


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"

    def ready(self) -> None:
        from games import hooks

        from . import compute, missed, views

        hooks.on_game_ending(compute.rate_ending_game)
        hooks.register_panel("player", views.player_panel)
        hooks.register_embedded_job(
            hooks.EmbeddedJob(60.0, missed.rate_missed_games, "Missed ratings")
        )
