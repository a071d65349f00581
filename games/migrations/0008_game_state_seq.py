from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_merge_iso_index_lynch_proof"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="state_seq",
            field=models.PositiveBigIntegerField(default=0),
        ),
        # Existing games: their last event counts as a change of state.
        migrations.RunSQL(
            "UPDATE games_game SET state_seq = event_seq", reverse_sql=migrations.RunSQL.noop
        ),
    ]
