"""``manage.py webpush_keys``: a new VAPID key pair for the environment (``push``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from notifications.push import new_key_pair


class Command(BaseCommand):
    help = "Print a new Web Push (VAPID) key pair as environment settings."

    def handle(self, *args: Any, **options: Any) -> None:
        public, private = new_key_pair()
        self.stdout.write(f"WEBPUSH_VAPID_PUBLIC_KEY={public}")
        self.stdout.write(f"WEBPUSH_VAPID_PRIVATE_KEY={private}")
