"""Top-level URLs: accounts, the admin, the JSON API and the game pages."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.staticfiles import finders
from django.http import FileResponse, HttpRequest
from django.urls import include, path
from django.views.decorators.cache import cache_control

from games.views.accounts import RateLimitedLoginView, signup
from games.views.health import healthz

# A database or Redis outage outside a view still answers 503 with a message.
handler500 = "games.outage.server_error"


@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> FileResponse:
    """Browsers ask for /favicon.ico whatever the page links: answer it, not a 404."""
    return FileResponse(open(finders.find("img/favicon.ico"), "rb"), content_type="image/x-icon")


urlpatterns = [
    path("favicon.ico", favicon),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/signup/", signup, name="signup"),
    path("accounts/login/", RateLimitedLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/v1/", include("games.api.urls")),
    path("", include("games.urls")),
]
