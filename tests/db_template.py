"""Each test worker's database is a copy of one migrated once, not migrated again.

pytest-django migrates a fresh database for every xdist worker, every run: with 40-odd
migrations that is the first test's setup on each worker (13 s on SQLite, far more on a
loaded PostgreSQL), paid four times per lane and again for every quick loop. Here the first
worker to come migrates a template, named after a digest of every migration file (so a new
or changed migration makes a new one, and a run never meets a stale schema); every worker
then copies it: PostgreSQL's ``CREATE DATABASE ... TEMPLATE``, a file copy on SQLite. The
template stays for the next run with the same migrations; an older one is dropped when a
new one is made.
"""

from __future__ import annotations

import fcntl
import hashlib
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import django

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE_MARK = "_tpl_"


def migrations_digest() -> str:
    digest = hashlib.sha256(django.__version__.encode())
    for path in sorted(ROOT.glob("*/migrations/*.py")):
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@contextmanager
def _held(name: str) -> Iterator[None]:
    """One worker at a time makes (or checks) the template; the others wait for it."""
    lock = Path(tempfile.gettempdir()) / f"mafia-test-template-{name}.lock"
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _migrate_into(connection: Any, name: str) -> None:
    """Make database ``name`` and migrate it, with Django's own test-database making (the
    same schema a test database gets), then point the connection back where it was."""
    from django.conf import settings

    settings_dict = connection.settings_dict
    saved = (settings_dict["NAME"], settings_dict["TEST"].get("NAME"))
    settings_dict["TEST"]["NAME"] = name
    try:
        connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    finally:
        connection.close()
        settings_dict["NAME"] = saved[0]
        settings.DATABASES[connection.alias]["NAME"] = saved[0]
        settings_dict["TEST"]["NAME"] = saved[1]


def _postgres_copy(connection: Any, test_name: str, template: str, shared: str) -> None:
    quote = connection.ops.quote_name
    with _held(Path(template).name):
        with connection._nodb_cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template])
            made = cursor.fetchone() is not None
        if not made:
            _migrate_into(connection, template)
            like = shared.replace("_", r"\_") + TEMPLATE_MARK.replace("_", r"\_") + "%"
            with connection._nodb_cursor() as cursor:  # the older templates go
                cursor.execute(
                    "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s",
                    [like, template],
                )
                for (old,) in cursor.fetchall():
                    cursor.execute(f"DROP DATABASE IF EXISTS {quote(old)} WITH (FORCE)")
        with connection._nodb_cursor() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {quote(test_name)} WITH (FORCE)")
            cursor.execute(f"CREATE DATABASE {quote(test_name)} TEMPLATE {quote(template)}")


def _sqlite_copy(connection: Any, test_name: str, template: str, shared: str) -> None:
    made = Path(template)
    with _held(made.name):
        if not made.exists():
            _migrate_into(connection, template)
            for old in made.parent.glob(f"{Path(shared).name}{TEMPLATE_MARK}*"):
                if old != made:
                    old.unlink(missing_ok=True)
        for suffix in ("", "-wal", "-shm"):  # nothing of an earlier run's copy
            Path(f"{test_name}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(made, test_name)


def _names(test_name: str) -> tuple[str, str]:
    """(the workers' common name, the template's). pytest-django names each worker's
    database with a suffix (``_gw0``): the template is named without it, so that the
    workers share one."""
    shared = re.sub(r"_gw\d+$", "", test_name)
    return shared, f"{shared}{TEMPLATE_MARK}{migrations_digest()}"


def postgres_template() -> str:
    """The migrated template's name, for a database of a server's own (the browser tests'
    stack) to start as a copy of; ``django_db_setup`` has made it by then."""
    from django.db import connection

    return _names(connection.settings_dict["NAME"])[1]  # the test database's, by now


def copy_of_the_template() -> bool:
    """Give this worker's test database the migrated template's schema; False where it
    cannot (an in-memory SQLite database): Django then makes and migrates one as usual."""
    from django.db import connection

    test_name = connection.creation._get_test_db_name()
    shared, template = _names(test_name)
    if connection.vendor == "postgresql":
        _postgres_copy(connection, test_name, template, shared)
        return True
    if connection.vendor == "sqlite" and not connection.creation.is_in_memory_db(test_name):
        _sqlite_copy(connection, test_name, template, shared)
        return True
    return False
