"""URLs of the game pages (the JSON API lives under /api/v1/, see games.api.urls)."""

from django.urls import path

from . import views

app_name = "games"

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("games/new/", views.create_game, name="create"),
    path("games/<int:game_id>/", views.thread, name="thread"),
    path("games/<int:game_id>/post/", views.reply, name="reply"),
    path("games/<int:game_id>/posts/<int:number>/", views.post_link, name="post_link"),
    path("games/<int:game_id>/t/<str:thread>/", views.private_thread, name="private_thread"),
    path("games/<int:game_id>/t/<str:thread>/post/", views.reply, name="private_reply"),
    path("games/<int:game_id>/join/", views.join, name="join"),
    path("games/<int:game_id>/leave/", views.leave, name="leave"),
    path("games/<int:game_id>/start/", views.start, name="start"),
    path(
        "games/<int:game_id>/signups/<int:slot_id>/remove/",
        views.remove_signup,
        name="remove_signup",
    ),
    path("games/<int:game_id>/vote/", views.vote, name="vote"),
    path("games/<int:game_id>/unvote/", views.unvote, name="unvote"),
    path("games/<int:game_id>/nominate/", views.nominate, name="nominate"),
    path("games/<int:game_id>/role/", views.role_pm, name="role"),
    path("games/<int:game_id>/role/withdraw/", views.withdraw, name="withdraw"),
    path("games/<int:game_id>/host/", views.host_dashboard, name="host"),
    path("games/<int:game_id>/host/<str:op>/", views.host_action, name="host_action"),
    path("games/<int:game_id>/archive/", views.archive, name="archive"),
]
