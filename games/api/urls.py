"""/api/v1/: the JSON API, its OpenAPI document and a Swagger UI page."""

from django.urls import path
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerSplitView

from . import (
    bookmarks,
    chores,
    export,
    league,
    moderation,
    review,
    tokens,
    views,
    whispers,
    wills,
)

urlpatterns = [
    path("openapi.json", SpectacularJSONAPIView.as_view(), name="api-schema"),
    # The split view serves its start-up script as a file: no inline script for the CSP.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("auth/token/", tokens.TokenView.as_view(), name="api-token"),
    path("auth/tokens/", tokens.PersonTokensView.as_view(), name="api-person-tokens"),
    path(
        "auth/tokens/<int:token_id>/revoke/",
        tokens.RevokePersonTokenView.as_view(),
        name="api-person-token-revoke",
    ),
    path("bookmarks/", bookmarks.BookmarksView.as_view(), name="api-bookmarks"),
    path("bookmarks/<int:bookmark_id>/", bookmarks.BookmarkView.as_view(), name="api-bookmark"),
    path("reports/", moderation.ReportsView.as_view(), name="api-reports"),
    path("rulesets/", views.RulesetsView.as_view(), name="api-rulesets"),
    path("queues/", league.QueuesView.as_view(), name="api-queues"),
    path("queues/<slug:setup>/join/", league.QueueJoinView.as_view(), name="api-queue-join-league"),
    path(
        "queues/<slug:setup>/leave/", league.QueueLeaveView.as_view(), name="api-queue-leave-league"
    ),
    path("setups/", views.SetupsView.as_view(), name="api-setups"),
    path("games/", views.GameListView.as_view(), name="api-games"),
    path("my-games/", views.MyGamesView.as_view(), name="api-my-games"),
    path("games/<int:game_id>/", views.GameDetailView.as_view(), name="api-game"),
    path("games/<int:game_id>/join/", views.JoinView.as_view(), name="api-join"),
    path("games/<int:game_id>/leave/", views.LeaveView.as_view(), name="api-leave"),
    path("games/<int:game_id>/start/", views.StartView.as_view(), name="api-start"),
    path("games/<int:game_id>/posts/", views.PostsView.as_view(), name="api-posts"),
    path("games/<int:game_id>/vote-count/", views.VoteCountView.as_view(), name="api-vote-count"),
    path("games/<int:game_id>/vote/", views.VoteView.as_view(), name="api-vote"),
    path("games/<int:game_id>/unvote/", views.UnvoteView.as_view(), name="api-unvote"),
    path("games/<int:game_id>/nominate/", views.NominateView.as_view(), name="api-nominate"),
    path("games/<int:game_id>/turn/", views.TurnView.as_view(), name="api-turn"),
    path("games/<int:game_id>/turn/pass/", views.PassTurnView.as_view(), name="api-turn-pass"),
    path("games/<int:game_id>/role/", views.RoleView.as_view(), name="api-role"),
    path("games/<int:game_id>/will/", wills.WillView.as_view(), name="api-will"),
    path("games/<int:game_id>/actions/", views.ActionsView.as_view(), name="api-actions"),
    path("games/<int:game_id>/day-action/", views.DayActionView.as_view(), name="api-day-action"),
    path(
        "games/<int:game_id>/actions/<str:ability>/",
        views.ActionDetailView.as_view(),
        name="api-action",
    ),
    path("games/<int:game_id>/host/", views.HostView.as_view(), name="api-host"),
    path("games/<int:game_id>/host/extend/", views.ExtendView.as_view(), name="api-extend"),
    path("games/<int:game_id>/host/skip-turn/", views.SkipTurnView.as_view(), name="api-skip-turn"),
    path("games/<int:game_id>/host/cut/", views.CutView.as_view(), name="api-cut"),
    path("games/<int:game_id>/host/pause/", views.PauseView.as_view(), name="api-pause"),
    path("games/<int:game_id>/host/resume/", views.ResumeView.as_view(), name="api-resume"),
    path("games/<int:game_id>/host/modkill/", views.ModkillView.as_view(), name="api-modkill"),
    path("games/<int:game_id>/host/replace/", views.ReplaceView.as_view(), name="api-replace"),
    path(
        "games/<int:game_id>/host/remove-signup/",
        views.RemoveSignupView.as_view(),
        name="api-remove-signup",
    ),
    path("games/<int:game_id>/host/post/", views.HostPostView.as_view(), name="api-host-post"),
    path("games/<int:game_id>/host/cancel/", views.CancelView.as_view(), name="api-cancel"),
    path("games/<int:game_id>/cohosts/", views.CoHostsView.as_view(), name="api-cohosts"),
    path(
        "games/<int:game_id>/cohosts/<int:user_id>/",
        views.CoHostDetailView.as_view(),
        name="api-cohost",
    ),
    path("games/<int:game_id>/hand-over/", views.HandOverView.as_view(), name="api-hand-over"),
    path("games/<int:game_id>/vote-counts/", chores.VoteCountsView.as_view(), name="api-counts"),
    path("games/<int:game_id>/vote-log/", chores.VoteLogView.as_view(), name="api-vote-log"),
    path("games/<int:game_id>/away/", chores.AwayView.as_view(), name="api-away"),
    path(
        "games/<int:game_id>/away/<int:absence_id>/",
        chores.AwayDetailView.as_view(),
        name="api-away-detail",
    ),
    path("games/<int:game_id>/queue/", chores.QueueView.as_view(), name="api-queue"),
    path("games/<int:game_id>/queue/join/", chores.QueueJoinView.as_view(), name="api-queue-join"),
    path(
        "games/<int:game_id>/queue/leave/", chores.QueueLeaveView.as_view(), name="api-queue-leave"
    ),
    path(
        "games/<int:game_id>/host/replace-next/",
        chores.ReplaceNextView.as_view(),
        name="api-replace-next",
    ),
    path("games/<int:game_id>/archive/", views.ArchiveView.as_view(), name="api-archive"),
    path("games/<int:game_id>/review/", review.ReviewView.as_view(), name="api-review"),
    path("games/<int:game_id>/export/", export.ExportView.as_view(), name="api-export"),
    path("games/<int:game_id>/whispers/", whispers.WhispersView.as_view(), name="api-whispers"),
]
