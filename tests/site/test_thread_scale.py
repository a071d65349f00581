"""Thread pages at forum scale: the same queries however long the thread, and the shortcuts
that make that so (pages by post number, per-player counts and live positions kept up to
date incrementally, posts rendered once) give exactly what the plain reads give."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import fragments, services
from games.live import numbering
from games.models import GameEvent, Post
from games.reads import thread as thread_read

pytestmark = pytest.mark.django_db


def add_posts(game: Any, n: int, *, thread: str = "public", with_events: bool = True) -> None:
    """``n`` more posts by the players in turn (and the post events the service would write),
    inserted in bulk: a long thread in a fraction of a second."""
    slots = list(game.slots.order_by("seat"))
    phase = game.current_phase()
    last = thread_read.last_number(game, thread)
    posts = Post.objects.bulk_create(
        Post(
            game=game,
            thread=thread,
            author_id=slots[i % len(slots)].user_id,
            slot=slots[i % len(slots)],
            phase=phase,
            number=last + i + 1,
            body=f"post {last + i + 1}",
            html=f"<p>post {last + i + 1}</p>",
        )
        for i in range(n)
    )
    if with_events:
        game.refresh_from_db()
        seq = game.event_seq
        GameEvent.objects.bulk_create(
            GameEvent(game=game, seq=seq + i + 1, kind="post", payload={"id": p.pk})
            for i, p in enumerate(posts)
        )
        type(game).objects.filter(pk=game.pk).update(event_seq=seq + n)
    game.refresh_from_db()


def queries(client: Any, url: str) -> int:
    client.get(url)  # warm: the per-process counts catch up with the thread
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    return len(ctx.captured_queries)


def numbers(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<article id="post-public-(\d+)"', page)]


@pytest.fixture
def voting_game(make_game: Any) -> Any:
    """A forum game on day 1 with a standing vote count (votes are posts of their own)."""
    game = make_game("forum-vanilla")
    slots = list(game.slots.order_by("seat").select_related("user"))
    services.cast_vote(slots[0].user, game.pk, slots[1].pk)
    services.cast_vote(slots[2].user, game.pk, slots[1].pk)
    game.refresh_from_db()
    return game


def test_thread_page_queries_do_not_grow_with_the_thread(voting_game, client_for):
    game = voting_game
    player = game.slots.order_by("seat").last().user
    urls = [
        f"/games/{game.pk}/?page=1",
        f"/games/{game.pk}/?page=2",
        f"/games/{game.pk}/?page=last",
        f"/games/{game.pk}/?iso=3&page=1",
        f"/games/{game.pk}/?iso=3&page=last",
        f"/api/v1/games/{game.pk}/posts/?page=2",
        f"/api/v1/games/{game.pk}/posts/?iso=3&page=last",
    ]
    add_posts(game, 60)
    short = {
        (who, url): queries(client, url)
        for who, client in (("anonymous", client_for(None)), ("player", client_for(player)))
        for url in urls
    }
    add_posts(game, 2000)
    long = {
        (who, url): queries(client, url)
        for who, client in (("anonymous", client_for(None)), ("player", client_for(player)))
        for url in urls
    }
    # Never more for the long thread (fewer where a page that was filling is now full and
    # kept: the short thread's first ISO page).
    assert long.keys() == short.keys()
    assert all(long[k] <= short[k] for k in short), (short, long)
    assert (
        long[("anonymous", f"/games/{game.pk}/?page=last")]
        == short[("anonymous", f"/games/{game.pk}/?page=last")]
    )
    # And few: the page, the viewer, the slots, the phase, the votes, who is away (V/LA),
    # the live positions.
    assert max(short.values()) <= 12


def test_a_new_post_costs_one_small_count_not_a_recount(voting_game, client_for):
    game = voting_game
    add_posts(game, 300)
    client = client_for(None)
    url = f"/games/{game.pk}/?page=last"
    steady = queries(client, url)
    poster = game.slots.order_by("seat").first().user
    services.submit_post(poster, game.pk, body="One more thought.")  # as a player posts
    with CaptureQueriesContext(connection) as ctx:
        client.get(url)
    # The per-player counts and the live positions each count the one new post/event; the
    # thread's last number and its newest page are read again. What is kept per change of
    # state (the slots, the current phase, the day's standing votes, who is away, the
    # panels) stays: a post changes none of it. Nothing that grows with the thread.
    reread = [
        q["sql"]
        for q in ctx.captured_queries
        if q["sql"].startswith('SELECT MAX("games_post"."number")')
        or q["sql"].endswith('ORDER BY "games_post"."number" ASC')
    ]
    assert len(reread) == 2
    assert len(ctx.captured_queries) == steady + 2 + len(reread)
    counted = [
        q["sql"]
        for q in ctx.captured_queries
        if "COUNT(" in q["sql"] and ("games_post" in q["sql"] or "games_gameevent" in q["sql"])
    ]
    assert len(counted) == 2 and all('"number" >' in sql or '"seq" >' in sql for sql in counted)


def test_pages_hold_exactly_the_posts_the_plain_reads_give(voting_game, client_for):
    game = voting_game
    add_posts(game, 101)  # 103 posts with the two votes: 5 pages, the last one of 3
    client = client_for(None)
    total = Post.objects.filter(game=game, thread="public").count()
    every = list(range(1, total + 1))
    for page in range(1, 6):
        got = numbers(client.get(f"/games/{game.pk}/?page={page}").content.decode())
        assert got == every[(page - 1) * 25 : page * 25]
    assert numbers(client.get(f"/games/{game.pk}/?page=last").content.decode()) == every[100:]
    assert numbers(client.get(f"/games/{game.pk}/?page=99").content.decode()) == every[100:]
    assert numbers(client.get(f"/games/{game.pk}/?page=junk").content.decode()) == every[:25]

    # ISO of two players, every page (counted from the front and from the back).
    seats = [2, 5]
    theirs = list(
        Post.objects.filter(game=game, thread="public", slot__seat__in=seats)
        .order_by("number")
        .values_list("number", flat=True)
    )
    pages = -(-len(theirs) // 25)
    assert pages >= 2
    for page in range(1, pages + 1):
        url = f"/games/{game.pk}/?iso=2&iso=5&page={page}"
        assert numbers(client.get(url).content.decode()) == theirs[(page - 1) * 25 : page * 25]
    api = client.get(f"/api/v1/games/{game.pk}/posts/?iso=2&iso=5&page=last").json()
    assert [p["number"] for p in api["results"]] == theirs[(pages - 1) * 25 :]
    assert api["count"] == len(theirs) and api["num_pages"] == pages
    whole = client.get(f"/api/v1/games/{game.pk}/posts/?page=2").json()
    assert whole["count"] == total and [p["number"] for p in whole["results"]] == every[25:50]


def test_iso_counts_stay_exact_as_the_thread_grows(voting_game, client_for):
    game = voting_game
    client = client_for(None)

    def shown() -> dict[int, int]:
        data = client.get(f"/api/v1/games/{game.pk}/posts/").json()
        return {c["seat"]: c["posts"] for c in data["iso_counts"]}

    def truth() -> dict[int, int]:
        counts = dict.fromkeys(game.slots.values_list("seat", flat=True), 0)
        for seat in Post.objects.filter(game=game, thread="public", slot__isnull=False).values_list(
            "slot__seat", flat=True
        ):
            counts[seat] += 1
        return counts

    assert shown() == truth()
    add_posts(game, 37)
    assert shown() == truth()
    slot = game.slots.order_by("seat").select_related("user")[3]
    services.submit_post(slot.user, game.pk, body="one more, through the service")
    services.host_post(game.host, game.pk, body="the host's posts count for nobody")
    assert shown() == truth()


def test_live_positions_kept_incrementally_equal_a_recount(voting_game):
    game = voting_game
    audiences = ["public", "host", "mafia", f"slot:{game.slots.first().pk}"]

    def recount(floor: int) -> dict[str, int]:
        rows = GameEvent.objects.filter(game=game, seq__lte=floor)
        counts = {a: rows.filter(audience=a).exclude(kind="vote_count").count() for a in audiences}
        counts["~vote_count"] = rows.filter(kind="vote_count").count()
        return counts

    game.refresh_from_db()
    early = game.event_seq
    assert numbering.positions_at(game.pk, audiences, early) == recount(early)
    add_posts(game, 40)
    slots = list(game.slots.order_by("seat").select_related("user"))
    services.cast_vote(slots[4].user, game.pk, slots[1].pk)
    game.refresh_from_db()
    assert numbering.positions_at(game.pk, audiences, game.event_seq) == recount(game.event_seq)
    # An older floor (a request that read the game before the newest events) still counts
    # only what was there then.
    assert numbering.positions_at(game.pk, audiences, early) == recount(early)
    assert numbering.positions_at(game.pk, audiences, early + 3) == recount(early + 3)


def test_pagination_links_around_the_page():
    page = thread_read.ThreadPage(number=7, num_pages=400, count=10_000)
    assert page.links == [
        (1, "page"),
        (4, "gap"),
        (5, "page"),
        (6, "page"),
        (7, "current"),
        (8, "page"),
        (9, "page"),
        (399, "gap"),
        (400, "page"),
    ]
    assert thread_read.ThreadPage(number=1, num_pages=3, count=60).links == [
        (1, "current"),
        (2, "page"),
        (3, "page"),
    ]


def test_the_pagination_of_a_long_thread_is_short(voting_game, client_for):
    game = voting_game
    add_posts(game, 2000, with_events=False)
    page = client_for(None).get(f"/games/{game.pk}/?page=40").content.decode()
    nav = re.search(r'<nav class="pagination".*?</nav>', page, re.S).group(0)
    assert re.findall(r'href="\?page=(\w+)"', nav) == [
        "39", "1", "38", "39", "41", "42", "81", "41", "last",
    ]  # fmt: skip
    assert len(nav) < 1000


def test_cached_post_html_is_what_render_post_gives_and_follows_the_post(voting_game):
    post = Post.objects.filter(game=voting_game).select_related("author").first()
    assert fragments.render_posts([post]) == [fragments.render_post(post)]
    # Anything new on the post (a field, an annotation, another author name) is another key.
    before = fragments._post_key(post, b"")
    post.vote_note = "This vote did not count."
    assert fragments._post_key(post, b"") != before
    del post.vote_note
    post.author.username = "renamed"
    assert fragments._post_key(post, b"") != before
    assert fragments._post_key(post, b"other template") != fragments._post_key(post, b"")


def section(page: str, element_id: str) -> str:
    """The ``<section id=...>`` of a page, CSRF tokens blanked (each request has its own)."""
    match = re.search(rf'<section id="{element_id}".*?</section>', page, re.S)
    assert match, f"no #{element_id} on the page"
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", match.group(0))


def test_the_pages_cached_sidebar_follows_every_change(voting_game, client_for, host):
    """The page keeps its slots, phase, vote count and players panel per game event: a vote,
    an unvote, V/LA, a death and a new day each show at once, and the page never shows a
    sidebar the plain reads and renders would not (for a spectator or for a player)."""
    from datetime import timedelta

    from django.contrib.auth.models import AnonymousUser
    from django.template.loader import render_to_string
    from django.utils import timezone

    from games.reads.vote_count import day_count
    from tests.factories import UserFactory

    game = voting_game
    slots = list(game.slots.order_by("seat").select_related("user"))
    me = slots[5]
    clients = {None: client_for(None), me.user: client_for(me.user)}
    url = f"/games/{game.pk}/"

    def shown() -> dict[str, Any]:
        pages = {who: c.get(url).content.decode() for who, c in clients.items()}
        game.refresh_from_db()
        vc = day_count(fragments.counted_phase(game))
        plain_count = render_to_string("games/_vote_count.html", {"game": game, "vc": vc})
        for who, page in pages.items():
            assert section(page, "vote-count") == section(plain_count, "vote-count"), (
                "the page's count is stale"
            )
            context = fragments.players_context(game, who or AnonymousUser())
            context["csrf_token"] = "blanked"
            plain_players = render_to_string("games/_players_panel.html", context)
            assert section(page, "players") == section(plain_players, "players"), (
                f"the players panel of {who or 'a spectator'} is stale"
            )
        return vc

    def wagon_of(vc: dict[str, Any], slot: Any) -> int:
        return next(w["count"] for w in vc["wagons"] if w["target"]["slot_id"] == slot.pk)

    assert wagon_of(shown(), slots[1]) == 2
    assert wagon_of(shown(), slots[1]) == 2  # the cached one, the same
    services.cast_vote(slots[3].user, game.pk, slots[1].pk)
    assert wagon_of(shown(), slots[1]) == 3
    services.cast_vote(me.user, game.pk, slots[2].pk)  # my panel: "your vote", Unvote
    assert "data-unvote" in section(clients[me.user].get(url).content.decode(), "players")
    assert wagon_of(shown(), slots[2]) == 1
    services.unvote(slots[0].user, game.pk)
    assert wagon_of(shown(), slots[1]) == 2
    today = timezone.now().date()
    services.mark_away(slots[4].user, game.pk, starts=today, ends=today + timedelta(days=1))
    assert [p["seat"] for p in shown()["away"]] == [slots[4].seat]
    services.modkill(host, game.pk, slots[3].pk)  # a death: the panel and the count change
    assert wagon_of(shown(), slots[1]) == 1
    services.replace_player(host, game.pk, slots[6].pk, UserFactory(username="newcomer"))
    assert "newcomer" in section(clients[None].get(url).content.decode(), "players")
    shown()
    services.cut_deadline_now(host, game.pk)  # the day ends: its final count is shown
    assert shown()["resolved"]


def test_a_page_is_read_once_and_the_newest_page_once_per_new_post(voting_game, client_for):
    game = voting_game
    add_posts(game, 50 - thread_read.last_number(game, "public"))  # pages 1 and 2 are full
    client = client_for(None)

    def page_reads(url: str) -> tuple[list[int], int]:
        with CaptureQueriesContext(connection) as ctx:
            page = client.get(url).content.decode()
        reads = [q for q in ctx.captured_queries if q["sql"].endswith('"games_post"."number" ASC')]
        return numbers(page), len(reads)

    assert page_reads(f"/games/{game.pk}/?page=2") == (list(range(26, 51)), 1)
    assert page_reads(f"/games/{game.pk}/?page=2") == (list(range(26, 51)), 0)  # kept
    add_posts(game, 1)
    assert page_reads(f"/games/{game.pk}/?page=last") == ([51], 1)
    add_posts(game, 1)
    assert page_reads(f"/games/{game.pk}/?page=last") == ([51, 52], 1)  # still filling
    assert page_reads(f"/games/{game.pk}/?page=last") == ([51, 52], 0)  # no new post: kept
    assert page_reads(f"/games/{game.pk}/?page=2")[1] == 0


def test_state_seq_moves_with_every_change_but_plain_posts(voting_game, host):
    """What pages keep per change of state is versioned by ``state_seq``: a post alone
    leaves it (and everything it versions) alone; a vote, V/LA or anything else moves it."""
    from datetime import timedelta

    from django.utils import timezone

    game = voting_game
    slots = list(game.slots.order_by("seat").select_related("user"))

    def seqs() -> tuple[int, int]:
        game.refresh_from_db()
        return game.event_seq, game.state_seq

    def moved(change: Any) -> bool:
        event_before, state_before = seqs()
        change()
        event_after, state_after = seqs()
        assert event_after > event_before, "every change writes events"
        assert state_after in (state_before, event_after)
        return state_after != state_before

    user = slots[4].user
    assert not moved(lambda: services.submit_post(user, game.pk, body="Just talking."))
    assert not moved(lambda: services.host_post(host, game.pk, body="Host here."))
    assert not moved(  # a vote that does not count: only the post (and its note)
        lambda: services.submit_post(user, game.pk, body="[b]vote: nobody-by-that-name[/b]")
    )
    assert moved(lambda: services.submit_post(user, game.pk, body=f"[b]vote: {slots[1].user}[/b]"))
    assert moved(lambda: services.unvote(user, game.pk))
    assert moved(lambda: services.cast_vote(user, game.pk, slots[2].pk))
    today = timezone.now().date()
    assert moved(lambda: services.mark_away(user, game.pk, starts=today, ends=today + timedelta(1)))
    assert moved(lambda: services.modkill(host, game.pk, slots[6].pk))
