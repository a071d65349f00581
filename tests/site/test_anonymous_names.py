"""Anonymous games (``Game.anonymous_names``, issue 33): the seats get masked names from a
deck when the game starts; while it runs everyone but the host sees only them (pages, the
API, votes, mentions, the profile's record); the end reveals "Mask (real name)"."""

from __future__ import annotations

import re
from typing import Any

import pytest
from rest_framework.test import APIClient

from games import naming, services
from games.live import audiences as live_audiences
from games.live import replay as live_replay
from games.models import Game, GameStatus, Replacement, Slot
from games.name_decks import MASK_NAMES, deal_masks
from games.setups import SETUPS
from notifications.models import Notification
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

# Real names no page writes by chance: a hit is a leak.
REAL = re.compile(r"realqx\d+")


def api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def masked_game(host: Any, *, start: bool = True, setup: str = "forum-vanilla") -> Game:
    kwargs = SETUPS[setup].game_kwargs()
    kwargs.update(anonymous_names=True)
    game = services.create_game(host, title="Masked ball", seed=11, **kwargs)
    for i in range(1, game.player_cap + 1):
        services.join_game(UserFactory(username=f"realqx{i}"), game.pk)
    if start:
        services.start_game(host, game.pk)
    game.refresh_from_db()
    return game


def seats(game: Game) -> list[Slot]:
    return list(game.slots.select_related("user", "game").order_by("seat"))


def leaks(body: str, *own: str) -> set[str]:
    return set(REAL.findall(body)) - set(own)


# -- the deck and the one switch -------------------------------------------------------------
def test_the_deck_deals_distinct_names_from_the_seed():
    assert len(MASK_NAMES) >= 50  # the most players a game takes
    assert len({naming.fold(n) for n in MASK_NAMES}) == len(MASK_NAMES)
    dealt = deal_masks(42, 12)
    assert len(set(dealt)) == 12 and set(dealt) <= set(MASK_NAMES)
    assert deal_masks(42, 12) == dealt  # the game's seed replays the deal
    assert deal_masks(43, 12) != dealt
    # Names of accounts are left out while the deck has enough without them.
    taken = [n.upper() for n in MASK_NAMES[:30]]
    assert not set(deal_masks(42, 30, taken)) & set(MASK_NAMES[:30])
    assert len(set(deal_masks(42, 50, taken))) == 50


def test_a_mask_is_no_account_name(host):
    dealt = deal_masks(11, 9)[0]  # what this game's seed deals first when no name is taken
    # An account of that name (an agent's would lend the seat its badge):
    UserFactory(username=dealt.lower())
    game = masked_game(host, setup="forum-cop-doctor-nine")
    assert game.seed == 11 and dealt not in {s.mask_name for s in seats(game)}


def test_a_seat_is_named_by_the_game_status():
    class G:
        anonymous_names = True
        status = GameStatus.SIGNUPS

    game = G()
    assert naming.shown_name(game, "", "ann") == "ann"  # no mask yet: sign-ups
    game.status = GameStatus.RUNNING
    assert naming.shown_name(game, "Wren", "ann") == "Wren"
    assert naming.masks_hide(game)
    game.status = GameStatus.FINISHED
    assert naming.shown_name(game, "Wren", "ann") == "Wren (ann)"
    assert not naming.masks_hide(game)


def test_sign_ups_show_real_names_and_the_start_deals_masks(host, client_for):
    game = masked_game(host, start=False)
    assert all(not s.mask_name for s in seats(game))
    assert {s.display_name for s in seats(game)} == {f"realqx{i}" for i in range(1, 8)}
    assert "realqx3" in client_for(None).get(f"/games/{game.pk}/").content.decode()
    signed_up = {s.pk: (s.seat, s.user_id) for s in seats(game)}
    services.start_game(host, game.pk)
    game.refresh_from_db()
    masks = [s.mask_name for s in seats(game)]
    assert len(set(masks)) == 7 and set(masks) <= set(MASK_NAMES)
    assert [s.display_name for s in seats(game)] == masks
    # The sign-ups showed each seat's id and number beside its name: the seats get new
    # ids, and are dealt at random even where the host keeps the sign-up order.
    assert game.seats_in_signup_order
    assert not set(signed_up) & {s.pk for s in seats(game)}
    assert sorted(signed_up.values()) != sorted((s.seat, s.user_id) for s in seats(game))


# -- while it runs -----------------------------------------------------------------------------
def test_nobody_but_the_host_sees_a_real_name_while_it_runs(host, client_for):
    game = masked_game(host)
    slots = seats(game)
    first, second = slots[0], slots[1]
    services.submit_post(
        first.user, game.pk, body=f"hello @{second.mask_name}\n\n[b]Vote: {second.mask_name}[/b]"
    )
    spectator = UserFactory(username="onlooker")
    g = game.pk
    pages = [
        f"/games/{g}/",
        f"/games/{g}/votes/",
        f"/games/{g}/activity/",
        f"/games/{g}/iso/?iso={first.seat}",
        f"/games/{g}/?iso={first.seat}",
        f"/games/{g}/role/",
        f"/games/{g}/t/mafia/",
        f"/games/{g}/posts/1/",
        f"/api/v1/games/{g}/",
        f"/api/v1/games/{g}/posts/",
        f"/api/v1/games/{g}/vote-count/",
        f"/api/v1/games/{g}/vote-counts/",
        f"/api/v1/games/{g}/vote-log/",
        f"/api/v1/games/{g}/role/",
        "/",
        "/api/v1/games/",
        "/notifications/",
        "/api/v1/notifications/",
        f"/players/{second.user.username}/",
        f"/api/v1/players/{second.user.username}/",
    ]
    viewers = {None: None, "onlooker": spectator}
    viewers |= {s.user.username: s.user for s in slots[:3]}
    for who, user in viewers.items():
        for path in pages:
            body = client_for(user).get(path).content.decode()
            # (their own name in the site's menu, a person's profile page theirs)
            own = {who or ""}
            if path.startswith(("/players/", "/api/v1/players/")):
                own.add(second.user.username)
            assert not leaks(body, *own), (who, path, leaks(body, *own))
    # The post and the vote are under the masks, in the thread and the API.
    posts = api(spectator).get(f"/api/v1/games/{g}/posts/").json()["results"]
    mine = [p for p in posts if p["slot_id"] == first.pk]
    assert mine and all(p["author"] == first.mask_name for p in mine)
    count = api(spectator).get(f"/api/v1/games/{g}/vote-count/").json()
    assert second.mask_name in str(count) and first.mask_name in str(count)
    # Their own role PM tells a player the name they play under.
    role = client_for(first.user).get(f"/games/{g}/role/").content.decode()
    assert f"You play as <strong>{first.mask_name}</strong>" in role
    assert api(first.user).get(f"/api/v1/games/{g}/role/").json()["name"] == first.mask_name
    # The host sees who is who.
    host_page = client_for(host).get(f"/games/{g}/host/").content.decode()
    assert f"{first.mask_name} ({first.user.username})" in host_page
    host_view = api(host).get(f"/api/v1/games/{g}/host/").json()
    assert {(x["name"], x["real_name"]) for x in host_view["slots"]} == {
        (s.mask_name, s.user.username) for s in slots
    }


def test_votes_go_by_masked_name_and_never_by_real_name(host):
    game = masked_game(host)
    first, second, third = seats(game)[:3]
    result = services.submit_post(first.user, game.pk, body=f"[b]Vote: {second.mask_name}[/b]")
    assert result.vote is not None and result.vote.target_id == second.pk
    # A prefix of the mask works as for any name.
    result = services.submit_post(third.user, game.pk, body=f"[b]Vote: {second.mask_name[:3]}[/b]")
    assert result.vote is not None and result.vote.target_id == second.pk
    refused = services.submit_post(second.user, game.pk, body=f"[b]Vote: {third.user.username}[/b]")
    assert refused.vote is None and "No living player" in refused.vote_message
    # The vote button writes the mask.
    services.cast_vote(second.user, game.pk, third.pk)
    post = game.posts.order_by("-number").first()
    assert post.body == f"**Vote: {third.mask_name}**"


def test_a_mention_of_a_mask_tells_its_player_and_of_a_real_name_nobody(host):
    game = masked_game(host)
    first, second, third = seats(game)[:3]
    services.submit_post(first.user, game.pk, body=f"@{second.mask_name} what do you think?")
    (note,) = Notification.objects.filter(user=second.user, kind="mentioned")
    assert note.text.startswith(f"{first.mask_name} mentioned you")
    services.submit_post(
        first.user, game.pk, body=f"[quote={third.mask_name}]hi[/quote] and @{second.user.username}"
    )
    assert Notification.objects.filter(user=third.user, kind="mentioned").count() == 1
    assert Notification.objects.filter(user=second.user, kind="mentioned").count() == 1
    assert not leaks(" ".join(Notification.objects.values_list("text", flat=True)))


def test_a_replacement_keeps_the_mask_and_names_nobody(host, client_for):
    game = masked_game(host)
    slot = seats(game)[2]
    old = slot.user.username
    newcomer = UserFactory(username="realqx99")
    services.replace_player(host, game.pk, slot.pk, newcomer)
    slot.refresh_from_db()
    assert slot.user == newcomer and slot.display_name == slot.mask_name
    public = client_for(None).get(f"/games/{game.pk}/").content.decode()
    assert f"A new player takes over {slot.mask_name}" in public
    for path in (f"/games/{game.pk}/", f"/games/{game.pk}/activity/", f"/players/{old}/"):
        assert not leaks(client_for(None).get(path).content.decode(), old), path
    # Their record shows the replacement once the game is over, not while it runs.
    assert "Masked ball" not in client_for(None).get(f"/players/{old}/").content.decode()
    assert Replacement.objects.filter(old_user__username=old).exists()


def test_the_replacement_queue_names_nobody_while_it_runs(host, client_for):
    """The replacement queue of an anonymous game lists its people by their place
    ("Replacement 1") everywhere but on the host's page, while the game runs: with real
    names, the one who leaves it as a masked seat gets "a new player" would be named."""
    game = masked_game(host)
    g = game.pk
    slot = seats(game)[2]
    queued = [UserFactory(username=f"realqx9{i}") for i in range(1, 4)]
    for user in queued:
        services.join_queue(user, g)
    services.leave_queue(queued[2], g)
    watcher = UserFactory(username="onlooker")
    viewers = [None, watcher, slot.user, queued[1]]

    def public_bodies(user: Any) -> dict[str, str]:
        bodies = {
            path: client_for(user).get(path).content.decode()
            for path in (
                f"/games/{g}/",
                f"/games/{g}/activity/",
                f"/games/{g}/archive/",
                f"/api/v1/games/{g}/",
                f"/api/v1/games/{g}/queue/",
                f"/api/v1/games/{g}/posts/",
            )
        }
        audiences, _seq = live_audiences.viewer_audiences(g, user)
        replayed = live_replay.replay(g, audiences, 0, None)
        bodies["socket: replay"] = "\n".join(text for _seq, text in replayed.items)
        return bodies

    def check(stage: str) -> None:
        for user in viewers:
            own = user.get_username() if user is not None else ""
            for where, body in public_bodies(user).items():
                assert not leaks(body, own), (stage, own, where, leaks(body, own))

    check("queued")
    assert api().get(f"/api/v1/games/{g}/queue/").json() == {
        "queue": ["Replacement 1", "Replacement 2"]
    }
    activity = client_for(None).get(f"/games/{g}/activity/").content.decode()
    assert "2 waiting: Replacement 1, Replacement 2." in activity
    # The host's page names them: the host knows who is who.
    host_page = client_for(host).get(f"/games/{g}/host/").content.decode()
    assert "realqx91" in host_page and "realqx92" in host_page
    services.replace_with_next(host, g, slot.pk)
    slot.refresh_from_db()
    assert slot.user == queued[0]
    check("replaced")
    assert api().get(f"/api/v1/games/{g}/queue/").json() == {"queue": ["Replacement 1"]}


def test_sign_up_posts_name_nobody_while_it_runs(host, client_for):
    game = masked_game(host, start=False)
    first = seats(game)[0]
    services.submit_post(first.user, game.pk, body="glad to be in")
    services.start_game(host, game.pk)
    first = Slot.objects.get(game=game, user=first.user)
    services.submit_post(first.user, game.pk, body="day talk")
    posts = api().get(f"/api/v1/games/{game.pk}/posts/").json()["results"]
    posts = [p for p in posts if p["slot_id"]]
    # The sign-up post is signed neither with the mask (that would pair the two names) nor
    # with the name (that would name a player); both once the game is over.
    assert [p["author"] for p in posts] == [naming.SIGN_UP_AUTHOR, first.mask_name]
    assert posts[0]["slot_id"] == posts[1]["slot_id"] == first.pk


# -- the end ---------------------------------------------------------------------------------
def test_the_end_reveals_every_real_name(host, client_for):
    game = masked_game(host)
    slots = seats(game)
    goons = [s for s in slots if s.role == "goon"]
    for goon in goons:  # the town votes each goon out by their masked name
        for voter in Slot.objects.filter(game=game, alive=True).select_related("user"):
            if voter.pk != goon.pk:
                services.submit_post(voter.user, game.pk, body=f"[b]Vote: {goon.mask_name}[/b]")
            game.refresh_from_db()
            if not game.current_phase().is_day:
                break
        game.refresh_from_db()
        if game.is_running and not game.current_phase().is_day:
            services.cut_deadline_now(host, game.pk)
            game.refresh_from_db()
    assert game.is_finished
    archive = client_for(None).get(f"/games/{game.pk}/archive/").content.decode()
    for slot in slots:
        assert f"{slot.mask_name} ({slot.user.username})" in archive
    posts = api().get(f"/api/v1/games/{game.pk}/posts/").json()["results"]
    signed = {p["author"] for p in posts if p["slot_id"]}
    assert signed <= {f"{s.mask_name} ({s.user.username})" for s in slots}


# -- a whole game through the API ------------------------------------------------------------
def test_a_whole_anonymous_game_through_the_api_with_bots_voting_by_mask(host):
    """Bots that know only what the API tells them: by day each votes the first other
    living player it is told of, writing the masked name in bold; by night each uses its
    abilities on the first choice that is no partner; the host cuts the night. No answer a
    bot gets names another player's account while the game runs; the end reveals all."""
    game = masked_game(host)
    g = game.pk
    bots = {s.user.username: api(s.user) for s in seats(game)}
    for _ in range(20):
        state = api(host).get(f"/api/v1/games/{g}/").json()
        if state["status"] != "running":
            break
        if state["phase"]["kind"] == "night":
            for name, bot in bots.items():
                role = bot.get(f"/api/v1/games/{g}/role/").json()
                assert not leaks(str(role), name)
                partners = {p["slot_id"] for p in role["partners"]}
                for ability in role["abilities"] if role["alive"] else []:
                    targets = [c["slot_id"] for c in ability["choices"]]
                    targets = [t for t in targets if t not in partners] or targets
                    if targets:
                        bot.post(
                            f"/api/v1/games/{g}/actions/",
                            {"ability": ability["ability"], "targets": targets[:1]},
                            format="json",
                        )
            assert api(host).post(f"/api/v1/games/{g}/host/cut/").status_code == 200
            continue
        day = state["phase"]["number"]
        for name, bot in bots.items():
            seen = bot.get(f"/api/v1/games/{g}/").json()
            if seen["status"] != "running" or seen["phase"]["number"] != day:
                break
            me = bot.get(f"/api/v1/games/{g}/role/").json()
            assert not leaks(str(seen), name) and me["name"] not in bots
            if not me["alive"]:
                continue
            living = [p["name"] for p in seen["players"] if p["alive"] and p["name"] != me["name"]]
            assert not set(living) & set(bots)  # masks, never accounts
            answer = bot.post(
                f"/api/v1/games/{g}/posts/", {"body": f"[b]Vote: {living[0]}[/b]"}, format="json"
            )
            assert answer.status_code == 201, answer.content
            # (the post that ends the game is read back after the end: both names)
            assert answer.json()["post"]["author"] in (me["name"], f"{me['name']} ({name})")
            assert not answer.json()["vote_message"], answer.json()  # the vote counted
            if bot.get(f"/api/v1/games/{g}/").json()["status"] == "running":
                count = bot.get(f"/api/v1/games/{g}/vote-count/").json()
                assert not leaks(str(count), name)
                posts = bot.get(f"/api/v1/games/{g}/posts/?page=last").json()
                assert not leaks(str(posts), name)
    game.refresh_from_db()
    assert game.is_finished, "the game did not end"
    archive = api().get(f"/api/v1/games/{g}/archive/").json()
    assert {(s["name"], s["real_name"]) for s in archive["slots"]} == {
        (f"{s.mask_name} ({s.user.username})", s.user.username) for s in seats(game)
    }
    assert {p["name"] for p in api().get(f"/api/v1/games/{g}/").json()["players"]} == {
        f"{s.mask_name} ({s.user.username})" for s in seats(game)
    }
