"""The Celery app: configured from Django settings (``CELERY_*``), tasks found in the apps.

Deadlines run on two layers (see ``games.scheduling``):

* beat runs ``games.tasks.advance_due_phases`` every ``DEADLINE_SCAN_SECONDS`` (default 15 s):
  it finds every running game whose current phase is past its deadline and queues one small
  ``advance_phase_task`` per game. This is the layer that can be trusted with day-long
  phases.
* when a phase opens or its deadline changes and the deadline is near (within
  ``games.scheduling.SHORT_RANGE``), an ``advance_phase_task`` is queued with that ETA, so a
  short phase ends on the second instead of up to one scan late.

ETA tasks stay short-range on purpose: with the Redis broker a worker holds an ETA task
unacknowledged until it runs, and Redis hands any message unacknowledged for longer than the
visibility timeout to another worker. A three-day countdown would be redelivered every hour
(duplicates) and is lost with the worker's memory if Redis is flushed; the beat scan has
neither problem. Ten minutes sits far below the one-hour visibility timeout set here.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mafia_site.settings")

app = Celery("mafia_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

DEADLINE_SCAN_SECONDS = float(os.environ.get("DEADLINE_SCAN_SECONDS", "15"))
WEBHOOK_SWEEP_SECONDS = float(os.environ.get("WEBHOOK_SWEEP_SECONDS", "30"))
# E-mail digests (notifications.mail): built and (re)sent by a sweep each minute.
DIGEST_SCAN_SECONDS = float(os.environ.get("DIGEST_SCAN_SECONDS", "60"))
# League matchmaking (league.services): a join matches at once; this sweep is the
# backstop (a join whose match failed, entries left by a restart).
LEAGUE_SWEEP_SECONDS = float(os.environ.get("LEAGUE_SWEEP_SECONDS", "30"))
BASELINE_TICK_SECONDS = float(os.environ.get("BASELINE_TICK_SECONDS", "10"))

app.conf.beat_schedule = {
    "advance-due-phases": {
        "task": "games.tasks.advance_due_phases",
        "schedule": DEADLINE_SCAN_SECONDS,
        # A scan that waited longer than one interval is stale: the next one replaces it.
        "options": {"expires": max(DEADLINE_SCAN_SECONDS, 5.0)},
    },
    # Numbered vote counts on the games' schedules (Game.vote_count_every, 15 min or more).
    "post-scheduled-vote-counts": {
        "task": "games.tasks.post_scheduled_vote_counts",
        "schedule": 60.0,
        "options": {"expires": 60.0},
    },
    # "Your vote / night action is still missing" N hours before a deadline (issue 20).
    "send-deadline-reminders": {
        "task": "notifications.tasks.send_deadline_reminders",
        "schedule": 60.0,
        "options": {"expires": 60.0},
    },
    # Webhook posts whose delivery task was lost (worker killed, broker outage).
    "sweep-webhooks": {
        "task": "webhooks.tasks.sweep_webhooks",
        "schedule": WEBHOOK_SWEEP_SECONDS,
        "options": {"expires": WEBHOOK_SWEEP_SECONDS},
    },
    "match-league-queues": {
        "task": "league.tasks.match_queues",
        "schedule": LEAGUE_SWEEP_SECONDS,
        "options": {"expires": max(LEAGUE_SWEEP_SECONDS, 5.0)},
    },
    # Rated games whose end could not rate them (ratings.missed).
    "rate-missed-games": {
        "task": "ratings.tasks.rate_missed_games",
        "schedule": 60.0,
        "options": {"expires": 60.0},
    },
    # Mutes and suspensions whose time is up (games.services.moderation).
    "lift-ended-sanctions": {
        "task": "games.tasks.lift_ended_sanctions",
        "schedule": 60.0,
        "options": {"expires": 60.0},
    },
    "sweep-digests": {
        "task": "notifications.tasks.sweep_digests",
        "schedule": DIGEST_SCAN_SECONDS,
        "options": {"expires": max(DIGEST_SCAN_SECONDS, 5.0)},
    },
    # The baseline ladder's agents play their seats (league.baseline).
    "play-baselines": {
        "task": "league.tasks.play_baselines",
        "schedule": BASELINE_TICK_SECONDS,
        "options": {"expires": max(BASELINE_TICK_SECONDS, 5.0)},
    },
}
# Messages unacknowledged this long go to another worker; every ETA task we send is due
# well within it (games.scheduling.SHORT_RANGE), so no task is duplicated by redelivery.
app.conf.broker_transport_options = {
    "visibility_timeout": float(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600"))
}
# Several sites (or test runs) can share one Redis by giving each its own queue.
app.conf.task_default_queue = os.environ.get("CELERY_QUEUE", "celery")
# Never lose a deadline task with a worker killed mid-task: it is acknowledged only after
# it ran and re-queued if the worker process died under it.
app.conf.task_acks_late = True
app.conf.task_reject_on_worker_lost = True
# A game runs for days and Redis will restart in that time: the worker and beat retry the
# broker forever (Celery's default gives up after 100 attempts, and the process exits).
app.conf.broker_connection_retry_on_startup = True
app.conf.broker_connection_retry = True
app.conf.broker_connection_max_retries = None
app.conf.broker_channel_error_retry = True
# Results (only ``advance_phase_task`` keeps one) retry too instead of failing the task.
app.conf.result_backend_always_retry = True
app.conf.result_backend_max_retries = 10
# Celery 6's default: a task running when the broker drops is cancelled and redelivered
# rather than finished unacknowledgeable. A transition is one transaction, so a cancelled
# one is rolled back whole and the redelivery (or the next scan) does it again, once.
app.conf.worker_cancel_long_running_tasks_on_connection_loss = True
