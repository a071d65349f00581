"""Safe defaults: DEBUG is off unless asked for, there is no public SECRET_KEY to fall back
on when it is off, ``check --deploy`` is clean with the production settings, and every
page carries a content security policy."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETUP = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"


def run(code_or_args: str | list[str], **env: str) -> subprocess.CompletedProcess:
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "HTTPS", "EMAIL_HOST")
    }
    base["DJANGO_SETTINGS_MODULE"] = "mafia_site.settings"
    args = code_or_args if isinstance(code_or_args, list) else ["-c", code_or_args]
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_debug_is_off_unless_asked_for():
    done = run(SETUP, SECRET_KEY=secrets.token_hex(32))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
    assert run(SETUP, DEBUG="true").stdout.strip() == "True"  # the development run


@pytest.mark.parametrize(
    "key",
    [None, "", "dev-only-insecure-key-change-me-in-production", "short", "a" * 60],
)
def test_without_debug_the_site_refuses_to_start_without_a_real_key(key):
    env = {"DEBUG": "false"} if key is None else {"DEBUG": "false", "SECRET_KEY": key}
    done = run(SETUP, **env)
    assert done.returncode != 0
    assert "SECRET_KEY" in done.stderr and "ImproperlyConfigured" in done.stderr


def _deploy_check(**env: str) -> subprocess.CompletedProcess:
    return run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        DEBUG="false",
        SECRET_KEY=secrets.token_hex(32),
        ALLOWED_HOSTS="mafia.example.org",
        **env,
    )


@pytest.mark.slow
def test_check_deploy_is_clean_with_the_production_settings():
    done = _deploy_check(EMAIL_HOST="smtp.example.org")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


@pytest.mark.slow
def test_check_deploy_says_a_production_site_without_smtp_sends_no_mail():
    # Without EMAIL_HOST, mail is written as files (the embedded run): fine on a laptop,
    # but a production site would never reach anyone, and the operator is told so.
    done = _deploy_check()
    assert done.returncode != 0
    assert "mail.E001" in done.stdout + done.stderr


def test_compose_has_no_default_key():
    compose = (ROOT / "docker-compose.yml").read_text()
    line = next(x for x in compose.splitlines() if "SECRET_KEY:" in x)
    assert re.search(r"\$\{SECRET_KEY:\?", line), line


@pytest.mark.django_db
def test_pages_and_the_api_carry_a_content_security_policy(client):
    for url in ("/", "/accounts/login/", "/api/v1/games/", "/api/v1/docs/"):
        response = client.get(url)
        assert response.status_code == 200, url
        policy = response["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy, url
        assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy, url
    docs = client.get("/api/v1/docs/").content.decode()
    assert not re.search(r"<script>(?!\s*</script>)", docs)  # no inline script to block


def test_webhooks_on_private_addresses_are_refused_in_production():
    code = SETUP.replace("print(settings.DEBUG)", "print(settings.WEBHOOK_ALLOW_PRIVATE)")
    done = run(code, SECRET_KEY=secrets.token_hex(32))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
    assert run(code, DEBUG="true").stdout.strip() == "True"  # the development run
