"""The notifications' Celery tasks: the deadline reminders, the e-mail digests, Web Push."""

from __future__ import annotations

from celery import shared_task

from . import mail, push
from .reminders import send_reminders


@shared_task(name="notifications.tasks.send_deadline_reminders", ignore_result=True)
def send_deadline_reminders() -> int:
    """Write the "still missing" reminders now due (beat, each minute); how many told."""
    return send_reminders()


@shared_task(name="notifications.tasks.sweep_digests", ignore_result=True)
def sweep_digests() -> int:
    """Build the due e-mail digests and queue a send for each one to send (beat)."""
    return mail.sweep(send_digest_task.delay)


@shared_task(name="notifications.tasks.send_digest", acks_late=True, ignore_result=True)
def send_digest_task(digest_id: int) -> str:
    """Send one digest, once: ``mail.send_digest`` claims it with a lease."""
    return mail.send_digest(digest_id)


def run_digests() -> int:
    """The embedded run's digest sweep: build and send in this process."""
    return mail.sweep(mail.send_digest)


@shared_task(name=push.SEND_TASK, ignore_result=True)
def send_push(notification_ids: list[int]) -> int:
    """Push these notifications to their people's devices (``push.queue``, after the commit
    that wrote them); how many pushes went out. Not retried: the inbox holds them."""
    return push.deliver(notification_ids)
