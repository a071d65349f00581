"""docker-compose.yml is the production shape: it must stay valid and match the settings."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_runs_the_whole_stack():
    services = compose()["services"]
    assert {"postgres", "redis", "web", "worker", "beat"} <= set(services)
    assert services["worker"]["command"][:4] == ["celery", "-A", "mafia_site", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "mafia_site", "beat"]
    assert services["web"]["ports"] == ["8000:8000"]


def test_compose_environment_names_are_the_ones_settings_read():
    settings_text = (ROOT / "mafia_site/settings.py").read_text()
    read = set(
        re.findall(r"""(?:environ\.get|env_bool|env_list)\(\s*["'](\w+)["']""", settings_text)
    )
    read |= {"DATABASE_URL"}  # read by dj-database-url
    for name, service in compose()["services"].items():
        for var in service.get("environment", {}):
            if name not in ("postgres", "redis"):
                assert var in read, f"{name} sets {var}, which settings.py never reads"


def test_web_runs_one_asgi_process_per_core():
    dockerfile = (ROOT / "Dockerfile").read_text()
    # mafia_site.serve: uvicorn serving mafia_site.asgi, with the header deadline.
    assert "python -m mafia_site.serve" in dockerfile
    assert "--workers ${WEB_CONCURRENCY:-$(nproc)}" in dockerfile


def test_worker_and_beat_have_health_checks_and_restart():
    services = compose()["services"]
    for name in ("worker", "beat"):
        service = services[name]
        assert service.get("restart", "unless-stopped") in ("unless-stopped", "always")
        test = service["healthcheck"]["test"]
        assert test[0] in ("CMD", "CMD-SHELL") and len(test) > 1
    assert "inspect ping" in services["worker"]["healthcheck"]["test"][1]
    assert "checkdeadlines" in services["beat"]["healthcheck"]["test"]
    assert "--pidfile=" in services["beat"]["command"]
