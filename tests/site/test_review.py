"""The game review (issue 34, part 1): ``/games/{id}/review/`` and its API answer, 404 for
everyone until the game has ended; then the thread step by step with the vote count as it
stood after each post, each phase's acts and explanations, every role, and each day's wagon
chart (a server-drawn SVG with its data table). Real services throughout, no mocks."""

from __future__ import annotations

import html as html_lib
import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games import services
from games.models import Game, Post, Slot, Vote
from games.reads.activity import count_history, vote_log
from games.reads.review import count_at as review_count_at
from games.reads.review import phase_points, read_review
from games.reads.vote_count import SKIP_LABEL, vote_count
from tests.conftest import current_phase, slot_of, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _client(user: Any = None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _text(response: Any) -> str:
    return html_lib.unescape(response.content.decode())


def _vote(slot: Slot, target: Slot, words: str = "") -> Post:
    return services.submit_post(
        slot.user, slot.game_id, body=f"{words}**Vote: {target.display_name}**"
    ).post


@pytest.fixture
def played(make_game, host):
    """A cop-and-doctor nine (hammer): day 1 with a vote, an unvote, a numbered count and
    the first goon hammered; night 1 the second goon kills, the doctor protects, the cop
    investigates; day 2 "Zoë Smith" replaces a townie who voted on day 1, and the second
    goon is voted out: the town wins. Returns (game, names of interest)."""
    game = make_game("forum-cop-doctor-nine", starts_with="day", vote_rule="majority_hammer")
    goon_a, goon_b = slots_of(game, "goon")
    cop, doctor = slot_of(game, "cop"), slot_of(game, "doctor")
    town = slots_of(game, "vanilla_townie")
    gus = town[1]
    gus.user.username = "gus"
    gus.user.save(update_fields=["username"])
    services.submit_post(town[0].user, game.pk, body="Good morning, everyone.")
    _vote(town[0], goon_a)
    _vote(gus, town[0], "Suspicious greeting. ")
    services.unvote(gus.user, game.pk)
    _vote(gus, goon_a)
    services.post_vote_count(host, game.pk)  # Vote count 1.1: goon A 2
    for voter in (town[2], town[3], cop):
        _vote(voter, goon_a)  # the fifth vote (of 9 alive) hammers
    game.refresh_from_db()
    assert game.current_phase().is_night
    services.submit_night_action(goon_b.user, game.pk, ability="kill", targets=[town[0].pk])
    services.submit_night_action(doctor.user, game.pk, ability="protect", targets=[cop.pk])
    services.submit_night_action(cop.user, game.pk, ability="investigate", targets=[goon_b.pk])
    services.cut_deadline_now(host, game.pk)  # night 1 resolves: town[0] dies
    game.refresh_from_db()
    assert game.current_phase().is_day
    zoe = UserFactory(username="Zoë Smith")
    services.replace_player(host, game.pk, gus.pk, zoe)
    gus.refresh_from_db()
    for voter in (gus, town[2], town[3], cop):  # 7 alive: 4 eliminate
        _vote(voter, goon_b)
    game.refresh_from_db()
    assert game.is_finished and game.winner == "town"
    named = {"gus": gus, "goon_a": goon_a, "goon_b": goon_b, "cop": cop, "town0": town[0]}
    return game, named


# -- 404 until the end, for everyone -------------------------------------------------------
def test_the_review_is_404_for_everyone_until_the_end(make_game, host):
    game = make_game("forum-vanilla")
    player = game.slots.select_related("user").first()
    viewers = [None, UserFactory(username="spectator"), player.user, host]
    for who in viewers:
        client = _client(who)
        assert client.get(f"/games/{game.pk}/review/").status_code == 404, who
        assert client.get(f"/games/{game.pk}/review/?phase=1").status_code == 404, who
        assert client.get(f"/api/v1/games/{game.pk}/review/").status_code == 404, who
        page = _text(client.get(f"/games/{game.pk}/"))
        assert f"/games/{game.pk}/review/" not in page
    for goon in slots_of(game, "goon"):
        services.modkill(host, game.pk, goon.pk)
    for who in viewers:
        client = _client(who)
        assert client.get(f"/games/{game.pk}/review/").status_code == 200, who
        assert client.get(f"/api/v1/games/{game.pk}/review/").status_code == 200, who
    # The finished game's pages link to it.
    assert f"/games/{game.pk}/review/" in _text(_client().get(f"/games/{game.pk}/archive/"))
    assert f"/games/{game.pk}/review/" in _text(_client().get(f"/games/{game.pk}/"))


def test_a_point_that_is_not_in_the_game_is_404(played):
    game, _ = played
    client = _client()
    for query in ("?phase=99", "?phase=x", "?phase=1&post=999999", "?phase=1&post=-1"):
        assert client.get(f"/games/{game.pk}/review/{query}").status_code == 404, query


# -- the thread, the counts, the acts ------------------------------------------------------
def test_each_phase_shows_its_posts_roles_acts_and_explanations(played):
    game, who = played
    client = _client()
    day1 = _text(client.get(f"/games/{game.pk}/review/?phase=1"))
    assert "Good morning, everyone." in day1 and "Suspicious greeting." in day1
    assert "Goon" in day1 and "Cop" in day1 and "Doctor" in day1  # every role
    # the day's end: its elimination explained
    night = game.phases.get(number=2)
    night_page = _text(client.get(f"/games/{game.pk}/review/?phase=2"))
    assert "What happened, Night 1" in night_page
    for line in night.report["explanation"]:
        rendered = re.sub(r"\bP(\d+)\b", lambda m: _holder_then(game, int(m.group(1))), line)
        assert rendered in night_page, line
    # the night actions with their actors and targets
    record = night_page[night_page.index("What happened, Night 1") :]
    town0, goon_b, cop = (who[k].display_name for k in ("town0", "goon_b", "cop"))
    assert f"{goon_b}</td><td>Kill</td><td>{town0}" in record
    assert f"{cop}</td><td>Investigate</td><td>{goon_b}" in record
    # the API: the same phases, posts, acts and explanations
    api = client.get(f"/api/v1/games/{game.pk}/review/").json()
    phases = {p["number"]: p for p in api["phases"]}
    public = Post.objects.filter(game=game, thread="public", phase__number=1)
    numbers = sorted(public.values_list("number", flat=True))
    assert [p["number"] for p in phases[1]["posts"]] == numbers
    assert {a["ability"] for a in phases[2]["actions"]} == {"kill", "protect", "investigate"}
    assert phases[2]["explanation"] and phases[2]["count"] is None
    assert {s["role"] for s in api["slots"]} == {"goon", "cop", "doctor", "vanilla_townie"}
    # the posts made once the game was over close its last phase; the sign-ups' are not here
    last = max(phases)
    assert any("The game is over" in p["html"] for p in phases[last]["posts"])
    assert "The game is over" in _text(client.get(f"/games/{game.pk}/review/?phase={last}"))
    over = Post.objects.filter(game=game, thread="public", phase__isnull=True)
    in_review = {p["number"] for ph in phases.values() for p in ph["posts"]}
    assert (
        over.exists() and {p.number for p in over if p.created_at >= game.started_at} <= in_review
    )


def test_a_day_shot_is_explained_under_its_post_and_counts_from_then(make_game, host):
    game = make_game("forum-third-party-ten")
    vig = slot_of(game, "day_vigilante")
    townies = [s for s in slots_of(game, "vanilla_townie") if not s.modifiers]
    shot, voter = townies[0], townies[1]  # plain votes: one each
    _vote(shot, voter)  # the townie to be shot votes first: its vote stands until the shot
    action = services.use_day_action(vig.user, game.pk, target=shot.pk)
    assert action.post is not None
    _vote(voter, shot)  # a vote on the dead counts for nothing
    others = game.slots.filter(alive=True).exclude(alignment="town").order_by("-alignment")
    for slot in list(others):  # the mafia, then the third parties, till the town has won
        game.refresh_from_db()
        if not game.is_finished:
            services.modkill(host, game.pk, slot.pk)
    game.refresh_from_db()
    assert game.is_finished
    url = f"/games/{game.pk}/review/?phase=1&post="
    at_shot = _text(_client().get(f"{url}{action.post.number}"))
    post = at_shot[at_shot.index(f'id="p{action.post.number}"') :]
    assert "Day action, as the resolver explained it" in post
    explained = action.report["explanation"]
    assert explained and all(
        re.sub(r"\bP(\d+)\b", lambda m: _holder_then(game, int(m.group(1))), line) in post
        for line in explained
    )
    before = _text(_client().get(f"{url}{action.post.number - 1}"))
    assert (voter.display_name, 1) in _wagons(before)
    assert voter.display_name not in dict(_wagons(at_shot))  # the shot player's vote is gone
    alive = re.search(r"With (\d+) alive", at_shot)
    assert alive and int(alive.group(1)) == int(re.search(r"With (\d+) alive", before).group(1)) - 1


def _holder_then(game: Game, seat: int) -> str:
    slot = game.slots.select_related("user").get(seat=seat)
    former = slot.replacements.order_by("at").select_related("old_user").first()
    return former.old_user.username if former else slot.display_name


def _wagons(text: str) -> list[tuple[str, int]]:
    """The review page's count: (target, votes) per wagon."""
    section = text[text.index('id="review-count"') : text.index('id="review-posts"')]
    found = re.findall(r'class="target">([^<]+)</span> <span class="count">\((\d+)\)', section)
    return [(t.strip(), int(n)) for t, n in found]


def test_the_count_after_a_post_is_the_count_history_then(played):
    game, who = played
    (numbered,) = [c for c in count_history(game) if c["label"] == "Vote count 1.1"]
    assert numbered["post_number"] is not None
    page = _text(_client().get(f"/games/{game.pk}/review/?phase=1&post={numbered['post_number']}"))
    expected = [(w["name"], w["count"]) for w in numbered["data"]["wagons"]]
    assert _wagons(page) == expected == [(who["goon_a"].display_name, 2)]
    # after the unvote: gus's vote on town[0] is gone; before it, it stood
    unvote = next(v for v in vote_log(game) if v["kind"] == "unvote")
    url = f"/games/{game.pk}/review/?phase=1&post="
    before = _text(_client().get(f"{url}{unvote['post_number'] - 1}"))
    after = _text(_client().get(f"{url}{unvote['post_number']}"))
    town0 = who["town0"].display_name
    assert (town0, 1) in _wagons(before) and town0 not in dict(_wagons(after))
    # the day's end: the hammer (5 of 9) on the first goon, as its final count says
    end = _text(_client().get(f"/games/{game.pk}/review/?phase=1"))
    final = game.phases.get(number=1).final_count
    assert _wagons(end) == [(w["name"], w["count"]) for w in final["wagons"]]
    assert _wagons(end)[0] == (who["goon_a"].display_name, 5)
    # stepping links: previous and next posts, the phases around
    assert f"?phase=1&post={unvote['post_number'] - 1}#review-count" in after
    assert f"?phase=1&post={unvote['post_number'] + 1}#review-count" in after
    assert "?phase=2" in end and 'aria-current="page"' in end


def test_the_wagon_charts_table_is_the_vote_log(played):
    game, _ = played
    log = vote_log(game)
    review = read_review(game)  # its own light read of the log: the same rows
    assert [v.row for p in review.phases for v in review.votes(p)] == log
    api = _client().get(f"/api/v1/games/{game.pk}/review/").json()
    for phase in api["phases"]:
        if phase["kind"] != "day":
            assert phase["wagons"] is None
            continue
        chart = phase["wagons"]
        day = [v for v in log if v["phase"] == phase["number"]]
        assert len(chart["steps"]) == len(day)
        names = [s["name"] for s in chart["series"]]
        standing: dict[str, str] = {}
        for step, vote in zip(chart["steps"], day, strict=True):
            if vote["kind"] == "unvote":
                standing.pop(vote["voter"], None)
            else:
                standing[vote["voter"]] = vote["target"] or SKIP_LABEL
            expected = [sum(1 for t in standing.values() if t == name) for name in names]
            assert step["votes"] == expected, (vote, step)
            assert (step["voter"], step["post_number"]) == (vote["voter"], vote["post_number"])
        # the page's table gives the same numbers, row by row
        page = _text(_client().get(f"/games/{game.pk}/review/?phase={phase['number']}"))
        start = page.index('id="wagon-table"')
        table = page[start : page.index("</table>", start)]
        rows = re.findall(r"<tr>(.*?)</tr>", table[table.index("<tbody>") :], re.S)
        cells = [[int(n) for n in re.findall(r'<td class="num">(\d+)</td>', r)] for r in rows]
        assert cells == [s["votes"] for s in chart["steps"]]
        header = re.findall(r'<th scope="col">([^<]+)</th>', table)
        assert header == ["Post", "Vote", *names]
        # the SVG says what it is
        assert '<svg role="img" aria-labelledby="wagon-svg-title wagon-svg-desc"' in page
        assert f"Votes on each player through {phase['label']}" in page
        assert page.count("<polyline") == len(names)
    day1 = api["phases"][0]["wagons"]
    assert max(day1["steps"][-1]["votes"]) == 5 and day1["majority"] == 5


def test_a_replaced_seat_is_named_by_its_holder_then(played):
    game, who = played
    gus = who["gus"]  # now Zoë Smith's seat
    day1 = _text(_client().get(f"/games/{game.pk}/review/?phase=1"))
    assert '<span class="name">gus</span>' in day1
    assert "gus votes" in day1 and "Zoë Smith votes" not in day1
    day2 = game.phases.filter(kind="day").order_by("number")[1]
    page2 = _text(_client().get(f"/games/{game.pk}/review/?phase={day2.number}"))
    assert "Zoë Smith votes" in page2 and "gus votes" not in page2
    api = _client().get(f"/api/v1/games/{game.pk}/review/").json()
    voters = [s["voter"] for p in api["phases"] if p["wagons"] for s in p["wagons"]["steps"]]
    assert "gus" in voters and "Zoë Smith" in voters
    seat = next(s for s in api["slots"] if s["slot_id"] == gus.pk)
    assert seat["name"] == "Zoë Smith"


def test_an_anonymous_games_review_shows_the_real_names(make_game, host):
    game = make_game("forum-vanilla", anonymous_names=True)
    slots = list(game.slots.select_related("user").order_by("seat"))
    assert all(s.mask_name for s in slots)
    talker = next(s for s in slots if s.role == "vanilla_townie")
    services.submit_post(talker.user, game.pk, body="Who are you all?")
    assert _client(host).get(f"/games/{game.pk}/review/").status_code == 404
    for goon in slots_of(game, "goon"):
        services.modkill(host, game.pk, goon.pk)
    page = _text(_client().get(f"/games/{game.pk}/review/"))
    for slot in slots:
        assert f"{slot.mask_name} ({slot.user.username})" in page
    assert f'<span class="name">{talker.mask_name} ({talker.user.username})</span>' in page
    api = _client().get(f"/api/v1/games/{game.pk}/review/").json()
    authors = {p["author"] for ph in api["phases"] for p in ph["posts"] if p["seat"]}
    assert authors == {f"{talker.mask_name} ({talker.user.username})"}


# -- efficiency ----------------------------------------------------------------------------
def test_a_long_game_reviews_in_a_bounded_number_of_queries(played):
    game, _ = played
    client = _client()
    url = f"/games/{game.pk}/review/?phase=1"

    def queries() -> int:
        client.get(url)  # warm the caches (sessions, labels) alike each time
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
            assert client.get(f"/api/v1/games/{game.pk}/review/").status_code == 200
        return len(captured)

    few = queries()
    day1 = game.phases.get(number=1)
    author = Slot.objects.select_related("user").filter(game=game).first()
    last = Post.objects.filter(game=game, thread="public").order_by("-number").first().number
    # 1,000 more posts on day 1 (as if made then), a third of them votes
    vote_target = next(s for s in game.slots.all() if s.pk != author.pk)
    rows = [
        Post(
            game=game, thread="public", author=author.user, slot=author, phase=day1,
            number=last + n, body=f"post {n}", html=f"<p>post {n}</p>",
        )
        for n in range(1, 1001)
    ]  # fmt: skip
    Post.objects.bulk_create(rows)
    made = Post.objects.filter(game=game, number__gt=last).order_by("number")
    Vote.objects.bulk_create(
        [Vote(phase=day1, voter=author, target=vote_target, post=p) for p in made[::3]]
    )
    many = queries()
    assert many <= few + 2, (few, many)
    assert many < 60, many


# -- the API document ------------------------------------------------------------------------
def _conforms(value: Any, schema: dict[str, Any], components: dict[str, Any], at: str) -> None:
    """``value`` is what ``schema`` says, every object closed (no key the document leaves
    out, every required one there)."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    if value is None:
        assert schema.get("nullable"), f"{at}: null where the document says not"
        return
    if "allOf" in schema:
        for part in schema["allOf"]:
            _conforms(value, part, components, at)
        return
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        assert isinstance(value, dict), at
        assert set(value) <= set(schema["properties"]), (
            f"{at}: {set(value) - set(schema['properties'])}"
        )
        assert set(schema.get("required", [])) <= set(value), at
        for key, item in value.items():
            _conforms(item, schema["properties"][key], components, f"{at}.{key}")
    elif kind == "array":
        assert isinstance(value, list), at
        for n, item in enumerate(value):
            _conforms(item, schema["items"], components, f"{at}[{n}]")
    elif kind == "integer":
        assert isinstance(value, int) and not isinstance(value, bool), at
    elif kind == "boolean":
        assert isinstance(value, bool), at
    elif kind == "string":
        assert isinstance(value, str), at


def test_the_answer_is_the_documented_shape(played):
    game, _ = played
    document = _client().get("/api/v1/openapi.json").json()
    operation = document["paths"]["/api/v1/games/{game_id}/review/"]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert "404" in operation["responses"]
    answer = _client().get(f"/api/v1/games/{game.pk}/review/").json()
    assert any(p["wagons"] and p["wagons"]["steps"] for p in answer["phases"])
    assert any(p["count"] and p["count"]["wagons"] for p in answer["phases"])
    _conforms(answer, schema, document["components"]["schemas"], "review")


def test_the_reviews_count_is_the_live_counts_with_loved_and_double_votes(make_game, host):
    """The review counts as the thread counted: a double voter's vote weighs two and a
    loved target needs one more (public modifiers here), after each post."""
    game = make_game("forum-third-party-ten")
    day = current_phase(game)
    townies = slots_of(game, "vanilla_townie")
    by_mod = {tuple(s.modifiers or ()): s for s in townies}
    double, loved = by_mod[("double_voter",)], by_mod[("loved",)]
    plain = next(s for s in townies if not s.modifiers)
    live: dict[int, list[tuple[str, int, int]]] = {}
    for voter, target in [(double, loved), (plain, loved), (loved, double)]:
        post = _vote(voter, target)
        live[post.number] = [
            (w["name"], w["count"], w["l_minus"]) for w in vote_count(day)["wagons"]
        ]
    assert live[min(live)][0][1:] == (2, vote_count(day)["majority"] + 1 - 2)  # loved: +1
    for slot in game.slots.filter(alive=True).exclude(alignment="town").order_by("-alignment"):
        game.refresh_from_db()
        if not game.is_finished:
            services.modkill(host, game.pk, slot.pk)
    game.refresh_from_db()
    review = read_review(game)
    for number, wagons in live.items():
        counted = review_count_at(review, review.phase(day.number), number, None)
        assert [(w["name"], w["count"], w["l_minus"]) for w in counted["wagons"]] == wagons


def test_a_long_day_is_paged_as_the_thread_is(make_game, host):
    """A page of the day's posts at a time (the thread's page size), the page holding
    the chosen post shown up to it; the count is still the day's as it stood then."""
    from games.reads.thread import POSTS_PER_PAGE

    game = make_game("forum-vanilla")
    speaker = slots_of(game, "vanilla_townie")[0]
    for i in range(POSTS_PER_PAGE + 10):
        services.submit_post(speaker.user, game.pk, body=f"Chatter number {i}.")
    for mafioso in game.slots.filter(alignment="mafia"):
        services.modkill(host, game.pk, mafioso.pk)
    game.refresh_from_db()
    review = read_review(game)
    numbers = [p.number for p in phase_points(review, review.phases[0])]
    # the day's posts, then the game's end closing it (its only phase)
    assert len(numbers) > POSTS_PER_PAGE and len(review.phases) == 1

    def shown(query: str) -> list[int]:
        page = _text(_client().get(f"/games/{game.pk}/review/?phase=1{query}"))
        section = page[page.index('id="review-posts"') :]
        return [int(n) for n in re.findall(r'<article id="p(\d+)"', section)]

    assert shown("") == numbers[:POSTS_PER_PAGE]
    assert shown("&page=2") == numbers[POSTS_PER_PAGE:]
    assert shown("&page=last") == numbers[POSTS_PER_PAGE:]
    assert (
        shown(f"&post={numbers[POSTS_PER_PAGE + 3]}")
        == numbers[POSTS_PER_PAGE : POSTS_PER_PAGE + 4]
    )
    assert shown(f"&post={numbers[2]}") == numbers[:3]
    page = _text(_client().get(f"/games/{game.pk}/review/?phase=1&page=1"))
    assert "page 1 of 2" in page and 'href="?page=2&phase=1"' in page
