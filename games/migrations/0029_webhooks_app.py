"""The chat webhook's tables now belong to the webhooks app (its 0001): the games app
forgets them; the tables stay as they are."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0028_agent_provenance"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="gamewebhook",
                    name="game",
                ),
                migrations.RemoveIndex(
                    model_name="webhookdelivery",
                    name="webhook_pending",
                ),
                migrations.RemoveIndex(
                    model_name="webhookdelivery",
                    name="webhook_game_queue",
                ),
                migrations.DeleteModel(
                    name="GameWebhook",
                ),
                migrations.DeleteModel(
                    name="WebhookDelivery",
                ),
            ],
            database_operations=[],
        ),
    ]
