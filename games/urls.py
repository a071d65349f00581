"""URLs of the game pages (the JSON API lives under /api/v1/, see games.api.urls)."""

from django.urls import path

from .views import (
    archive,
    chores,
    game,
    host,
    inbox,
    lobby,
    my_games,
    role,
    simulation,
    unsubscribe,
)

app_name = "games"

urlpatterns = [
    path("", lobby.lobby, name="lobby"),
    path("notifications/", inbox.inbox, name="notifications"),
    path("notifications/read-all/", inbox.mark_all_read, name="notifications_read_all"),
    path("notifications/settings/", inbox.notification_settings, name="notification_settings"),
    path(
        "notifications/<int:notification_id>/open/",
        inbox.open_notification,
        name="notification_open",
    ),
    path("games/new/", lobby.create_game, name="create"),
    path("my-games/", my_games.my_games_page, name="my_games"),
    path("games/<int:game_id>/", game.thread, name="thread"),
    path("games/<int:game_id>/post/", game.reply, name="reply"),
    path("games/<int:game_id>/posts/<int:number>/", game.post_link, name="post_link"),
    path("games/<int:game_id>/t/<str:thread>/", game.private_thread, name="private_thread"),
    path("games/<int:game_id>/t/<str:thread>/post/", game.reply, name="private_reply"),
    path("games/<int:game_id>/join/", game.join, name="join"),
    path("games/<int:game_id>/leave/", game.leave, name="leave"),
    path("games/<int:game_id>/start/", game.start, name="start"),
    path(
        "games/<int:game_id>/signups/<int:slot_id>/remove/",
        game.remove_signup,
        name="remove_signup",
    ),
    path("games/<int:game_id>/vote/", game.vote, name="vote"),
    path("games/<int:game_id>/unvote/", game.unvote, name="unvote"),
    path("games/<int:game_id>/nominate/", game.nominate, name="nominate"),
    path("games/<int:game_id>/turn/pass/", game.turn_pass, name="turn_pass"),
    path("games/<int:game_id>/role/", role.role_pm, name="role"),
    path("games/<int:game_id>/role/withdraw/", role.withdraw, name="withdraw"),
    path("games/<int:game_id>/role/day-action/", role.day_action, name="day_action"),
    path("games/<int:game_id>/host/", host.dashboard, name="host"),
    path("games/<int:game_id>/host/<str:op>/", host.host_action, name="host_action"),
    path("games/<int:game_id>/archive/", archive.archive, name="archive"),
    path("notifications/unsubscribe/<str:token>/", unsubscribe.unsubscribe, name="unsubscribe"),
    path("setups/<slug:slug>/", simulation.setup_page, name="setup"),
    path("setups/<slug:slug>/simulate/", simulation.simulate, name="simulate"),
    path("setups/saved/<int:saved_id>/", simulation.setup_page, name="saved_setup"),
    path("setups/saved/<int:saved_id>/simulate/", simulation.simulate, name="simulate_saved"),
    path("simulations/<int:run_id>/", simulation.simulation, name="simulation"),
    path("games/<int:game_id>/votes/", chores.votes, name="votes"),
    path("games/<int:game_id>/activity/", chores.activity_page, name="activity"),
    path("games/<int:game_id>/iso/", chores.multi_iso, name="multi_iso"),
    path("games/<int:game_id>/away/", chores.mark_away, name="away"),
    path(
        "games/<int:game_id>/away/<int:absence_id>/cancel/",
        chores.cancel_away,
        name="cancel_away",
    ),
    path(
        "games/<int:game_id>/replacements/<str:op>/",
        chores.queue,
        name="replacement_queue",
    ),
]
