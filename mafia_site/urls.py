"""Top-level URLs: accounts, the admin, the JSON API and the game pages."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from games.views import signup

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/signup/", signup, name="signup"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/v1/", include("games.api.urls")),
    path("", include("games.urls")),
]
