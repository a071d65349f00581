"""The notifications' tables now belong to the notifications app (its 0001): the games app
forgets them; the tables stay as they are."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0031_ratings_app"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex(
                    model_name="emaildigest",
                    name="digest_to_send",
                ),
                migrations.RemoveIndex(
                    model_name="notification",
                    name="notification_inbox",
                ),
                migrations.RemoveIndex(
                    model_name="notification",
                    name="notification_mail_pending",
                ),
                migrations.RemoveConstraint(
                    model_name="notification",
                    name="notification_one_unread_per_key",
                ),
                migrations.RemoveField(
                    model_name="emaildigest",
                    name="user",
                ),
                migrations.RemoveField(
                    model_name="notification",
                    name="digest",
                ),
                migrations.RemoveField(
                    model_name="notification",
                    name="game",
                ),
                migrations.RemoveField(
                    model_name="notification",
                    name="user",
                ),
                migrations.DeleteModel(
                    name="NotificationPrefs",
                ),
                migrations.DeleteModel(
                    name="EmailDigest",
                ),
                migrations.DeleteModel(
                    name="Notification",
                ),
            ],
            database_operations=[],
        ),
    ]
