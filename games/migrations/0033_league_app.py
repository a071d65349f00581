"""The league's queues now belong to the league app (its 0003): the games app forgets
them; the tables stay as they are."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0032_notifications_app"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="LeagueQueueEntry"),
                migrations.DeleteModel(name="LeagueQueueState"),
            ],
            database_operations=[],
        ),
    ]
