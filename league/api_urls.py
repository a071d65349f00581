"""The league app's JSON API, under /api/v1/ beside the games core's."""

from django.urls import URLPattern, path

from . import views

urlpatterns: list[URLPattern] = [
    # Duplicate series (league.series).
    path("series/", views.SeriesListView.as_view(), name="api-series-list"),
    path("series/<int:series_id>/", views.SeriesView.as_view(), name="api-series"),
    # Blind games: the players' guesses of which seats were agents', after the end.
    path(
        "games/<int:game_id>/agent-guesses/",
        views.AgentGuessesView.as_view(),
        name="api-agent-guesses",
    ),
]
