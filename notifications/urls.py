"""The notifications app's pages: the inbox, its settings, the mails' unsubscribe link, the
settings' push buttons, and the web app's service worker and offline page (``pwa``)."""

from django.urls import URLPattern, path

from . import pwa, unsubscribe, views

app_name = "notifications"

urlpatterns: list[URLPattern] = [
    path("notifications/", views.inbox, name="inbox"),
    path("notifications/read-all/", views.mark_all_read, name="read_all"),
    path("notifications/settings/", views.notification_settings, name="settings"),
    path("notifications/push/subscribe/", views.push_subscribe, name="push_subscribe"),
    path("notifications/push/unsubscribe/", views.push_unsubscribe, name="push_unsubscribe"),
    path("sw.js", pwa.service_worker, name="service_worker"),
    path("offline/", pwa.offline, name="offline"),
    path(
        "notifications/<int:notification_id>/open/",
        views.open_notification,
        name="open",
    ),
    path("notifications/unsubscribe/<str:token>/", unsubscribe.unsubscribe, name="unsubscribe"),
]
