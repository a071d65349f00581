"""Rate limits: 429 with a retry time on logins (form and token), sign-ups, posts and
votes; the limits are settings; nothing over the limit is stored."""

from __future__ import annotations

import re
import uuid

import pytest
from django.test import Client
from rest_framework.test import APIClient

from games import ratelimit
from games.models import Post, Vote
from tests.conftest import slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


# The limits' windows are fixed (``games.ratelimit``): a test's requests must fall in one.
# An hour-long window is crossed by a test of a few seconds once in a thousand runs; a
# minute-long one was crossed by two tests at once in a loaded parallel run (200 for 429).
WINDOW = 3600


@pytest.fixture(autouse=True)
def limits_on(settings):
    settings.RATE_LIMITS_ENABLED = True
    settings.RATE_LIMIT_NAMESPACE = uuid.uuid4().hex  # counts of this test only
    settings.RATE_LIMITS = {}
    # The site's cache gives up on Redis after 1 s and the limits then count nothing (fail
    # open, ``games.ratelimit``): right in an outage, but a loaded test run can stall that
    # long. Here the counts are what is tested, so the cache may wait.
    if "OPTIONS" in settings.CACHES["default"]:
        cache = settings.CACHES["default"]
        options = {**cache["OPTIONS"], "socket_timeout": 30, "socket_connect_timeout": 30}
        settings.CACHES = {**settings.CACHES, "default": {**cache, "OPTIONS": options}}
    return settings


def _retry_after(response) -> int:
    assert response.status_code == 429, (response.status_code, response.content[:200])
    seconds = int(response["Retry-After"])
    assert 0 < seconds <= 2 * 3600  # a sliding window: at most two windows
    return seconds


def test_wrong_passwords_lock_the_login_form_then_even_the_right_one():
    UserFactory(username="alice", password="right-pw")
    web = Client()
    for _ in range(10):
        r = web.post("/accounts/login/", {"username": "alice", "password": "wrong"})
        assert r.status_code == 200  # the form again, with its error
    r = web.post("/accounts/login/", {"username": "alice", "password": "right-pw"})
    seconds = _retry_after(r)
    assert f"try again in {seconds} seconds" in r.content.decode()
    assert "_auth_user_id" not in web.session
    # Another person (another username) from elsewhere is not locked out.
    UserFactory(username="bob", password="bob-pw")
    r = Client(REMOTE_ADDR="10.0.0.2").post(
        "/accounts/login/", {"username": "bob", "password": "bob-pw"}
    )
    assert r.status_code == 302


FULL_WIDTH = "\uff54_mas1"  # a full-width t: the login reads it as "t_mas1" (NFKC)


def test_a_full_width_name_shares_the_lockout_of_the_name_it_logs_in_as():
    UserFactory(username="t_mas1", password="right-pw")
    r = Client().post("/accounts/login/", {"username": FULL_WIDTH, "password": "right-pw"})
    assert r.status_code == 302  # the same account
    web = Client()
    for name in [FULL_WIDTH, "t_mas1"] * 5:
        r = web.post("/accounts/login/", {"username": name, "password": "wrong"})
        assert r.status_code == 200
    for name in (FULL_WIDTH, "t_mas1", " T_MAS1 "):
        _retry_after(web.post("/accounts/login/", {"username": name, "password": "right-pw"}))
    assert "_auth_user_id" not in web.session


def test_api_tokens_read_and_count_the_name_as_the_login_form_does():
    UserFactory(username="t_mas1", password="right-pw")
    api = APIClient()
    r = api.post("/api/v1/auth/token/", {"username": FULL_WIDTH, "password": "right-pw"})
    assert r.status_code == 200 and r.json()["token"]
    for _ in range(10):
        r = api.post("/api/v1/auth/token/", {"username": FULL_WIDTH, "password": "nope"})
        assert r.status_code == 401
    _retry_after(api.post("/api/v1/auth/token/", {"username": "t_mas1", "password": "right-pw"}))


def test_right_passwords_are_not_counted():
    UserFactory(username="carol", password="right-pw")
    for _ in range(15):
        r = Client().post("/accounts/login/", {"username": "carol", "password": "right-pw"})
        assert r.status_code == 302


def test_api_tokens_are_limited_like_the_login_form():
    UserFactory(username="dave", password="right-pw")
    api = APIClient()
    for _ in range(10):
        r = api.post("/api/v1/auth/token/", {"username": "dave", "password": "nope"})
        assert r.status_code == 401
    r = api.post("/api/v1/auth/token/", {"username": "dave", "password": "right-pw"})
    seconds = _retry_after(r)
    assert r.json()["code"] == "throttled" and r.json()["retry_after"] == seconds
    assert "token" not in r.json()


def test_the_wait_is_said_once_in_the_api_and_on_the_page(make_game, limits_on):
    limits_on.RATE_LIMITS = {"vote": (1, WINDOW)}
    game = make_game()
    a, b = slots_of(game, "vanilla_townie")[:2]
    api = APIClient()
    api.force_authenticate(a.user)
    assert api.post(f"/api/v1/games/{game.pk}/vote/", {"target": b.pk}).status_code == 200
    r = api.post(f"/api/v1/games/{game.pk}/unvote/")
    seconds = _retry_after(r)
    assert r.json()["error"] == f"Too many requests; try again in {seconds} seconds."
    web = Client()
    web.force_login(a.user)
    r = web.post(f"/games/{game.pk}/unvote/")
    seconds = _retry_after(r)
    page = r.content.decode()
    assert f"Too many requests; try again in {seconds} seconds." in page
    # (said on the page: the scripts' own texts, a JSON block, are not part of it)
    shown = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    assert shown.count("try again") == 1 and "Expected available" not in page


def test_sign_ups_per_address(limits_on):
    limits_on.RATE_LIMITS = {"signup": (3, 3600)}
    for n in range(3):
        r = Client().post(
            "/accounts/signup/",
            {"username": f"new{n}", "password1": "a-long-pass-123", "password2": "a-long-pass-123"},
        )
        assert r.status_code == 302, r.content[:300]
    r = Client().post(
        "/accounts/signup/",
        {"username": "new9", "password1": "a-long-pass-123", "password2": "a-long-pass-123"},
    )
    _retry_after(r)
    assert not UserFactory._meta.model.objects.filter(username="new9").exists()


def test_posting_is_limited_in_the_api_and_the_browser(make_game, limits_on):
    limits_on.RATE_LIMITS = {"post": (5, WINDOW)}
    game = make_game()
    goon = slots_of(game, "goon")[0]
    api = APIClient()
    api.force_authenticate(goon.user)
    for n in range(5):
        r = api.post(
            f"/api/v1/games/{game.pk}/posts/", {"body": f"m{n}", "thread": "mafia"}, format="json"
        )
        assert r.status_code == 201, r.content
    r = api.post(f"/api/v1/games/{game.pk}/posts/", {"body": "x" * 19_000, "thread": "mafia"})
    _retry_after(r)
    web = Client()
    web.force_login(goon.user)
    r = web.post(f"/games/{game.pk}/t/mafia/post/", {"body": "one more"})
    _retry_after(r)
    assert Post.objects.filter(game=game, thread="mafia").count() == 5
    # Someone else still posts.
    other = slots_of(game, "vanilla_townie")[0]
    web.force_login(other.user)
    assert web.post(f"/games/{game.pk}/post/", {"body": "hello"}).status_code == 302


def test_voting_is_limited(make_game, limits_on):
    limits_on.RATE_LIMITS = {"vote": (4, WINDOW)}
    game = make_game()
    a, b, c = slots_of(game, "vanilla_townie")[:3]
    api = APIClient()
    api.force_authenticate(a.user)
    for n in range(4):
        target = (b, c)[n % 2]
        assert api.post(f"/api/v1/games/{game.pk}/vote/", {"target": target.pk}).status_code < 300
    r = api.post(f"/api/v1/games/{game.pk}/unvote/")
    _retry_after(r)
    web = Client()
    web.force_login(a.user)
    _retry_after(web.post(f"/games/{game.pk}/vote/", {"target": b.pk}))
    assert Vote.objects.filter(voter=a).count() == 4


def test_votes_post_so_they_count_as_posts_from_the_api_and_the_page_alike(make_game, limits_on):
    limits_on.RATE_LIMITS = {"post": (3, WINDOW)}
    game = make_game()
    a, b, c = slots_of(game, "vanilla_townie")[:3]
    api = APIClient()
    api.force_authenticate(a.user)
    web = Client()
    web.force_login(a.user)
    assert api.post(f"/api/v1/games/{game.pk}/vote/", {"target": b.pk}).status_code == 200
    assert web.post(f"/games/{game.pk}/vote/", {"target": c.pk}).status_code == 302
    assert api.post(f"/api/v1/games/{game.pk}/posts/", {"body": "hi"}).status_code == 201
    _retry_after(api.post(f"/api/v1/games/{game.pk}/vote/", {"target": b.pk}))
    _retry_after(api.post(f"/api/v1/games/{game.pk}/unvote/"))
    _retry_after(web.post(f"/games/{game.pk}/vote/", {"target": b.pk}))
    _retry_after(web.post(f"/games/{game.pk}/post/", {"body": f"**Vote: {b.display_name}**"}))
    assert Post.objects.filter(game=game, slot=a).count() == 3
    assert Vote.objects.filter(voter=a).count() == 2


def test_the_limits_are_settings(make_game, limits_on):
    limits_on.RATE_LIMITS_ENABLED = False
    game = make_game()
    a = slots_of(game, "vanilla_townie")[0]
    api = APIClient()
    api.force_authenticate(a.user)
    for _ in range(40):
        assert api.post(f"/api/v1/games/{game.pk}/posts/", {"body": "hi"}).status_code == 201


class _Clock:
    """The limits' clock, held still and moved by hand (``games.ratelimit`` reads
    ``time.time``), so a window's boundary falls where the test puts it."""

    def __init__(self, monkeypatch, now: float) -> None:
        self.now = now
        monkeypatch.setattr(ratelimit.time, "time", lambda: self.now)


def test_a_window_boundary_lets_no_second_burst_through(limits_on, monkeypatch):
    limits_on.RATE_LIMITS = {"post": (10, 300)}
    clock = _Clock(monkeypatch, 1_800_000_000 - 1)  # a second before a 300-s boundary
    for _ in range(10):
        ratelimit.hit("post", "user:1")
    with pytest.raises(ratelimit.RateLimited) as refused:
        ratelimit.hit("post", "user:1")
    clock.now += 1.04  # a fixed window would start counting again here
    with pytest.raises(ratelimit.RateLimited) as still:
        ratelimit.hit("post", "user:1")
    # One request fits once a tenth of the last window's share is gone (30 s in), and the
    # refusals meanwhile did not push that back.
    assert refused.value.retry_after == 31 and still.value.retry_after == 30
    clock.now += 29
    with pytest.raises(ratelimit.RateLimited):
        ratelimit.hit("post", "user:1")
    clock.now += 1
    ratelimit.hit("post", "user:1")
    with pytest.raises(ratelimit.RateLimited):
        ratelimit.hit("post", "user:1")
    clock.now += 300  # a whole window later the old one's share is gone
    for _ in range(9):
        ratelimit.hit("post", "user:1")


def test_a_vote_refused_for_posting_is_not_counted_as_a_vote(limits_on):
    limits_on.RATE_LIMITS = {"vote": (2, WINDOW), "post": (1, WINDOW)}
    request = type("Request", (), {"META": {"REMOTE_ADDR": "10.0.0.9"}, "user": None})()
    ratelimit.enforce("vote", request)
    with pytest.raises(ratelimit.RateLimited) as refused:
        ratelimit.enforce("vote", request)
    assert refused.value.scope == "post"
    limits_on.RATE_LIMITS = {"vote": (2, WINDOW)}
    ratelimit.enforce("vote", request)  # the second vote fits: the refused one did not count
    with pytest.raises(ratelimit.RateLimited):
        ratelimit.enforce("vote", request)
