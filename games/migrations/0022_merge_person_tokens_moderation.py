# Joins two branches made at the same time (person tokens, moderation): nothing to do.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0021_moderation"),
        ("games", "0021_person_tokens"),
    ]

    operations = []
