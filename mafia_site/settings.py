"""Settings for the whole site, in one module driven by the environment.

Everything has a safe development default, so ``manage.py runserver`` works on a bare
machine (SQLite, in-process channel layer, in-process deadline worker). Production and
the test suite set ``DATABASE_URL`` and ``REDIS_URL`` to use PostgreSQL and Redis.

Environment: SECRET_KEY, DEBUG, ALLOWED_HOSTS (comma-separated), CSRF_TRUSTED_ORIGINS,
DATABASE_URL, DB_CONN_MAX_AGE, DB_POOL_SIZE, LIVE_DB_THREADS, LIVE_HANDSHAKES_AT_ONCE,
REDIS_URL, LOG_LEVEL, FORWARDED_ALLOW_IPS, EMAIL_HOST (and the other EMAIL_* settings), MAIL_DIR,
DEFAULT_FROM_EMAIL, SITE_URL, WEBHOOK_ALLOW_PRIVATE, WEBHOOK_RETRY_SECONDS, WEBHOOK_TIMEOUT,
DIGEST_LEASE_SECONDS, DIGEST_RETRY_SECONDS, DIGEST_MAX_ATTEMPTS, WEBPUSH_VAPID_PUBLIC_KEY,
WEBPUSH_VAPID_PRIVATE_KEY, WEBPUSH_VAPID_SUBJECT, WEBPUSH_TIMEOUT, WEBPUSH_KEY_FILE.
"""

import os
import warnings
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# -- core ----------------------------------------------------------------------------
# Off unless asked for (scripts/run.sh asks, for the embedded development run): a forgotten
# variable must not put tracebacks and settings on a public site.
DEBUG = env_bool("DEBUG", False)
DEV_SECRET_KEY = "dev-only-insecure-key-change-me-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        # A public constant would let anyone forge sessions and password-reset links.
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set it to a long random value (openssl rand -hex 32), "
            "or set DEBUG=true for a development run."
        )
    SECRET_KEY = DEV_SECRET_KEY
elif not DEBUG and (
    SECRET_KEY == DEV_SECRET_KEY or len(set(SECRET_KEY)) < 5 or len(SECRET_KEY) < 50
):
    raise ImproperlyConfigured(
        "SECRET_KEY is too weak for DEBUG=false: use at least 50 random characters "
        "(openssl rand -hex 32)."
    )
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver,[::1]")
CSRF_TRUSTED_ORIGINS = env_list(
    "CSRF_TRUSTED_ORIGINS", "http://127.0.0.1:8000,http://localhost:8000"
)

INSTALLED_APPS = [
    "daphne",  # first: its runserver replaces Django's with an ASGI one
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    # Its table only: games' migration 0021 hashed its plain-text keys into PersonToken and
    # emptied it; nothing signs in with it (games.api_tokens).
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from here, not a CDN
    # Accounts: sign-up, log-in, e-mail addresses with verification, password reset
    # (django-allauth's account app; no social login).
    "allauth",
    "allauth.account",
    "games",
    # Side domains: each reads the games core; the core imports none of them
    # (tests/test_import_layers.py).
    "agents",
    "notifications",
    "ratings",  # first of them with a part of the player's page: it comes first
    "analytics",
    "league",
    "webhooks",
]

MIDDLEWARE = [
    "mafia_site.guards.RequestLimitsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # A database or Redis outage in a view answers 503 with a message (games.outage).
    "games.outage.OutageMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The browser's language (Accept-Language, or the language cookie); an account's own
    # choice replaces it once the person is known (games.i18n.AccountLanguageMiddleware).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "games.i18n.AccountLanguageMiddleware",
    # A signed-in person's answers: Cache-Control private, no-store (mafia_site.personal).
    "mafia_site.personal.PersonalAnswersMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "mafia_site.urls"
WSGI_APPLICATION = "mafia_site.wsgi.application"
ASGI_APPLICATION = "mafia_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "notifications.context_processors.bell",
            ],
        },
    },
]

# -- database ------------------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite ignores SELECT ... FOR UPDATE; IMMEDIATE transactions take the write lock at
    # BEGIN instead, so the embedded setup still serialises state changes. Persistent
    # connections would keep that lock across threads, so close them after each request.
    # WAL: readers go on while one transaction writes (the rollback journal locked them
    # out: "database is locked" on reads under a league's load), and a commit is one
    # append. synchronous=NORMAL survives a crash of the process; a power cut may lose the
    # last commits, which the embedded setup (trying the site, a few agents) accepts.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # Tests on SQLite use a file beside the database, as the site does (an in-memory test
    # database shares one cache between threads, whose locks fail at once instead of
    # waiting out the timeout below).
    _sqlite_name = Path(str(DATABASES["default"]["NAME"]))
    if str(_sqlite_name) != ":memory:":
        DATABASES["default"].setdefault("TEST", {}).setdefault(
            "NAME", str(_sqlite_name.with_name(f"test_{_sqlite_name.name}"))
        )
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

# Under ASGI every concurrent request runs in a thread of its own with its own connection,
# so 50 players voting at once opened 50+ PostgreSQL connections and met "too many
# clients". DB_POOL_SIZE bounds them with psycopg's pool: a request waits (up to
# DB_POOL_TIMEOUT seconds) for a free connection instead of failing.
_POOL_SIZE = int(os.environ.get("DB_POOL_SIZE", "0"))
if _POOL_SIZE and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps them; Django must not
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = False
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": _POOL_SIZE,
        "timeout": float(os.environ.get("DB_POOL_TIMEOUT", "20")),
        # A connection cut by a PostgreSQL restart is found and replaced, not handed out.
        "check": __import__("psycopg_pool").ConnectionPool.check_connection,
    }

# The websockets' database calls (the session's user, a game's audiences, the catch-up, the
# bell...) run on this many threads per process (``games.socket_db``), each holding at most
# one connection: under uvicorn they all queued on one thread, and handshakes passed their
# timeout when many sockets (re)connected at once. With DB_POOL_SIZE: half the pool by
# default, so that pages still find a connection while a crowd of sockets uses theirs.
LIVE_DB_THREADS = int(
    os.environ.get("LIVE_DB_THREADS", min(8, max(1, _POOL_SIZE // 2)) if _POOL_SIZE else 8)
)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# -- live layer: Redis when configured, in-process otherwise ---------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
# True on a bare machine: the channel layer lives in memory and the live-layer code runs
# deadlines in the web process instead of a separate Celery worker.
EMBEDDED_SERVICES = not REDIS_URL

if REDIS_URL:
    # Redis pub/sub by default: a third of the core layer's send cost and a fifth of its
    # Redis CPU per message (BENCHMARKS.md, "Live updates"); the live layer's sequence
    # numbers make up for pub/sub delivering at most once.
    _LAYER = os.environ.get(
        "CHANNEL_LAYER_BACKEND", "channels_redis.pubsub.RedisPubSubChannelLayer"
    )
    _LAYER_HOST: dict = {"address": REDIS_URL}
    if _LAYER.endswith("core.RedisChannelLayer"):
        # redis-py 8 reads with a 5 s socket timeout by default, which breaks the core
        # layer's blocking 5 s BZPOPMIN (channels_redis issue 422): let Redis time it.
        _LAYER_HOST["socket_timeout"] = None
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": _LAYER,
            # Redis pub/sub channels ignore the database number: two sites (or test runs)
            # on one Redis server need different prefixes, or they hear each other's games.
            "CONFIG": {
                "hosts": [_LAYER_HOST],
                "capacity": 1000,
                "prefix": os.environ.get("CHANNEL_LAYER_PREFIX", "asgi"),
            },
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    # kombu's Redis transport, mended so a worker survives a Redis outage (the module says how).
    CELERY_BROKER_TRANSPORT = "mafia_site.redis_broker:Transport"
    CELERY_RESULT_BACKEND = REDIS_URL
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"

# The cache holds the rate limits' counts: shared through Redis by every web process when
# there is one, in this process's memory in the embedded single-process run.
if REDIS_URL:
    CACHES = {
        "default": {
            # Django's, with one connection pool per process (mafia_site.redis_cache).
            "BACKEND": "mafia_site.redis_cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": f"mafia:{DATABASES['default'].get('NAME', '')}",
            # A Redis that is away fails a count at once instead of holding the request
            # (the rate limits then let it through: games.ratelimit).
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# The web process's deadline watchdog (games.deadlines): every N seconds it ends phases
# overdue by more than the grace, in case the Celery worker or beat is down. 0 turns it off.
DEADLINE_WATCHDOG_SECONDS = float(os.environ.get("DEADLINE_WATCHDOG_SECONDS", "5"))
DEADLINE_WATCHDOG_GRACE = float(os.environ.get("DEADLINE_WATCHDOG_GRACE", "25"))

CELERY_TASK_ALWAYS_EAGER = False
CELERY_TIMEZONE = "UTC"
CELERY_TASK_ACKS_LATE = True  # a killed worker's task is redelivered, not lost
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]

# -- auth ----------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]


def rate_limits(spec: str) -> dict[str, tuple[int, int]]:
    """``scope=requests/seconds`` pairs (``post=20/60,vote=30/60``)."""
    limits = {}
    for pair in filter(None, (p.strip() for p in spec.split(","))):
        scope, _, rate = pair.partition("=")
        count, _, seconds = rate.partition("/")
        limits[scope.strip()] = (int(count), int(seconds or 60))
    return limits


# Connection limits (mafia_site.serve, mafia_site.socket_limits): a request's headers must
# arrive within this many seconds; a signed-in person (or an agent, by its token) may hold
# this many websockets per web process wherever they connect from, and anonymous pages this
# many per client address (larger: a household, a campus or a NAT shares one address).
HTTP_HEADER_TIMEOUT = float(os.environ.get("HTTP_HEADER_TIMEOUT", "10"))
LIVE_SOCKETS_PER_PERSON = int(os.environ.get("LIVE_SOCKETS_PER_PERSON", "30"))
LIVE_SOCKETS_PER_ADDRESS_ANONYMOUS = int(
    os.environ.get("LIVE_SOCKETS_PER_ADDRESS_ANONYMOUS", "200")
)
# Websocket handshakes under way at once in one web process (mafia_site.socket_limits): the
# next is told to try again (close 4503, HTTP 503 for an API client) before any database
# call, so a storm of connects cannot starve the pages and votes beside it. Four per
# sockets' database thread: each handshake makes a few calls there. 0: no cap.
LIVE_HANDSHAKES_AT_ONCE = int(os.environ.get("LIVE_HANDSHAKES_AT_ONCE", str(4 * LIVE_DB_THREADS)))
# Whose X-Forwarded-For and X-Forwarded-Proto the web server believes (mafia_site.serve):
# the proxy's. A request from one of these addresses counts as coming from the address the
# header names (the rate limits, the anonymous socket cap above); from anywhere else the
# header is ignored. Comma-separated addresses and networks (CIDR); docker-compose.yml lists
# the private networks its proxy's container gets an address in.
FORWARDED_ALLOW_IPS = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")

# Rate limits (games.ratelimit): on unless RATE_LIMITS=off; RATE_LIMITS="post=40/60" changes
# one scope's limit and keeps the others' defaults.
_RATE_SPEC = os.environ.get("RATE_LIMITS", "")
RATE_LIMITS_ENABLED = _RATE_SPEC.strip().lower() not in {"off", "0", "false", "no"}
RATE_LIMITS = rate_limits(_RATE_SPEC) if RATE_LIMITS_ENABLED else {}


def league_timing(spec: str) -> dict[str, int]:
    """``name=seconds`` pairs (``night_length=20,turn_length=30``)."""
    timing = {}
    for pair in filter(None, (p.strip() for p in spec.split(","))):
        name, _, seconds = pair.partition("=")
        timing[name.strip()] = int(seconds)
    return timing


# League timing (league.formats): LEAGUE_TIMING="night_length=20" shortens the league's
# nights (a bots' league server, the league benchmark); names as the game settings'.
LEAGUE_TIMING = league_timing(os.environ.get("LEAGUE_TIMING", ""))
# Hours after a modkill for inactivity during which the player may not join a league queue
# (games.reads.reliability); 0 turns the cooldown off.
LEAGUE_COOLDOWN_AFTER_MODKILL = float(os.environ.get("LEAGUE_COOLDOWN_AFTER_MODKILL", "72"))
# Blind league queues (league.formats, issue 34): LEAGUE_BLIND="forum-vanilla,forum-cop-nine"
# (setup slugs) or "all" (every forum setup); their games hide which seats are agents until the end.
LEAGUE_BLIND = os.environ.get("LEAGUE_BLIND", "")

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# Accounts (django-allauth, games.accounts). A name and a password make an account; an
# e-mail address is optional (bots and API agents need none) but verified by a link when
# given, and only a verified address is ever sent notifications (games.accounts
# .verified_email). Log in by name or by address. Links in its mail are built from the
# request.
AUTHENTICATION_BACKENDS = [
    # Every password log-in: one password hash whether or not the account exists.
    "games.accounts.LoginBackend",
    # Never reached by a password (the first ends every attempt): listed so sessions
    # signed in through them before stay signed in.
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
ACCOUNT_ADAPTER = "games.accounts.AccountAdapter"
ACCOUNT_FORMS = {
    "login": "games.forms.LoginForm",
    "signup": "games.forms.SignUpForm",
    "add_email": "games.forms.AddEmailForm",
    "change_password": "games.forms.ChangePasswordForm",
    "set_password": "games.forms.SetPasswordForm",
    "reset_password": "games.forms.ResetPasswordForm",
    "reset_password_from_key": "games.forms.ResetPasswordKeyForm",
}
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "optional"
ACCOUNT_UNIQUE_EMAIL = True
# Sign-up and adding an address answer alike whether the address is anyone's: with
# verification optional, allauth can hide it only by letting another account hold the
# address unverified ("strict"; True still answers "already registered"). A verified
# address stays one account's (UNIQUE_EMAIL): the second account's link cannot verify it.
ACCOUNT_PREVENT_ENUMERATION = "strict"
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Forum Mafia] "
ACCOUNT_SESSION_REMEMBER = True  # as the old login did: no "remember me" box
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_LOGIN_ON_PASSWORD_RESET = False
ACCOUNT_EMAIL_CONFIRMATION_AUTHENTICATED_REDIRECT_URL = "/accounts/email/"
# A logged-in person who opens the log-in or sign-up page sees it (as before), not a
# redirect.
ACCOUNT_AUTHENTICATED_LOGIN_REDIRECTS = False
# games.ratelimit counts logins and sign-ups (its 429 page, its RATE_LIMITS setting);
# allauth's own limits stay on the mail it sends (reset, verification) and the account
# pages, and go with RATE_LIMITS=off.
ACCOUNT_RATE_LIMITS = (
    {"login": False, "login_failed": False, "signup": False} if RATE_LIMITS_ENABLED else False
)

# -- e-mail ---------------------------------------------------------------------------
# Production sends through the SMTP server in EMAIL_HOST (EMAIL_PORT, EMAIL_HOST_USER,
# EMAIL_HOST_PASSWORD, EMAIL_USE_TLS / EMAIL_USE_SSL). Without one, mail is written as
# files under MAIL_DIR (var/mail by default) where a newcomer can read it.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
if EMAIL_HOST:
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": EMAIL_HOST,
                "port": int(os.environ.get("EMAIL_PORT", "25")),
                "username": os.environ.get("EMAIL_HOST_USER", ""),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env_bool("EMAIL_USE_TLS", False),
                "use_ssl": env_bool("EMAIL_USE_SSL", False),
                # An unreachable server fails the send (to be retried), not hold a worker.
                "timeout": float(os.environ.get("EMAIL_TIMEOUT", "10")),
            },
        }
    }
else:
    MAIL_DIR = os.environ.get("MAIL_DIR", str(BASE_DIR / "var" / "mail"))
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "OPTIONS": {"file_path": MAIL_DIR},
        }
    }
del EMAIL_HOST  # Django 6.1 reads MAILERS; its EMAIL_* settings are deprecated
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Forum Mafia <mafia@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# The site's address as people reach it: links in e-mails and webhooks are built on it.
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# E-mail digests (notifications.mail): a sending worker's lease (longer than a send
# can take), the first retry's wait after an SMTP error (doubling, at most an hour), and
# the attempts before a digest is given up as failed.
DIGEST_LEASE_SECONDS = float(os.environ.get("DIGEST_LEASE_SECONDS", "300"))
DIGEST_RETRY_SECONDS = float(os.environ.get("DIGEST_RETRY_SECONDS", "60"))
DIGEST_MAX_ATTEMPTS = int(os.environ.get("DIGEST_MAX_ATTEMPTS", "12"))

# -- Webhooks (the webhooks app): the host's Discord/Slack webhook gets the announcements ----
# A webhook on a private or loopback address would let a host make the server call its own
# network: refused in production, allowed in a development run (and by the tests).
WEBHOOK_ALLOW_PRIVATE = env_bool("WEBHOOK_ALLOW_PRIVATE", DEBUG)
# Seconds to wait before each retry of a failed delivery: 5 attempts over ~15 minutes.
WEBHOOK_RETRY_SECONDS = [
    float(x) for x in os.environ.get("WEBHOOK_RETRY_SECONDS", "15,60,240,600").split(",") if x
]
# One POST may take this long: a slow chat server holds a worker, never a game.
WEBHOOK_TIMEOUT = float(os.environ.get("WEBHOOK_TIMEOUT", "5"))

# -- Web Push (notifications.push): the site's VAPID key pair and contact -------------------
# Make a pair with ``manage.py webpush_keys``. Unset in production: no push (the settings page
# says so). Unset in a development or embedded run: a pair is made once and kept in
# WEBPUSH_KEY_FILE, so the demo's phones get their turn too.
WEBPUSH_VAPID_PUBLIC_KEY = os.environ.get("WEBPUSH_VAPID_PUBLIC_KEY", "")
WEBPUSH_VAPID_PRIVATE_KEY = os.environ.get("WEBPUSH_VAPID_PRIVATE_KEY", "")
# Who the push services may contact about this site's pushes: mailto: or https: URL.
WEBPUSH_VAPID_SUBJECT = os.environ.get("WEBPUSH_VAPID_SUBJECT", "mailto:mafia@localhost")
_db_file = Path(str(DATABASES["default"].get("NAME") or ""))
WEBPUSH_KEY_FILE: Path | None = (
    Path(os.environ["WEBPUSH_KEY_FILE"])  # scripts/run.sh's, whatever the services
    if os.environ.get("WEBPUSH_KEY_FILE")
    else (_db_file.parent if _db_file.is_absolute() else BASE_DIR / "var") / "webpush-vapid.json"
    if DEBUG or EMBEDDED_SERVICES
    else None
)
del _db_file
# One push may take this long: a slow push service holds a worker, never a game.
WEBPUSH_TIMEOUT = float(os.environ.get("WEBPUSH_TIMEOUT", "5"))

# -- API -----------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "games.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # The API speaks JSON, both ways, as its OpenAPI document says (no HTML browsable API,
    # no form bodies: those cannot carry nulls, lists or objects; the token exchange alone
    # also takes a form).
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # DRF's JSON parser, with nesting bounded (a body 3,000 levels deep answered 500).
    "DEFAULT_PARSER_CLASSES": ["games.api.parsers.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Forum Mafia API",
    "DESCRIPTION": "Host, play and watch forum-style Mafia games.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Request bodies get their own components, so non-blank text is marked (minLength 1).
    "COMPONENT_SPLIT_REQUEST": True,
    # One enum for every kind's channel in the notification settings (not one per kind).
    "ENUM_NAME_OVERRIDES": {
        "NotificationChannelEnum": "notifications.kinds.CHANNEL_CHOICES",
        "CoHostKindEnum": "games.models.CoHostKind",
        # Two "status" fields with different choices: each named after its own.
        "GameStatusEnum": "games.models.GameStatus",
        "SeriesStatusEnum": "league.models.SeriesStatus",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.docs.postprocess",
    ],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# -- i18n / time ---------------------------------------------------------------------
# Every player-facing string goes through Django's translation machinery (games.i18n says
# whose language applies where). English is the source language; the catalogues are in
# locale/ (scripts/i18n.py makes and compiles them).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("ru", "Русский")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# A visitor's choice in the footer (games.views.accounts.visitor_language) lasts a year.
LANGUAGE_COOKIE_AGE = 365 * 86400
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# -- static files --------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Until collectstatic runs, WhiteNoise serves through the finders and need not warn.
warnings.filterwarnings("ignore", message="No directory at", module="whitenoise.base")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # No manifest: pages render without a prior collectstatic (dev and tests).
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# -- security --------------------------------------------------------------------------
# A content security policy: scripts, styles, sockets and forms from this site only (the
# pages have no inline script or style; post images may come from https URLs).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:", "https:"],
    "connect-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# Under /api/ a CSRF failure is JSON like every other answer there.
CSRF_FAILURE_VIEW = "games.api.django_errors.csrf_failure"

# Production (DEBUG off) is served over HTTPS behind a proxy that sets X-Forwarded-Proto:
# redirect plain HTTP, send HSTS, mark the cookies secure. HTTPS=false turns that off to
# try the production shape on http://localhost (``check --deploy`` then warns, rightly).
HTTPS = env_bool("HTTPS", not DEBUG)
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
if HTTPS:
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz/?$"]  # the orchestrator probes over plain HTTP
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(30 * 86400)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"refusal_without_traceback": {"()": "mafia_site.logs.RefusalWithoutTraceback"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.request": {"filters": ["refusal_without_traceback"]}},
}
