"""Real servers for the tests that go through the whole stack: the ASGI app under uvicorn,
and a Redis of our own on a spare port (to stop and start it mid-game without touching the
machine's Redis). Shared by ``tests/e2e`` and ``tests/live``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_http_ok(url: str, processes: dict[str, subprocess.Popen], timeout: float) -> None:
    """Until ``url`` answers 200; fails at once if one of ``processes`` exited."""
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        for name, proc in processes.items():
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
                last = f"HTTP {response.status}"
        except (urllib.error.URLError, OSError) as exc:
            last = str(exc)
        time.sleep(0.2)
    raise RuntimeError(f"the site did not answer 200 at {url} within {timeout:.0f} s: {last}")


def stop_group(proc: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGTERM the process's group (it was started with ``start_new_session``), then KILL."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), 1):
            return True
    except OSError:
        return False


class AsgiServer:
    """``python -m mafia_site.serve`` (uvicorn) on a free port, as production runs it."""

    def __init__(self, env: dict[str, str], log_path: Path, *, lifespan: str = "on") -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        full_env = {
            **os.environ,
            "DEBUG": "0",
            # Production settings refuse to start without a real key, and redirect plain
            # http to https unless told this server is reached over http.
            "SECRET_KEY": secrets.token_urlsafe(64),
            "HTTPS": "false",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "CSRF_TRUSTED_ORIGINS": self.url,
            "PYTHONUNBUFFERED": "1",
            "LOG_LEVEL": "WARNING",
            **env,
        }
        self._log = log_path.open("wb")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "mafia_site.serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--lifespan",
                lifespan,
                "--no-access-log",
            ],
            cwd=ROOT,
            env=full_env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            self._wait_up(60)
        except Exception:
            self.stop()
            raise

    def _wait_up(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"uvicorn exited:\n{self.log()[-3000:]}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 1),
            ):
                return
            time.sleep(0.1)
        raise RuntimeError(f"uvicorn did not listen within {timeout:.0f} s")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        stop_group(self.proc)
        self._log.close()


class RedisServer:
    """``redis-server`` on a spare port, no persistence: ``stop()`` is an outage, ``start()``
    brings back an empty Redis on the same port, like a restarted cache without a volume."""

    def __init__(self, log_dir: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log_dir = log_dir
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        log = (self.log_dir / f"redis-{self.port}.log").open("ab")
        self.proc = subprocess.Popen(
            [
                *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no", "--daemonize", "no"),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 1),
            ):
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()  # an abrupt outage: no goodbye to the clients
            self.proc.wait(timeout=10)
        self.proc = None


class LoopThread:
    """An asyncio loop of its own in a thread: sockets and the proxy run there while the
    test (and the ORM) stay synchronous."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Any, timeout: float = 60) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def spawn(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def close(self) -> None:
        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        with contextlib.suppress(Exception):
            self.run(cancel_all(), timeout=20)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        if not self.thread.is_alive():
            self.loop.close()
