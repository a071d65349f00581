"""Bookmarks: any signed-in person bookmarks a post they may read, with a private note;
"My bookmarks" lists only the posts they may read now; the API says the same."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games import services
from games.errors import ErrorCode, InvalidInput, NotAllowed, NotFound
from games.models import Bookmark
from games.reads.bookmarks import my_bookmarks
from tests.conftest import slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

NOTE = "NOTEMARKER she claimed cop on day one"
POST = 2  # the town player's post in the game thread


def api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def game(make_game):
    """Forum vanilla: two goons with a mafia chat; a post in the game thread and one in
    the chat."""
    game = make_game("forum-vanilla")
    goon = slots_of(game, "goon")[0]
    town = slots_of(game, "vanilla_townie")[0]
    said = services.submit_post(town.user, game.pk, body="I think the quiet ones are scum.")
    assert said.post.number == POST  # after the host's day 1 announcement
    services.submit_post(goon.user, game.pk, body="Kill the loud one tonight.", thread="mafia")
    return game


def _goons(game):
    return slots_of(game, "goon")


def _town(game):
    return slots_of(game, "vanilla_townie")


# -- the services and the read ----------------------------------------------------------------
def test_a_post_one_may_read_is_bookmarked_and_its_note_changed(game):
    spectator = UserFactory(username="watcher")
    bookmark, created = services.bookmark_post(spectator, game.pk, POST, note=f"  {NOTE} ")
    assert created and bookmark.note == NOTE
    again, created = services.bookmark_post(spectator, game.pk, POST, note="changed")
    assert not created and again.pk == bookmark.pk and again.note == "changed"
    services.edit_bookmark(spectator, bookmark.pk, note="")
    [shown] = my_bookmarks(spectator)
    assert (shown.game_id, shown.thread, shown.number, shown.note) == (game.pk, "public", POST, "")
    assert shown.excerpt == "I think the quiet ones are scum."
    assert shown.author == _town(game)[0].user.get_username()
    services.remove_bookmark(spectator, bookmark.pk)
    assert my_bookmarks(spectator) == [] and not Bookmark.objects.exists()


def test_a_thread_one_may_not_read_is_not_there(game):
    town = _town(game)[0].user
    with pytest.raises(NotFound) as hidden:
        services.bookmark_post(town, game.pk, 1, thread="mafia")
    assert hidden.value.code == ErrorCode.NO_THREAD
    with pytest.raises(NotFound) as missing:
        services.bookmark_post(town, game.pk, 99)
    assert missing.value.code == ErrorCode.NOT_FOUND
    with pytest.raises(NotFound):
        services.bookmark_post(town, game.pk, 1, thread="nonsense")
    with pytest.raises(NotFound):
        services.bookmark_post(town, 10**9, 1)
    with pytest.raises(NotAllowed):
        services.bookmark_post(None, game.pk, 1)
    with pytest.raises(InvalidInput) as long:
        services.bookmark_post(town, game.pk, POST, note="x" * 1001)
    assert long.value.code == ErrorCode.TOO_LONG and long.value.field == "note"
    assert not Bookmark.objects.exists()


def test_someone_elses_bookmark_is_not_there(game):
    mine, _ = services.bookmark_post(_town(game)[0].user, game.pk, POST, note=NOTE)
    other = _town(game)[1].user
    for call in (
        lambda: services.edit_bookmark(other, mine.pk, note="mine now"),
        lambda: services.remove_bookmark(other, mine.pk),
    ):
        with pytest.raises(NotFound) as refused:
            call()
        assert refused.value.code == ErrorCode.NO_BOOKMARK
    assert Bookmark.objects.get().note == NOTE
    assert my_bookmarks(other) == []


def test_only_posts_readable_now_are_listed(game, host):
    """A mafia-chat bookmark leaves the list when its player dies or is replaced out, and
    comes back when the game ends (everyone reads everything then)."""
    first, second = _goons(game)
    mine, _ = services.bookmark_post(first.user, game.pk, 1, thread="mafia", note=NOTE)
    theirs, _ = services.bookmark_post(second.user, game.pk, 1, thread="mafia")
    services.bookmark_post(first.user, game.pk, 1)
    assert [(b.thread, b.number) for b in my_bookmarks(first.user)] == [
        ("public", 1),
        ("mafia", 1),
    ]
    services.modkill(host, game.pk, first.pk)
    assert [b.thread for b in my_bookmarks(first.user)] == ["public"]
    with pytest.raises(NotFound):  # the note of a post they may not read: not there either
        services.edit_bookmark(first.user, mine.pk, note="dead now")
    replaced_out = second.user
    services.replace_player(host, game.pk, second.pk, UserFactory(username="newcomer"))
    assert my_bookmarks(replaced_out) == []
    # The game ends (the last goon is modkilled): everything may be read by everyone.
    services.modkill(host, game.pk, second.pk)
    game.refresh_from_db()
    assert game.is_finished
    assert [b.thread for b in my_bookmarks(first.user)] == ["public", "mafia"]
    assert [b.id for b in my_bookmarks(replaced_out)] == [theirs.pk]


# -- the API --------------------------------------------------------------------------------
def test_the_api_lists_adds_edits_and_removes_ones_own(game):
    town = _town(game)[0].user
    url = "/api/v1/bookmarks/"
    made = api(town).post(url, {"game_id": game.pk, "number": POST, "note": NOTE}, format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["note"] == NOTE and body["thread"] == "public" and body["number"] == POST
    assert body["link"].endswith(f"/games/{game.pk}/?page=1#post-public-{POST}")
    assert "post_id" not in body and "pk" not in body
    again = api(town).post(url, {"game_id": game.pk, "number": POST, "note": "v2"}, format="json")
    assert again.status_code == 200 and again.json()["id"] == body["id"]
    listed = api(town).get(url).json()["results"]
    assert [b["note"] for b in listed] == ["v2"]
    edited = api(town).patch(f"{url}{body['id']}/", {"note": NOTE}, format="json")
    assert edited.status_code == 200 and edited.json()["note"] == NOTE
    unchanged = api(town).patch(f"{url}{body['id']}/", {}, format="json")
    assert unchanged.status_code == 200 and unchanged.json()["note"] == NOTE
    # Another person neither lists, edits nor removes it, and never sees the note.
    other = _town(game)[1].user
    assert api(other).get(url).json() == {"results": []}
    for response in (
        api(other).patch(f"{url}{body['id']}/", {"note": "x"}, format="json"),
        api(other).delete(f"{url}{body['id']}/"),
    ):
        assert response.status_code == 404 and response.json()["code"] == "no_bookmark"
        assert NOTE not in response.content.decode()
    gone = api(town).delete(f"{url}{body['id']}/")
    assert gone.status_code == 200 and gone.json() == {"ok": True}
    assert api(town).get(url).json() == {"results": []}


def test_the_api_answers_a_hidden_thread_with_404_and_bad_input_with_a_code(game):
    town = _town(game)[0].user
    url = "/api/v1/bookmarks/"
    hidden = api(town).post(
        url, {"game_id": game.pk, "thread": "mafia", "number": 1}, format="json"
    )
    assert hidden.status_code == 404 and hidden.json()["code"] == "no_thread"
    # The same answer as a thread that does not exist at all.
    nothing = api(town).post(
        url, {"game_id": game.pk, "thread": "masons", "number": 1}, format="json"
    )
    assert nothing.json() == hidden.json()
    missing = api(town).post(url, {"game_id": game.pk, "number": 9}, format="json")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    bad = api(town).post(url, {"game_id": game.pk, "number": 1, "note": "x" * 1001}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "note"
    assert api().get(url).status_code in (401, 403)
    assert api().post(url, {"game_id": game.pk, "number": 1}, format="json").status_code in (
        401,
        403,
    )
    assert not Bookmark.objects.exists()


def test_the_openapi_document_has_the_bookmarks(db):
    paths = api().get("/api/v1/openapi.json").json()["paths"]
    assert {"get", "post"} <= set(paths["/api/v1/bookmarks/"])
    assert {"patch", "delete"} <= set(paths["/api/v1/bookmarks/{bookmark_id}/"])


# -- the pages ------------------------------------------------------------------------------
def test_the_bookmark_link_is_under_every_post_the_same_for_everyone(game, client_for):
    goon = _goons(game)[0].user
    link = f'href="/games/{game.pk}/posts/1/bookmark/"'
    for who in (None, goon, _town(game)[0].user):
        assert link in client_for(who).get(f"/games/{game.pk}/").content.decode()
    chat = client_for(goon).get(f"/games/{game.pk}/t/mafia/").content.decode()
    assert f'href="/games/{game.pk}/t/mafia/posts/1/bookmark/"' in chat


def test_bookmarking_from_the_page_and_my_bookmarks(game, client_for):
    town = _town(game)[0].user
    client = client_for(town)
    page = client.get(f"/games/{game.pk}/posts/{POST}/bookmark/")
    assert page.status_code == 200 and "I think the quiet ones are scum." in page.content.decode()
    saved = client.post(f"/games/{game.pk}/posts/{POST}/bookmark/", {"note": NOTE})
    assert saved.status_code == 302 and saved["Location"] == "/bookmarks/"
    bookmark = Bookmark.objects.get(user=town)
    assert bookmark.note == NOTE
    mine = client.get("/bookmarks/").content.decode()
    assert NOTE in mine and game.title in mine and f"post #{POST}" in mine
    assert f'href="/games/{game.pk}/?page=1#post-public-{POST}"' in mine
    assert 'href="/bookmarks/" class="current" aria-current="page">My bookmarks' in mine
    # The post's page says it is bookmarked, to its bookmarker only.
    assert (
        "You bookmarked this post"
        in client.get(f"/games/{game.pk}/posts/{POST}/bookmark/").content.decode()
    )
    other = client_for(_town(game)[1].user)
    assert (
        "You bookmarked"
        not in other.get(f"/games/{game.pk}/posts/{POST}/bookmark/").content.decode()
    )
    client.post(f"/bookmarks/{bookmark.pk}/", {"note": "second thoughts"})
    assert Bookmark.objects.get().note == "second thoughts"
    client.post(f"/bookmarks/{bookmark.pk}/remove/")
    assert not Bookmark.objects.exists()
    assert "No bookmarks yet." in client.get("/bookmarks/").content.decode()


def test_nobody_else_sees_a_note_and_a_hidden_post_is_404(game, client_for):
    goon = _goons(game)[0]
    bookmark, _ = services.bookmark_post(goon.user, game.pk, 1, thread="mafia", note=NOTE)
    town = client_for(_town(game)[0].user)
    assert town.get(f"/games/{game.pk}/t/mafia/posts/1/bookmark/").status_code == 404
    assert (
        town.post(f"/games/{game.pk}/t/mafia/posts/1/bookmark/", {"note": "x"}).status_code == 404
    )
    assert town.post(f"/bookmarks/{bookmark.pk}/", {"note": "x"}).status_code == 404
    assert town.post(f"/bookmarks/{bookmark.pk}/remove/").status_code == 404
    for who in (None, _town(game)[0].user, _goons(game)[1].user, game.host):
        client = client_for(who)
        for url in ("/bookmarks/", f"/games/{game.pk}/", f"/games/{game.pk}/t/mafia/"):
            response = client.get(url, follow=True)
            assert NOTE not in response.content.decode(), (who, url)
        assert NOTE not in api(who).get("/api/v1/bookmarks/").content.decode()
    assert Bookmark.objects.get().note == NOTE
    assert client_for(None).get("/bookmarks/").status_code == 302  # to the log-in
