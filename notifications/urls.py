"""The notifications app's pages: the inbox, its settings, and the mails' unsubscribe link."""

from django.urls import URLPattern, path

from . import unsubscribe, views

app_name = "notifications"

urlpatterns: list[URLPattern] = [
    path("notifications/", views.inbox, name="inbox"),
    path("notifications/read-all/", views.mark_all_read, name="read_all"),
    path("notifications/settings/", views.notification_settings, name="settings"),
    path(
        "notifications/<int:notification_id>/open/",
        views.open_notification,
        name="open",
    ),
    path("notifications/unsubscribe/<str:token>/", unsubscribe.unsubscribe, name="unsubscribe"),
]
