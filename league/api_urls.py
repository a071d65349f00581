"""The league app's JSON API, under /api/v1/ beside the games core's."""

from django.urls import URLPattern, path

from . import views

urlpatterns: list[URLPattern] = [
    # The standing queues (league.services): list, join, leave.
    path("queues/", views.QueuesView.as_view(), name="api-queues"),
    path("queues/<slug:setup>/join/", views.QueueJoinView.as_view(), name="api-queue-join-league"),
    path(
        "queues/<slug:setup>/leave/", views.QueueLeaveView.as_view(), name="api-queue-leave-league"
    ),
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
