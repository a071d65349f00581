"""Every change to the models has its migration: ``makemigrations --check`` finds nothing
to write (a model edited without one would migrate nobody's database, and the next
person's ``makemigrations`` would pick up the change in a migration of their own)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_its_migration():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit:  # --check exits 1 when there is something to write
        pytest.fail(f"models changed without a migration:\n{out.getvalue()}")
    assert "No changes detected" in out.getvalue()
