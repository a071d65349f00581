"""The ratings app's pages."""

from django.urls import URLPattern, path

from . import views

app_name = "ratings"

urlpatterns: list[URLPattern] = [
    path("leaderboard/<str:ruleset>/", views.leaderboard_page, name="leaderboard"),
]
