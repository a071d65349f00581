from django.urls import path

from . import api

urlpatterns = [
    path("leaderboard/<str:ruleset>/", api.LeaderboardView.as_view(), name="api-leaderboard"),
    path("players/<str:name>/", api.PlayerView.as_view(), name="api-player"),
]
