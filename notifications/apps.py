from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"

    def ready(self) -> None:
        from games import hooks

        from . import bell, fanout, tasks

        # Written with each change's events, in its transaction.
        hooks.on_events(fanout.fan_out_tx)
        hooks.set_teller(fanout.tell)
        hooks.set_bell(bell.bell_frame)
        # No worker in the embedded run: its loop writes the reminders and sends the mail.
        hooks.register_embedded_job(
            hooks.EmbeddedJob(60.0, tasks.send_deadline_reminders, "Deadline reminders")
        )
        hooks.register_embedded_job(hooks.EmbeddedJob(60.0, tasks.run_digests, "E-mail digests"))
