from django.apps import AppConfig


class LeagueConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "league"

    def ready(self) -> None:
        from games.hooks import on_game_finished, register_panel

        from . import baseline, series, views

        # A series game's end starts the series' next game; a baseline agent queues again.
        on_game_finished(series.game_finished)
        on_game_finished(baseline.game_finished)
        # The league page links the series.
        register_panel("league", views.league_panel)
        # Blind games: the review's guesses, and how often an agent was spotted.
        register_panel("review", views.review_guess_panel)
        register_panel("agent", views.agent_spotted_panel)
