# People's API tokens, hashed (issue 31). Written by hand: only this change's operations.

import hashlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def hash_old_tokens(apps, schema_editor):
    """Each DRF ``Token`` (its key in plain text) becomes a ``PersonToken`` holding only the
    key's SHA-256, so the key keeps working; then the plain-text rows are deleted."""
    Token = apps.get_model("authtoken", "Token")
    PersonToken = apps.get_model("games", "PersonToken")
    for old in Token.objects.all().iterator():
        made = PersonToken.objects.create(
            user_id=old.user_id,
            name="Token from before hashing",
            key_hash=hashlib.sha256(old.key.encode()).hexdigest(),
            prefix=old.key[:8],
        )
        # auto_now_add set it to now: keep when the key was really made.
        PersonToken.objects.filter(pk=made.pk).update(created_at=old.created)
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0020_ratings_tried_at"),
        ("authtoken", "0004_alter_tokenproxy_options"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="PersonToken",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(blank=True, max_length=80)),
                ("key_hash", models.CharField(max_length=64, unique=True)),
                (
                    "prefix",
                    models.CharField(
                        help_text="The key's first characters, to tell it.", max_length=12
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("last_used_at", models.DateTimeField(blank=True, null=True)),
                ("revoked_at", models.DateTimeField(blank=True, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="person_tokens",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={"ordering": ["-created_at", "-pk"]},
        ),
        # Irreversible in effect (the plain keys are gone), so no reverse function.
        migrations.RunPython(hash_old_tokens, migrations.RunPython.noop),
    ]
