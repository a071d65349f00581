"""Settings for the whole site, in one module driven by the environment.

Everything has a safe development default, so ``manage.py runserver`` works on a bare
machine (SQLite, in-process channel layer, in-process deadline worker). Production and
the test suite set ``DATABASE_URL`` and ``REDIS_URL`` to use PostgreSQL and Redis.

Environment: SECRET_KEY, DEBUG, ALLOWED_HOSTS (comma-separated), CSRF_TRUSTED_ORIGINS,
DATABASE_URL, DB_CONN_MAX_AGE, REDIS_URL, LOG_LEVEL.
"""

import os
import warnings
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# -- core ----------------------------------------------------------------------------
DEBUG = env_bool("DEBUG", True)
# The fallback key is only good for development; production must set SECRET_KEY.
SECRET_KEY = os.environ.get("SECRET_KEY", "dev-only-insecure-key-change-me-in-production")
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
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from here, not a CDN
    "games",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20}
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
            "CONFIG": {"hosts": [_LAYER_HOST], "capacity": 1000},
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"

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
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# -- API -----------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Forum Mafia API",
    "DESCRIPTION": "Host, play and watch forum-style Mafia games.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# -- i18n / time ---------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
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

# -- security behind a proxy (production sets DEBUG=0) --------------------------------
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
