"""The league app's pages."""

from django.urls import URLPattern, path

from . import views

app_name = "league"

urlpatterns: list[URLPattern] = [
    # The league page and its standing queues (league.services).
    path("league/", views.league, name="league"),
    path("league/<slug:setup>/join/", views.join, name="join"),
    path("league/<slug:setup>/leave/", views.leave, name="leave"),
    # Duplicate series (league.series).
    path("league/series/", views.series_list_page, name="series_list"),
    path("league/series/new/", views.series_create, name="series_create"),
    path("league/series/<int:series_id>/", views.series_page, name="series"),
    path("league/series/<int:series_id>/next/", views.series_next, name="series_next"),
    # Blind games: a player's guess of the agents' seats, from the review's panel.
    path("games/<int:game_id>/agent-guess/", views.guess_submit, name="agent_guess"),
]
