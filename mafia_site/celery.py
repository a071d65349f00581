"""The Celery app: configured from Django settings (``CELERY_*``), tasks found in the apps."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_site.settings")

app = Celery("mafia_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
