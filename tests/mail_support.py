"""A real SMTP server for the e-mail tests: aiosmtpd on a spare port, in a thread.

``SmtpServer.messages`` holds every message the server accepted (answered 250 to a client
still connected). It can be told to ``stall`` before answering DATA (the message is then
not accepted: a client that goes away meanwhile has sent nothing) or to ``refuse`` with a
code, and it can be stopped and started again on the same port.
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import threading
import time
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

from tests.servers import free_port


class Recorder:
    """The aiosmtpd handler: records accepted messages; stalls or refuses when told to."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.raw: list[bytes] = []  # as they came over the wire
        self.refuse: str | None = None  # e.g. "451 try again later"
        self.stall = threading.Event()  # set: hold every DATA until cleared
        self.stalled = 0  # DATA commands held so far
        self.abandoned = 0  # held DATA whose client went away
        self._lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.stall.is_set():
            with self._lock:
                self.stalled += 1
            try:
                while self.stall.is_set():
                    await asyncio.sleep(0.05)
                    if server.transport is None or server.transport.is_closing():
                        raise asyncio.CancelledError
            except asyncio.CancelledError:  # aiosmtpd cancels us when the client is gone
                with self._lock:
                    self.abandoned += 1
                raise
        if self.refuse:
            return self.refuse
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._lock:
            self.raw.append(envelope.original_content or envelope.content)
            self.messages.append(message)
        return "250 Message accepted for delivery"


class SmtpServer:
    def __init__(self, port: int | None = None) -> None:
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.handler = Recorder()
        self._controller: Controller | None = None

    @property
    def messages(self) -> list[EmailMessage]:
        return list(self.handler.messages)

    def start(self) -> None:
        self._controller = Controller(self.handler, hostname=self.host, port=self.port)
        self._controller.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def mailers(self, timeout: float = 10.0) -> dict[str, Any]:
        """A MAILERS setting that sends here."""
        return {
            "default": {
                "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
                "OPTIONS": {"host": self.host, "port": self.port, "timeout": timeout},
            }
        }

    def env(self) -> dict[str, str]:
        """The environment that points a worker subprocess here."""
        return {"EMAIL_HOST": self.host, "EMAIL_PORT": str(self.port)}

    def wait_for(self, count: int, timeout: float = 30.0) -> list[EmailMessage]:
        """Until at least ``count`` messages arrived; then all of them."""
        deadline = time.monotonic() + timeout
        while len(self.handler.messages) < count:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {count} message(s); "
                    f"got {len(self.handler.messages)}"
                )
            time.sleep(0.05)
        return self.messages


@contextlib.contextmanager
def smtp_server() -> Iterator[SmtpServer]:
    server = SmtpServer()
    server.start()
    try:
        yield server
    finally:
        server.handler.stall.clear()
        server.stop()


def verify_addresses() -> None:
    """Every account's ``email`` becomes its verified primary address: mail goes only to
    verified addresses (``games.accounts.verified_email``)."""
    for user in get_user_model().objects.exclude(email=""):
        EmailAddress.objects.get_or_create(
            user=user, email=user.email, defaults={"verified": True, "primary": True}
        )


def parts(message: EmailMessage) -> dict[str, str]:
    """content type -> decoded text of each text part (with \n line ends)."""
    return {
        part.get_content_type(): part.get_content().replace("\r\n", "\n")
        for part in message.walk()
        if part.get_content_maintype() == "text"
    }
