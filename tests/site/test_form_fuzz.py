"""Every HTML form of the site, fuzzed: each field of each form on the pages a host, a
player by night and by day, and a stranger see, replaced in turn by hostile values
(out-of-range numbers, NUL bytes, lone surrogates, huge text, wrong types). The answer is
a page or a redirect with a message, never a 500 and never a half-written state."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client

from games import services
from games.models import Game, NightAction
from tests.conftest import slot_of

pytestmark = pytest.mark.django_db

HOSTILE = [
    "32768",
    "1440000000000",
    "99999999999999999999999",
    "-1",
    "0",
    "1.5",
    "",
    "\x00",
    "kill\x00",
    "\ud800",
    "x" * 25_000,
    "<script>alert(1)</script>",
    "[]",
    "skip",
]


class Forms(HTMLParser):
    """The POST forms of a page: (action, {name: value})."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, str]]] = []
        self._current: dict[str, str] | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method", "get").lower() == "post":
            self._current = {}
            self.forms.append((a.get("action", ""), self._current))
        elif self._current is None:
            return
        elif tag in ("input", "textarea") and a.get("name"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                self._current.setdefault(a["name"], "")
            else:
                self._current[a["name"]] = a.get("value", "")
        elif tag == "select" and a.get("name"):
            self._select = a["name"]
            self._current.setdefault(a["name"], "")
        elif tag == "option" and self._select and not self._current[self._select]:
            self._current[self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._current = None
        elif tag == "select":
            self._select = None


def forms_of(client: Client, url: str) -> list[tuple[str, dict[str, str]]]:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    parser = Forms()
    parser.feed(response.content.decode())
    return [(action or url, fields) for action, fields in parser.forms]


def _encode(value: str) -> str:
    # A lone surrogate cannot be encoded as UTF-8; send its bytes as a browser might.
    return value.encode("utf-8", "surrogatepass").decode("latin-1")


# The create form has ~60 fields: the values that found its 500s, fewer requests.
NUMBERS_AND_TEXT = ["32768", "1440000000000", "-1", "\x00", "\ud800", "x" * 25_000]


def fuzz(
    client: Client,
    url: str,
    skip: tuple[str, ...] = ("logout",),
    values: list[str] = HOSTILE,
) -> int:
    """Every form on ``url``, every field replaced by every hostile value. Returns how
    many requests were sent."""
    sent = 0
    for action, fields in forms_of(client, url):
        if any(word in action for word in skip):
            continue
        # One role entry of the formset stands for all (they are the same form).
        names = [n for n in fields if n != "csrfmiddlewaretoken"]
        names = [n for n in names if not n.startswith("roles-") or n.startswith("roles-0-")]
        for name in names:
            for bad in values:
                data = {**fields, name: bad}
                try:
                    response = client.post(action, data)
                except UnicodeEncodeError:
                    body = "&".join(f"{k}={_encode(v)}" for k, v in data.items())
                    response = client.generic(
                        "POST",
                        action,
                        body.encode("latin-1"),
                        content_type="application/x-www-form-urlencoded",
                    )
                assert response.status_code < 500, (action, name, bad[:40], response.status_code)
                sent += 1
    return sent


def test_the_create_form_and_the_host_forms(make_game, host):
    web = Client(raise_request_exception=False)
    web.force_login(host)
    sent = fuzz(web, "/games/new/?setup=forum-cop-doctor-nine", values=NUMBERS_AND_TEXT)
    game = make_game("forum-cop-doctor-nine")
    sent += fuzz(web, f"/games/{game.pk}/host/", skip=("logout", "cut", "modkill", "replace"))
    assert sent > 150
    game.refresh_from_db()
    assert game.is_running


def test_the_players_forms_by_night_and_by_day(make_game, host):
    game = make_game("forum-cop-doctor-nine")
    cop = slot_of(game, "cop")
    web = Client(raise_request_exception=False)
    web.force_login(cop.user)
    sent = fuzz(web, f"/games/{game.pk}/")
    services.cut_deadline_now(host, game.pk)
    goon = slot_of(game, "goon")
    services.submit_night_action(cop.user, game.pk, ability="investigate", targets=[goon.pk])
    sent += fuzz(web, f"/games/{game.pk}/role/")
    assert sent > 50
    # Nothing hostile was stored as a night action.
    for action in NightAction.objects.filter(phase__game=game):
        assert all(isinstance(t, int) for t in action.targets) and not action.extra


def test_the_account_forms():
    web = Client(raise_request_exception=False)
    sent = fuzz(web, "/accounts/signup/") + fuzz(web, "/accounts/login/")
    assert sent > 20
    assert Game.objects.count() == 0
