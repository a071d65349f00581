from django.urls import path

from . import api

urlpatterns = [
    path("notifications/", api.NotificationsView.as_view(), name="api-notifications"),
    path("notifications/read/", api.MarkReadView.as_view(), name="api-notifications-read"),
    path(
        "notifications/settings/",
        api.NotificationSettingsView.as_view(),
        name="api-notification-settings",
    ),
]
