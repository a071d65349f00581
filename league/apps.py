from django.apps import AppConfig


class LeagueConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "league"

    def ready(self) -> None:
        from games import hooks

        from . import baseline, live, series, services, tasks, views
        from .formats import LEAGUE_HOST_NAME

        # A series game's end starts the series' next game; a baseline agent queues again.
        hooks.on_game_finished(series.game_finished)
        hooks.on_game_finished(baseline.game_finished)
        # The league page links the series.
        hooks.register_panel("league", views.league_panel)
        # Blind games: the review's guesses, and how often an agent was spotted.
        hooks.register_panel("review", views.review_guess_panel)
        hooks.register_panel("agent", views.agent_spotted_panel)
        # The standing queues: a league game's seat is filled from its queue; people the
        # core benches leave every queue; the host's name is nobody's; the page is live;
        # the embedded run sweeps the queues where beat would (``mafia_site.celery``).
        hooks.set_league_replacer(services.replace_from_queue)
        hooks.on_bench(services.leave_every_queue)
        hooks.reserve_name(LEAGUE_HOST_NAME)
        hooks.register_socket_route(live.socket_route())
        hooks.register_embedded_job(
            hooks.EmbeddedJob(10.0, tasks.match_queues, "League matchmaking")
        )
