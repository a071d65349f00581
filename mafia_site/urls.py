"""Top-level URLs: accounts, the admin, the JSON API and the game pages."""

from allauth.account import views as account_views
from django.contrib import admin
from django.contrib.staticfiles import finders
from django.http import FileResponse, HttpRequest
from django.urls import include, path, re_path
from django.views.decorators.cache import cache_control

from games.api.django_errors import not_found
from games.views import open_data, person_tokens
from games.views.accounts import (
    RateLimitedLoginView,
    RateLimitedSignupView,
    unlock,
    visitor_language,
)
from games.views.accounts import language as account_language
from games.views.health import healthz
from mafia_site.help import manual

# A database or Redis outage outside a view still answers 503 with a message; any other
# error a 500. Under /api/ Django's own error answers are JSON too (games.api.django_errors).
handler500 = "games.outage.server_error"
handler400 = "games.api.django_errors.bad_request"
handler403 = "games.api.django_errors.permission_denied"
handler404 = "games.api.django_errors.page_not_found"
# allauth's own rate limits (reset and verification mail) answer with the site's 429 page.
handler429 = "games.views.accounts.too_many_account_requests"


@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> FileResponse:
    """Browsers ask for /favicon.ico whatever the page links: answer it, not a 404."""
    found = finders.find("img/favicon.ico")
    assert isinstance(found, str)  # static/img/favicon.ico ships with the site
    return FileResponse(open(found, "rb"), content_type="image/x-icon")


urlpatterns = [
    path("favicon.ico", favicon),
    path("healthz", healthz, name="healthz"),
    # The manual (docs/, built by MkDocs into var/help: mafia_site/help.py).
    path("help/", manual, name="help"),
    path("help/<path:path>", manual, name="help_page"),
    path("admin/", admin.site.urls),
    # Accounts: allauth's pages (games.accounts); sign-up and log-in counted by the site's
    # rate limits. The short names are the ones the templates and tests use.
    path("accounts/signup/", RateLimitedSignupView.as_view(), name="signup"),
    path("accounts/login/", RateLimitedLoginView.as_view(), name="login"),
    path("accounts/unlock/<str:key>/", unlock, name="login_unlock"),
    path("accounts/logout/", account_views.logout, name="logout"),
    # A person's API tokens (games.views.person_tokens).
    path("accounts/tokens/", person_tokens.tokens_page, name="person_tokens"),
    # Whether the open data names this person (games.views.open_data).
    path("accounts/open-data/", open_data.open_data, name="open_data"),
    path("accounts/tokens/new/", person_tokens.token_new, name="person_token_new"),
    path(
        "accounts/tokens/<int:token_id>/revoke/",
        person_tokens.token_revoke,
        name="person_token_revoke",
    ),
    # The account's language (games.i18n); a visitor's is a cookie the footer's links set.
    path("accounts/language/", account_language, name="account_language"),
    path("language/<str:code>/", visitor_language, name="visitor_language"),
    path("accounts/", include("allauth.urls")),
    path("api/v1/", include("games.api.urls")),
    path("api/v1/", include("agents.api_urls")),
    path("api/v1/", include("notifications.api_urls")),
    path("api/v1/", include("ratings.api_urls")),
    path("api/v1/", include("analytics.api_urls")),
    path("api/v1/", include("league.api_urls")),
    path("api/v1/", include("webhooks.api_urls")),
    # Anything else under /api/ (a game id that is not a number, another version...) is the
    # API's JSON 404, whatever the method.
    re_path(r"^api(/|$)", not_found),
    path("", include("games.urls")),
    path("", include("agents.urls")),
    path("", include("notifications.urls")),
    path("", include("ratings.urls")),
    path("", include("analytics.urls")),
    path("", include("league.urls")),
]
