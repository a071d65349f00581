"""docker-compose.yml is the production shape: it must stay valid and match the settings."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "deploy/nginx/templates/default.conf.template"


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_runs_the_whole_stack():
    services = compose()["services"]
    assert {"postgres", "redis", "proxy", "web", "worker", "beat"} <= set(services)
    assert services["worker"]["command"][:4] == ["celery", "-A", "mafia_site", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "mafia_site", "beat"]
    # The proxy is the only way in.
    assert services["proxy"]["ports"] == ["8000:8000"]
    assert [name for name, service in services.items() if "ports" in service] == ["proxy"]


def test_web_and_workers_scale_out_and_beat_stays_one():
    services = compose()["services"]
    web = services["web"]
    # Compose runs any number of web replicas: no host port, no fixed container name.
    assert "ports" not in web and "container_name" not in web
    assert web["deploy"]["replicas"] == "${WEB_REPLICAS:-2}"
    assert services["worker"]["deploy"]["replicas"] == "${WORKER_REPLICAS:-1}"
    assert "container_name" not in services["worker"]
    # Celery beat has no lock: one, always (docker-compose.yml says why).
    assert services["beat"]["deploy"]["replicas"] == 1


def test_web_replicas_have_a_health_check_on_healthz():
    web = compose()["services"]["web"]
    assert web["healthcheck"]["test"] == ["CMD", "python", "-m", "mafia_site.healthcheck"]
    assert '"/healthz"' in (ROOT / "mafia_site/healthcheck.py").read_text()
    # The proxy starts once the replicas answer /healthz.
    assert compose()["services"]["proxy"]["depends_on"]["web"]["condition"] == "service_healthy"


def test_the_health_check_asks_with_a_host_the_site_allows():
    from mafia_site.healthcheck import probe_host

    assert probe_host(["mafia.example.org", "localhost"]) == "mafia.example.org"
    assert probe_host([".example.org"]) == "example.org"  # the domain and its subdomains
    assert probe_host(["*"]) == "localhost"
    assert probe_host(["[::1]"]) == "[::1]"


def test_the_proxy_runs_the_repos_nginx_config():
    proxy = compose()["services"]["proxy"]
    image, _, version = proxy["image"].partition(":")
    assert image == "nginx"
    # "resolve" on an upstream server (new replicas found by DNS) came to nginx in 1.27.3.
    assert tuple(int(part) for part in version.split(".")) >= (1, 28)
    assert proxy["volumes"] == ["./deploy/nginx/templates:/etc/nginx/templates:ro"]
    assert TEMPLATE.exists()
    # The image's entrypoint renders the template with these names, and only these.
    env = proxy["environment"]
    assert set(re.findall(r"\$\{(\w+)\}", TEMPLATE.read_text())) == {"PROXY_LISTEN", "WEB_UPSTREAM"}
    assert env["PROXY_LISTEN"] == proxy["ports"][0].split(":")[1]
    assert env["WEB_UPSTREAM"] == "web:8000 resolve"
    assert all(
        re.search(env["NGINX_ENVSUBST_FILTER"], name) for name in ("PROXY_LISTEN", "WEB_UPSTREAM")
    )
    assert not re.search(env["NGINX_ENVSUBST_FILTER"], "HOSTNAME")
    assert "/proxy-health" in proxy["healthcheck"]["test"][-1]
    assert "location = /proxy-health" in TEMPLATE.read_text()


def nginx_block(text: str, opening: str) -> str:
    start = text.index(opening + " {")
    return text[start : text.index("\n    }", start)]


def test_the_proxy_upgrades_websockets_and_forwards_the_client():
    text = TEMPLATE.read_text()
    directives = [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]
    for directive in (
        "proxy_http_version 1.1;",
        "proxy_set_header Upgrade $http_upgrade;",
        "proxy_set_header Connection $connection_upgrade;",
        # Replaced, never appended to: a client cannot choose the address it is counted as.
        "proxy_set_header X-Forwarded-For $remote_addr;",
        "proxy_set_header X-Forwarded-Proto $forwarded_proto;",
        # With its port: the websocket origin check compares the whole origin.
        "proxy_set_header Host $http_host;",
    ):
        assert directive in directives, directive
    assert "map $http_upgrade $connection_upgrade {" in directives
    # Sockets sit idle for hours.
    assert "proxy_read_timeout 24h;" in nginx_block(text, "location /ws/")
    # Passive health, and retries that never send a POST twice.
    assert re.search(r"server \$\{WEB_UPSTREAM\} max_fails=\d+ fail_timeout=\d+s;", text)
    assert "proxy_next_upstream error timeout;" in directives
    assert "non_idempotent" not in "\n".join(directives)


def test_the_proxy_takes_bodies_as_large_as_django_does():
    from django.conf import settings

    (size,) = re.findall(r"client_max_body_size (\d+)k;", TEMPLATE.read_text())
    assert int(size) * 1024 == settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def test_web_believes_forwarded_headers_from_the_proxy_only():
    """uvicorn's own proxy-headers middleware with the trust list compose gives web: the
    proxy's container (a private address) names the client; a peer elsewhere cannot."""
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    from mafia_site.serve import uvicorn_options

    value = compose()["x-app"]["environment"]["FORWARDED_ALLOW_IPS"]
    trusted = re.fullmatch(r"\$\{FORWARDED_ALLOW_IPS:-(.+)\}", value).group(1)
    seen: list[tuple[str, str]] = []

    async def app(scope: dict, receive: object, send: object) -> None:
        seen.append((scope["client"][0], scope["scheme"]))

    async def through(peer: str) -> tuple[str, str]:
        headers = [(b"x-forwarded-for", b"198.51.100.7"), (b"x-forwarded-proto", b"https")]
        scope = {"type": "http", "client": (peer, 5000), "scheme": "http", "headers": headers}
        await ProxyHeadersMiddleware(app, trusted_hosts=trusted)(scope, None, None)
        return seen[-1]

    assert asyncio.run(through("172.18.0.5")) == ("198.51.100.7", "https")  # the proxy
    assert asyncio.run(through("192.168.16.3")) == ("198.51.100.7", "https")
    assert asyncio.run(through("203.0.113.9")) == ("203.0.113.9", "http")  # anyone else
    # The web server is given the setting (FORWARDED_ALLOW_IPS, read by settings.py).
    from django.conf import settings

    assert uvicorn_options()["forwarded_allow_ips"] == settings.FORWARDED_ALLOW_IPS


def test_compose_environment_names_are_the_ones_settings_read():
    settings_text = (ROOT / "mafia_site/settings.py").read_text()
    read = set(
        re.findall(r"""(?:environ\.get|env_bool|env_list)\(\s*["'](\w+)["']""", settings_text)
    )
    read |= {"DATABASE_URL"}  # read by dj-database-url
    for name, service in compose()["services"].items():
        for var in service.get("environment", {}):
            if name not in ("postgres", "redis", "proxy"):
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
