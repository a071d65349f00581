"""The ratings' tables now belong to the ratings app (its 0001): the games app forgets
them; the tables stay as they are."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0030_blind_games"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="ratedgame",
                    name="game",
                ),
                migrations.RemoveIndex(
                    model_name="rating",
                    name="rating_board",
                ),
                migrations.RemoveConstraint(
                    model_name="rating",
                    name="rating_once",
                ),
                migrations.RemoveIndex(
                    model_name="ratingchange",
                    name="rating_history",
                ),
                migrations.RemoveConstraint(
                    model_name="ratingchange",
                    name="rating_change_once",
                ),
                migrations.DeleteModel(
                    name="RatedGame",
                ),
                migrations.RemoveField(
                    model_name="ratingchange",
                    name="game",
                ),
                migrations.RemoveField(
                    model_name="ratingchange",
                    name="slot",
                ),
                migrations.RemoveField(
                    model_name="ratingchange",
                    name="user",
                ),
                migrations.DeleteModel(
                    name="Rating",
                ),
                migrations.DeleteModel(
                    name="RatingChange",
                ),
            ],
            database_operations=[],
        ),
    ]
