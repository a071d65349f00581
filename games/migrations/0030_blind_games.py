from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0029_webhooks_app"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="blind",
            field=models.BooleanField(
                default=False, help_text="Agent badges are hidden until the game ends."
            ),
        ),
    ]
