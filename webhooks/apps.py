from functools import partial

from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "webhooks"

    def ready(self) -> None:
        from games import hooks

        from . import delivery, forms, services, views

        hooks.on_announcement(delivery.queue)
        hooks.register_panel("host", views.host_panel)
        hooks.register_host_action("webhook", views.set_from_dashboard)
        hooks.register_host_action("webhook-retry", views.retry_from_dashboard)
        hooks.register_create_field(
            hooks.CreateField("webhook_url", forms.creation_field, services.set_webhook)
        )
        # No worker in the embedded run: its loop sends the posts.
        hooks.register_embedded_job(
            hooks.EmbeddedJob(5.0, partial(delivery.sweep, inline=True), "Webhook posts")
        )
