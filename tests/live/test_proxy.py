"""The proxy in front of the web replicas, for real: nginx running the compose proxy's own
config (``deploy/nginx/templates/default.conf.template``, rendered as the nginx image's
entrypoint renders it, with only the listen address and the upstream servers filled in) in
front of two web processes (``python -m mafia_site.serve``, production settings) on the test
database, sharing a Redis of this module's own (channel layer, cache, broker).

* Pages, the API and ``/healthz`` load through the proxy, and its requests are spread over
  both processes; a post of the longest kind goes through, a body over Django's limit is
  refused by nginx before it reaches a process.
* A page's websocket through the proxy (its origin checked against the Host the proxy
  passes on, port and all) hears the posts made directly on either process, so the one it
  is not on too.
* The rate limits count the address the proxy saw, whatever X-Forwarded-For the client
  sent, in whichever process.
* The replicas' health check (``python -m mafia_site.healthcheck``) passes when
  ALLOWED_HOSTS names a public host first; the proxy's own health location answers.
* A process killed: every request through the proxy still succeeds (the proxy tries the
  other process), and the API clients' sockets that were on it reconnect through the proxy
  and get what they missed.

Which process answered is read from the proxy's access log (``$upstream_addr``), which the
test's stand-in for the image's nginx.conf writes; nothing is timed.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import websockets
import yaml
from mafia_client import Client as MafiaClient
from mafia_client import EventStream

from games.models import Post
from tests.factories import person_key
from tests.servers import ROOT, AsgiServer, LoopThread, RedisServer, free_port, stop_group

from .celery_support import make_running_game, wait_for
from .celery_support import test_database_url as db_url

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(300),
]
# Under pytest-xdist the module runs whole on one worker (``runs_whole`` in
# tests/conftest.py), so its servers start once.

TEMPLATE = ROOT / "deploy" / "nginx" / "templates" / "default.conf.template"
# Failed logins per address (any username) before the next is refused.
LOGIN_LIMIT, LOGIN_WINDOW = 3, 3600


def compose_default(name: str) -> str:
    """The default docker-compose.yml gives the web service's ``name`` (``${NAME:-...}``)."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    value = str(compose["x-app"]["environment"][name])
    found = re.fullmatch(r"\$\{" + name + r":-(.*)\}", value)
    return found.group(1) if found else value


# -- nginx -------------------------------------------------------------------------------------
def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else "")
    if not found:
        pytest.fail(
            "nginx is missing: apt-get install -y nginx (scripts/test.sh installs it as root)"
        )
    return found


def render(template: str, listen: str, upstreams: list[str]) -> str:
    """The template as envsubst renders it in the image, with this test's values: the
    listen address, and the upstream's server line once per web process."""
    names = set(re.findall(r"\$\{(\w+)\}", template))
    assert names == {"PROXY_LISTEN", "WEB_UPSTREAM"}, f"the template substitutes {names}"
    lines = []
    server_lines = 0
    for line in template.splitlines(keepends=True):
        if "${WEB_UPSTREAM}" in line and not line.lstrip().startswith("#"):
            server_lines += 1
            lines.extend(line.replace("${WEB_UPSTREAM}", address) for address in upstreams)
        else:
            lines.append(line)
    assert server_lines == 1, "the upstream has one server line, for the web service"
    return "".join(lines).replace("${PROXY_LISTEN}", listen)


# What the nginx image's /etc/nginx/nginx.conf is to the template: the main context and the
# http block it is included in. Here it also logs which process served each request.
MAIN_CONF = """\
{user}worker_processes 2;
pid {dir}/nginx.pid;
error_log {dir}/error.log notice;
events {{
    worker_connections 1024;
}}
http {{
    default_type application/octet-stream;
    log_format upstreams '$remote_addr|$request_method|$request_uri|$status|$upstream_addr';
    access_log {dir}/access.log upstreams;
    client_body_temp_path {dir}/temp/body;
    proxy_temp_path {dir}/temp/proxy;
    fastcgi_temp_path {dir}/temp/fastcgi;
    uwsgi_temp_path {dir}/temp/uwsgi;
    scgi_temp_path {dir}/temp/scgi;
    include {dir}/conf.d/*.conf;
}}
"""


@dataclass(frozen=True)
class Line:
    """One request in the proxy's access log."""

    client: str
    method: str
    uri: str
    status: int
    upstreams: tuple[int, ...]  # the ports tried, in order (empty: no process was asked)


class Nginx:
    """nginx on a free port in front of ``ports`` (web processes on 127.0.0.1)."""

    def __init__(self, log_dir: Path, ports: list[int]) -> None:
        self.dir = log_dir / f"nginx-{uuid.uuid4().hex[:8]}"
        (self.dir / "conf.d").mkdir(parents=True)
        (self.dir / "temp").mkdir()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        conf = render(TEMPLATE.read_text(), f"127.0.0.1:{self.port}",
                      [f"127.0.0.1:{port}" for port in ports])  # fmt: skip
        (self.dir / "conf.d" / "default.conf").write_text(conf)
        # Run as root (CI), the workers would switch to "nobody", who cannot enter the
        # test's private temporary directory.
        user = "user root;\n" if os.geteuid() == 0 else ""
        (self.dir / "nginx.conf").write_text(MAIN_CONF.format(user=user, dir=self.dir))
        binary = nginx_binary()
        command = [binary, "-p", str(self.dir), "-c", str(self.dir / "nginx.conf"),
                   "-e", str(self.dir / "error.log")]  # fmt: skip
        checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0, f"nginx -t:\n{checked.stderr}"
        self.proc = subprocess.Popen(
            [*command, "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=(self.dir / "stderr.log").open("wb"),
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.errors()}")
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                break
            if time.monotonic() > deadline:
                raise RuntimeError("nginx did not listen within 30 s")
            time.sleep(0.05)

    def errors(self) -> str:
        path = self.dir / "error.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def lines(self) -> list[Line]:
        path = self.dir / "access.log"
        if not path.exists():
            return []
        found = []
        # Whole lines only (nginx may be writing the next one).
        for raw in path.read_text(errors="replace").split("\n")[:-1]:
            client, method, uri, status, upstream = raw.split("|")
            ports = tuple(
                int(address.rsplit(":", 1)[1])
                for address in re.split(r"[,:]\s+", upstream)
                if address.strip() not in ("", "-")
            )
            found.append(Line(client, method, uri, int(status), ports))
        return found

    def stop(self) -> None:
        stop_group(self.proc)


# -- the stack ---------------------------------------------------------------------------------
@dataclass
class Stack:
    redis: RedisServer
    env: dict[str, str]  # every web process's environment (beside os.environ)
    a: AsgiServer
    b: AsgiServer
    proxy: Nginx
    log_dir: Path


@pytest.fixture(scope="module")
def stack(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Stack]:
    log_dir = tmp_path_factory.mktemp("proxy")
    with django_db_blocker.unblock():
        database = db_url()
    redis = RedisServer(log_dir)
    env = {
        "DEBUG": "0",
        "HTTPS": "false",
        # One key for every process, as in production.
        "SECRET_KEY": secrets.token_urlsafe(64),
        # A public name first, as a real deployment's list starts (the health check's Host);
        # the tests reach the proxy as 127.0.0.1.
        "ALLOWED_HOSTS": ".mafia.example.org,127.0.0.1,localhost",
        "DATABASE_URL": database,
        "REDIS_URL": redis.url,
        "CHANNEL_LAYER_PREFIX": f"proxy{uuid.uuid4().hex[:8]}",
        "CELERY_QUEUE": f"deadlines-test-proxy-{uuid.uuid4().hex[:8]}",
        "DB_POOL_SIZE": "4",  # the machine's PostgreSQL is shared
        # The proxy's addresses as docker-compose.yml trusts them, and loopback: here the
        # clients are on loopback too, as in compose a client may reach the proxy from an
        # address the web trusts (Docker's gateway, a private network). So an X-Forwarded-For
        # the proxy appended to would be believed: the proxy must replace it.
        "FORWARDED_ALLOW_IPS": compose_default("FORWARDED_ALLOW_IPS") + ",127.0.0.0/8",
        "RATE_LIMITS": f"login-address={LOGIN_LIMIT}/{LOGIN_WINDOW}",
        # The watchdog's sweep is what /healthz looks for (a fresh test database has none).
        "DEADLINE_WATCHDOG_SECONDS": "1",
    }
    started: list[Any] = []
    try:
        a = AsgiServer(env, log_dir / "web-a.log")
        started.append(a)
        b = AsgiServer(env, log_dir / "web-b.log")
        started.append(b)
        proxy = Nginx(log_dir, [a.port, b.port])
        started.append(proxy)
        yield Stack(redis, env, a, b, proxy, log_dir)
    finally:
        for server in reversed(started):
            with contextlib.suppress(Exception):
                server.stop()
        redis.stop()


def call(
    port: int,
    method: str,
    path: str,
    *,
    source: str = "127.0.0.1",
    token: str | None = None,
    body: Any = None,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, str]:
    """(status, text) of one request to 127.0.0.1:``port``, sent from address ``source``."""
    sent = {"Accept": "application/json" if path.startswith("/api/") else "text/html"}
    if token:
        sent["Authorization"] = f"Token {token}"
    data = raw
    if body is not None:
        data = json.dumps(body).encode()
    if data is not None:
        sent["Content-Type"] = "application/json"
    sent.update(headers or {})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    try:
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def token_of(user: Any) -> str:
    return person_key(user)


def since(proxy: Nginx, mark: int) -> list[Line]:
    return proxy.lines()[mark:]


def healthy(*servers: AsgiServer) -> None:
    """Until each process's /healthz says 200: the test database is emptied after each
    test, the record of the watchdogs' sweeps with it, until their next sweep."""
    for server in servers:
        wait_for(
            lambda s=server: call(s.port, "GET", "/healthz")[0] == 200,
            timeout=60,
            what=f"/healthz on port {server.port}",
            step=0.2,
        )


# -- 1. pages through the proxy -----------------------------------------------------------------
def test_pages_and_the_api_load_through_the_proxy_spread_over_both_processes(stack):
    game, _, players = make_running_game(day_length=timedelta(hours=1))
    proxy = stack.proxy
    healthy(stack.a, stack.b)
    mark = len(proxy.lines())
    paths = ["/", f"/games/{game.pk}/", f"/api/v1/games/{game.pk}/", "/healthz"]
    for _ in range(3):
        for path in paths:
            status, text = call(proxy.port, "GET", path)
            assert status == 200, (path, status, text[:300])
            if path == f"/games/{game.pk}/":
                assert html.escape(game.title) in text
            if path == "/healthz":
                assert json.loads(text)["status"] == "ok", text
    served = since(proxy, mark)
    assert len(served) == 3 * len(paths), served
    assert all(len(line.upstreams) == 1 for line in served), served  # none retried
    assert {line.upstreams[0] for line in served} == {stack.a.port, stack.b.port}, served

    # The longest post there is (20,000 characters outside the BMP: 240 KB of JSON) goes
    # through; a body over Django's own limit is refused by nginx, no process asked.
    longest = "\U0001f3ad" * 20_000
    status, text = call(proxy.port, "POST", f"/api/v1/games/{game.pk}/posts/",
                        token=token_of(players[0]), body={"body": longest})  # fmt: skip
    assert status == 201, text[:300]
    number = json.loads(text)["post"]["number"]
    assert Post.objects.get(game=game, number=number, thread="public").body == longest
    mark = len(proxy.lines())
    status, _ = call(proxy.port, "POST", f"/api/v1/games/{game.pk}/posts/",
                     token=token_of(players[0]), raw=b"x" * (3 * 1024 * 1024))  # fmt: skip
    assert status == 413
    (refused,) = wait_for(lambda: since(proxy, mark), timeout=30, what="the 413's log line")
    assert refused.status == 413 and refused.upstreams == (), refused

    # The proxy's own health location.
    status, text = call(proxy.port, "GET", "/proxy-health")
    assert (status, text) == (200, "ok\n")


# -- 2. a page's socket hears both processes ----------------------------------------------------
def test_a_page_socket_through_the_proxy_hears_posts_made_on_either_process(stack):
    game, _, players = make_running_game(day_length=timedelta(hours=1))
    proxy = stack.proxy
    # The processes trust only their own origin (AsgiServer's CSRF_TRUSTED_ORIGINS): the
    # page's origin passes because the proxy hands on the Host the browser sent, port and all.
    status, page = call(proxy.port, "GET", f"/games/{game.pk}/")
    assert status == 200
    found = re.search(r'data-live-positions="([^"]*)"', page)
    assert found, "no data-live-positions on the page"
    positions = html.unescape(found.group(1))
    url = f"ws://127.0.0.1:{proxy.port}/ws/games/{game.pk}/?positions={positions}"
    made: dict[int, int] = {}  # the port a post was made on -> its number
    tokens = [token_of(player) for player in players[:2]]

    async def scenario() -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []

        async def until(predicate: Callable[[dict[str, Any]], bool], what: str) -> None:
            async def read() -> None:
                while not any(predicate(i) for i in items):
                    batch = json.loads(await ws.recv())
                    items.extend(batch if isinstance(batch, list) else [batch])

            try:
                await asyncio.wait_for(read(), 60)
            except TimeoutError:
                raise AssertionError(f"the socket never got {what}: {items}") from None

        async with websockets.connect(url, origin=proxy.url, open_timeout=30) as ws:
            await until(lambda i: i.get("type") == "replay", "its replay")
            for i, server in enumerate((stack.a, stack.b)):
                status, text = await asyncio.to_thread(
                    call, server.port, "POST", f"/api/v1/games/{game.pk}/posts/",
                    token=tokens[i], body={"body": f"Made on port {server.port}."},
                )  # fmt: skip
                assert status == 201, text
                number = json.loads(text)["post"]["number"]
                made[server.port] = number
                await until(lambda i, n=number: i.get("number") == n, f"post {number}")
        return items

    mark = len(proxy.lines())
    items = asyncio.run(scenario())
    # The socket's line is written when it closes: which process it was on.
    (socket_line,) = wait_for(
        lambda: [line for line in since(proxy, mark) if line.uri.startswith("/ws/")],
        timeout=30,
        what="the socket's line in the proxy's log",
    )
    assert socket_line.status == 101, socket_line
    (on,) = socket_line.upstreams
    other = stack.b.port if on == stack.a.port else stack.a.port
    heard = [i for i in items if i.get("number") == made[other]]
    assert heard and "Made on port" in heard[0]["html"], items


# -- 3. the client address ----------------------------------------------------------------------
def failed_login(port: int, source: str, forged: str | None = None) -> int:
    headers = {"X-Forwarded-For": forged} if forged else {}
    status, _ = call(
        port, "POST", "/api/v1/auth/token/", source=source, headers=headers,
        body={"username": f"nobody-{uuid.uuid4().hex[:10]}", "password": "wrong"},
    )  # fmt: skip
    return status


def test_the_rate_limits_count_the_address_the_proxy_saw(stack):
    proxy = stack.proxy
    for _ in range(2):  # again with fresh addresses if the limit's window ended meanwhile
        window = int(time.time() // LOGIN_WINDOW)
        first, second = (f"127.0.{secrets.randbelow(250) + 1}.{n}" for n in (2, 3))
        # Each failed login from one client, each with another X-Forwarded-For of its own
        # invention: all counted under the client's address, so the last one is refused.
        tries = [failed_login(proxy.port, first, f"203.0.113.{n}") for n in range(LOGIN_LIMIT)]
        over = failed_login(proxy.port, first, second)
        # Another client through the same proxy has its own count (the proxy's address is
        # not the one counted), even when the client over the limit names it.
        other = failed_login(proxy.port, second)
        if int(time.time() // LOGIN_WINDOW) == window:
            break
    else:
        pytest.fail("two rate-limit windows ended during the test")
    assert tries == [401] * LOGIN_LIMIT
    assert over == 429
    assert other == 401
    # Counted in Redis, whichever process answered: both did.
    logins = [line for line in proxy.lines() if line.uri == "/api/v1/auth/token/"]
    assert {line.upstreams[-1] for line in logins} == {stack.a.port, stack.b.port}


# -- 4. health checks ---------------------------------------------------------------------------
def test_the_replicas_health_check_asks_with_a_host_the_site_allows(stack):
    healthy(stack.a)
    env = {**os.environ, **stack.env, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "mafia_site.healthcheck"]
    checked = subprocess.run([*command, "--port", str(stack.a.port)], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=60)  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Host: mafia.example.org" in checked.stdout and '"status": "ok"' in checked.stdout
    # The same request with a host the site does not serve is refused, so the Host mattered.
    status, _ = call(stack.a.port, "GET", "/healthz", headers={"Host": "elsewhere.example.com"})
    assert status == 400
    # Nothing listening: unhealthy.
    checked = subprocess.run([*command, "--port", str(free_port())], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=60)  # fmt: skip
    assert checked.returncode == 1


# -- 5. a process killed ------------------------------------------------------------------------
class Follower:
    """An API client's stream of a game through the proxy (the client library's, which
    reconnects and resumes by itself), keeping what it takes."""

    def __init__(self, base_url: str, token: str, game_id: int) -> None:
        self.stream = EventStream(MafiaClient(base_url, token), game_id, ping_seconds=3)
        self.taken: list[Any] = []

    async def run(self) -> None:
        async for event in self.stream:
            self.taken.append(event)

    def has(self, predicate: Callable[[Any], bool]) -> bool:
        return any(predicate(event) for event in list(self.taken))


def test_a_process_killed_requests_go_to_the_other_and_sockets_reconnect(stack):
    game, _, players = make_running_game(day_length=timedelta(hours=1))
    doomed = AsgiServer(stack.env, stack.log_dir / "web-doomed.log")
    proxy = Nginx(stack.log_dir, [doomed.port, stack.b.port])
    lt = LoopThread()
    try:
        followers = []
        for player in players[:4]:
            follower = Follower(proxy.url, token_of(player), game.pk)
            lt.spawn(follower.run())
            # One at a time: the proxy's round robin puts them on both processes.
            wait_for(
                lambda f=follower: f.has(lambda e: e.type == "replay"),
                timeout=60,
                what="a socket through the proxy",
            )
            followers.append(follower)

        os.killpg(doomed.proc.pid, signal.SIGKILL)
        doomed.proc.wait(timeout=10)

        healthy(stack.b)
        # Reads through the proxy: every one answered, by the process that is left.
        reads = [f"/games/{game.pk}/", f"/api/v1/games/{game.pk}/", "/healthz"] * 4
        for path in reads:
            status, text = call(proxy.port, "GET", path)
            assert status == 200, (path, status, text[:300])
        # A post through the proxy: stored once, and every socket gets it, the ones that
        # were on the killed process after reconnecting through the proxy.
        body = f"After the kill {uuid.uuid4().hex[:6]}."
        status, text = call(proxy.port, "POST", f"/api/v1/games/{game.pk}/posts/",
                            token=token_of(players[4]), body={"body": body})  # fmt: skip
        assert status == 201, text
        number = json.loads(text)["post"]["number"]
        for follower in followers:
            wait_for(
                lambda f=follower: f.has(lambda e: e.kind == "post" and e.number == number),
                timeout=60,
                what=f"post {number} on every socket",
            )
        assert Post.objects.filter(game=game, body=body).count() == 1
        connects = [f.stream.connects for f in followers]
        for follower in followers:
            lt.run(follower.stream.close())
        # A socket's line is written when it closes: wait for every connection's.
        sockets = wait_for(
            lambda: (
                (found := [line for line in proxy.lines() if line.uri.startswith("/ws/")])
                and len(found) == sum(connects)
                and found
            ),
            timeout=30,
            what="every socket's line in the proxy's log",
        )
        lines = proxy.lines()
    finally:
        lt.close()
        proxy.stop()
        doomed.stop()

    d, b = doomed.port, stack.b.port
    # The sockets the kill cut were on the killed process: exactly those reconnected, once
    # each, through the proxy to the other.
    cut = [line for line in sockets if line.upstreams == (d,)]
    assert cut, f"round robin put no socket on the killed process: {sockets}"
    assert sorted(connects) == sorted([2] * len(cut) + [1] * (len(followers) - len(cut)))
    assert all(line.status == 101 and line.upstreams[-1] in (d, b) for line in sockets)
    # Every request after the kill was answered by the other process...
    requests = [line for line in lines if not line.uri.startswith("/ws/")]
    assert [line.status for line in requests] == [200] * len(reads) + [201], requests
    assert all(line.upstreams[-1] == b for line in requests), requests
    # ... some (a read or a reconnecting socket) after the proxy had tried the killed one
    # first (proxy_next_upstream): nothing failed for it.
    retried = [line for line in lines if len(line.upstreams) > 1]
    assert retried, lines
    assert all(line.upstreams == (d, b) for line in retried), retried
