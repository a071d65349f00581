"""Co-hosts, backup hosts and handing a game over (``services.cohosts``): who may be one, what
they may do and see, and a whole game run through the API by a co-host while the host idles.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games import services
from games.errors import ErrorCode, InvalidInput, NotAllowed, NotFound, WrongPhase
from games.live.audiences import access_meta, viewer_access
from games.live.hub import Hub, Room
from games.live.render import without_site_ids
from games.models import CoHost, Game, GameEvent
from games.reads.access import Viewer, is_host
from games.setups import SETUPS
from tests.conftest import slot_of, slots_of
from tests.factories import UserFactory
from tests.site.test_agents import new_agent

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def hosts_events(game: Game) -> list[dict]:
    return [e.payload for e in GameEvent.objects.filter(game=game, kind="hosts_changed")]


# -- adding and removing -------------------------------------------------------------------
def test_the_host_adds_and_removes_a_cohost_and_a_backup_host(make_game, host):
    game = make_game("forum-vanilla")
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    assert not is_host(game, ann)
    services.add_cohost(host, game.pk, "ann")
    services.add_cohost(host, game.pk, "BOB", "backup")  # as typed: case does not matter
    game.refresh_from_db()
    assert is_host(game, ann) and is_host(game, bob)
    assert list(game.cohosts.values_list("user__username", "kind")) == [
        ("ann", "cohost"),
        ("bob", "backup"),
    ]
    added = hosts_events(game)[-1]
    assert added["change"] == "added" and added["kind"] == "backup" and added["name"] == "bob"
    assert added["cohosts"] == [
        {"name": "ann", "kind": "cohost"},
        {"name": "bob", "kind": "backup"},
    ]
    services.remove_cohost(host, game.pk, ann.pk)
    game = Game.objects.get(pk=game.pk)
    assert not is_host(game, ann) and is_host(game, bob)
    assert hosts_events(game)[-1]["change"] == "removed"


def test_who_cannot_be_a_cohost(make_game, host):
    game = make_game("forum-vanilla")
    player = slot_of(game, "goon").user
    owner = UserFactory(username="owner")
    agent, _key = new_agent(owner, "cohostbot")
    ann = UserFactory(username="ann")
    before = GameEvent.objects.filter(game=game).count()
    refusals = {
        "player1": ErrorCode.IN_GAME,  # a player of the game
        player.username: ErrorCode.IN_GAME,
        "host": ErrorCode.HOST,  # the host itself
        agent.user.username: ErrorCode.AGENT_HOST,  # would read every role for its owner
        "nobody-called-this": ErrorCode.NO_USER,
    }
    for name, code in refusals.items():
        with pytest.raises(InvalidInput) as refused:
            services.add_cohost(host, game.pk, name)
        assert refused.value.code == code, name
    with pytest.raises(InvalidInput) as refused:
        services.add_cohost(host, game.pk, "ann", "boss")
    assert refused.value.code == ErrorCode.COHOST_KIND
    services.add_cohost(host, game.pk, "ann")
    with pytest.raises(InvalidInput) as refused:
        services.add_cohost(host, game.pk, "ann", "backup")
    assert refused.value.code == ErrorCode.ALREADY_COHOST
    # Only the game's host chooses: not a co-host, not a player, not an outsider.
    for who in (ann, player, UserFactory(username="zed")):
        with pytest.raises(NotAllowed) as refused:
            services.add_cohost(who, game.pk, "bob" if who != ann else "zed")
        assert refused.value.code == ErrorCode.NOT_THE_HOST
    with pytest.raises(NotFound):
        services.remove_cohost(host, game.pk, player.pk)
    assert GameEvent.objects.filter(game=game).count() == before + 1  # ann's only
    assert CoHost.objects.filter(game=game).count() == 1


def test_a_cohost_cannot_take_a_seat(make_game, host, make_users):
    game = services.create_game(host, title="Sign-ups", **SETUPS["forum-vanilla"].game_kwargs())
    ann = UserFactory(username="ann")
    services.add_cohost(host, game.pk, "ann")
    with pytest.raises(NotAllowed) as refused:
        services.join_game(ann, game.pk)
    assert refused.value.code == ErrorCode.HOST
    running = make_game("forum-vanilla")
    services.add_cohost(host, running.pk, "ann")
    with pytest.raises(NotAllowed):
        services.join_queue(ann, running.pk)
    with pytest.raises(InvalidInput):
        services.replace_player(host, running.pk, slot_of(running, "goon").pk, ann)


def test_a_cohost_steps_down_and_nothing_changes_after_the_end(make_game, host):
    game = make_game("forum-vanilla")
    ann = UserFactory(username="ann")
    services.add_cohost(host, game.pk, "ann")
    services.remove_cohost(ann, game.pk, ann.pk)  # a co-host may step down
    assert not CoHost.objects.filter(game=game).exists()
    for goon in slots_of(game, "goon"):
        services.modkill(host, game.pk, goon.pk)
    with pytest.raises(WrongPhase) as refused:
        services.add_cohost(host, game.pk, "ann")
    assert refused.value.code == ErrorCode.GAME_OVER


# -- handing over ----------------------------------------------------------------------------
def test_the_host_hands_the_game_over_and_stays_on_as_a_cohost(make_game, host):
    game = make_game("forum-vanilla")
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    services.add_cohost(host, game.pk, "bob", "backup")
    with pytest.raises(InvalidInput) as refused:
        services.hand_over(host, game.pk, "player2")
    assert refused.value.code == ErrorCode.IN_GAME
    with pytest.raises(NotAllowed):
        services.hand_over(bob, game.pk, "bob")  # a backup host does not take it alone
    services.hand_over(host, game.pk, "bob")  # the backup host takes over
    game = Game.objects.get(pk=game.pk)
    assert game.host == bob
    assert set(game.cohosts.values_list("user__username", "kind")) == {("host", "cohost")}
    assert is_host(game, host) and is_host(game, bob) and not is_host(game, ann)
    event = hosts_events(game)[-1]
    assert (event["change"], event["name"], event["host"]) == ("handed_over", "bob", "bob")
    # The old host is a co-host now: they no longer choose co-hosts; the new host does.
    with pytest.raises(NotAllowed):
        services.add_cohost(host, game.pk, "ann")
    services.add_cohost(bob, game.pk, "ann")
    page = api(ann).get(f"/api/v1/games/{game.pk}/").json()
    assert page["host"] == "bob"
    assert {c["username"] for c in page["cohosts"]} == {"host", "ann"}


# -- what they see ---------------------------------------------------------------------------
def test_a_cohost_sees_what_the_host_sees_and_a_removed_one_what_a_spectator_sees(
    make_game, host, client_for
):
    game = make_game("forum-cop-doctor-nine")
    ann = UserFactory(username="ann")
    spectator = UserFactory(username="spect")
    services.add_cohost(host, game.pk, "ann")
    services.submit_post(slot_of(game, "goon").user, game.pk, body="MAFIASECRET", thread="mafia")
    game = Game.objects.get(pk=game.pk)
    assert viewer_access(game.pk, ann)[0] == viewer_access(game.pk, host)[0]
    assert Viewer.of(game, ann).sees_everything and Viewer.of(game, ann).is_host
    assert not Viewer.of(game, ann).is_the_host
    page = client_for(ann)
    assert page.get(f"/games/{game.pk}/host/").status_code == 200
    assert "MAFIASECRET" in page.get(f"/games/{game.pk}/t/mafia/").content.decode()
    assert api(ann).get(f"/api/v1/games/{game.pk}/host/").status_code == 200
    cop = slot_of(game, "cop")
    assert "cop" in {
        s["role"] for s in api(ann).get(f"/api/v1/games/{game.pk}/host/").json()["slots"]
    }
    thread = page.get(f"/games/{game.pk}/").content.decode()
    assert "Host dashboard" in thread and "ann (co-host)" in thread
    services.remove_cohost(host, game.pk, ann.pk)
    game = Game.objects.get(pk=game.pk)
    assert viewer_access(game.pk, ann)[0] == viewer_access(game.pk, spectator)[0] == {"public"}
    assert page.get(f"/games/{game.pk}/host/").status_code == 404
    assert page.get(f"/games/{game.pk}/t/mafia/").status_code == 404
    assert api(ann).get(f"/api/v1/games/{game.pk}/host/").status_code == 403
    assert cop.role not in str(api(ann).get(f"/api/v1/games/{game.pk}/").json()["players"])


def test_the_event_tells_the_live_layer_whose_access_changed(make_game, host):
    game = make_game("forum-vanilla")
    ann = UserFactory(username="ann")
    services.add_cohost(host, game.pk, "ann")
    services.remove_cohost(host, game.pk, ann.pk)
    added, removed = GameEvent.objects.filter(game=game, kind="hosts_changed").order_by("seq")
    assert access_meta(added) == {"kind": "hosts_changed", "hosts": [ann.pk]}
    assert access_meta(removed) == {
        "kind": "hosts_changed",
        "hosts": [ann.pk],
        "unhosted": [ann.pk],
    }
    # The user ids stay on the server: a socket's item carries none.
    assert "user_ids" not in without_site_ids(removed.payload)


def test_the_hub_takes_a_removed_cohosts_socket_off_the_hosts_audiences_at_once():
    class Socket:
        def __init__(self, user_id):
            self.user_id, self.slot_id, self.rechecked = user_id, None, []

        def access_may_have_changed(self, seq, meta):
            self.rechecked.append(seq)

    hub = Hub.__new__(Hub)
    set_to: dict = {}
    hub.set_audiences = lambda member, audiences: set_to.__setitem__(member.user_id, audiences)
    room = Room(1)
    ann, bob = Socket(5), Socket(6)
    everything = frozenset({"public", "host", "mafia", "dead", "slot:1"})
    room.sockets = {ann: everything, bob: everything}
    hub._apply_access(room, 9, {"kind": "hosts_changed", "hosts": [5], "unhosted": [5]})
    assert set_to == {5: frozenset({"public"})}
    assert ann.rechecked == [9]


# -- the API ---------------------------------------------------------------------------------
def test_the_api_adds_removes_and_hands_over(make_game, host):
    game = make_game("forum-vanilla")
    ann = UserFactory(username="ann")
    url = f"/api/v1/games/{game.pk}/cohosts/"
    answer = api(host).post(url, {"username": "ann", "kind": "backup"}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["game"]["cohosts"] == [
        {"user_id": ann.pk, "username": "ann", "kind": "backup"}
    ]
    refused = api(host).post(url, {"username": "player1"}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (422, "in_game")
    refused = api(ann).post(url, {"username": "host"}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (403, "not_the_host")
    bad = api(host).post(url, {"username": "ann", "kind": "boss"}, format="json")
    assert bad.status_code == 400
    gone = api(host).delete(f"{url}{ann.pk}/")
    assert gone.status_code == 200 and gone.json()["game"]["cohosts"] == []
    assert api(host).delete(f"{url}{ann.pk}/").status_code == 404
    handed = api(host).post(
        f"/api/v1/games/{game.pk}/hand-over/", {"username": "ann"}, format="json"
    )
    assert handed.status_code == 200, handed.content
    assert handed.json()["game"]["host"] == "ann"
    assert handed.json()["game"]["cohosts"] == [
        {"user_id": host.pk, "username": "host", "kind": "cohost"}
    ]


def test_a_whole_game_run_through_the_api_by_a_cohost(host, make_users):
    """The host creates the game and names a co-host, then does nothing more: the co-host
    starts it, posts as host, moves the clock, modkills, ends the phases and the game ends."""
    ann = UserFactory(username="ann")
    game = services.create_game(
        host, title="Run by a co-host", seed=3, **SETUPS["forum-vanilla"].game_kwargs()
    )
    answer = api(host).post(f"/api/v1/games/{game.pk}/cohosts/", {"username": "ann"}, format="json")
    assert answer.status_code == 200
    players = make_users(game.player_cap)
    for user in players:
        assert api(user).post(f"/api/v1/games/{game.pk}/join/").status_code in (200, 201)
    co = api(ann)
    g = f"/api/v1/games/{game.pk}"
    assert co.post(f"{g}/start/").status_code == 200
    said = co.post(
        f"{g}/host/post/", {"body": "Welcome, run by ann.", "thread": "public"}, format="json"
    )
    assert said.status_code == 200, said.content
    assert co.post(f"{g}/host/extend/", {"minutes": 60}, format="json").status_code == 200
    assert co.post(f"{g}/host/pause/").status_code == 200
    assert co.post(f"{g}/host/resume/").status_code == 200
    view = co.get(f"{g}/host/").json()
    roles = {s["name"]: s["role"] for s in view["slots"]}
    goons = [n for n, r in roles.items() if r == "goon"]
    town = [n for n, r in roles.items() if r != "goon"]
    by_name = {s["name"]: s["slot_id"] for s in view["slots"]}
    user_of = {u.username: u for u in players}
    killed = co.post(
        f"{g}/host/modkill/", {"slot_id": by_name[goons[0]], "reason": "rules"}, format="json"
    )
    assert killed.status_code == 200
    assert (
        co.post(
            f"{g}/host/post/", {"body": "Mafia, hello.", "thread": "mafia"}, format="json"
        ).status_code
        == 200
    )
    # The town votes out the other goon: the hammer ends the game.
    for name in town:
        api(user_of[name]).post(f"{g}/vote/", {"target": by_name[goons[1]]}, format="json")
        if Game.objects.get(pk=game.pk).is_finished:
            break
    if not Game.objects.get(pk=game.pk).is_finished:
        assert co.post(f"{g}/host/cut/").status_code == 200
    game = Game.objects.get(pk=game.pk)
    assert game.is_finished and game.winner == "town"
    posts = api(host).get(f"{g}/posts/?thread=public").json()
    hosts_posts = [p for p in posts["results"] if p["is_host"] and not p["is_auto"]]
    assert [p["author"] for p in hosts_posts] == ["ann"]
    # The host did nothing after naming ann: every host action was hers.
    assert game.host == host


# -- the dashboard ---------------------------------------------------------------------------
def test_the_dashboards_hosts_card(make_game, host, client_for):
    game = make_game("forum-vanilla")
    ann = UserFactory(username="ann")
    mine = client_for(host)
    added = mine.post(
        f"/games/{game.pk}/host/cohost-add/", {"username": "ann", "kind": "backup"}, follow=True
    )
    page = added.content.decode()
    assert "ann is now a backup host." in page and 'data-cohost="ann"' in page
    assert 'id="hand-over"' in page and 'id="cohost-add"' in page
    refused = mine.post(
        f"/games/{game.pk}/host/cohost-add/", {"username": "player3", "kind": "cohost"}, follow=True
    )
    assert "plays in this game: a player cannot host it" in refused.content.decode()
    # The co-host's own dashboard: every control but choosing hosts; they may step down.
    theirs = client_for(ann)
    page = theirs.get(f"/games/{game.pk}/host/").content.decode()
    assert 'id="host-controls"' in page and "Step down" in page
    assert 'id="cohost-add"' not in page and 'id="hand-over"' not in page
    left = theirs.post(f"/games/{game.pk}/host/cohost-remove/", {"user_id": ann.pk})
    assert left.status_code == 302 and left["Location"] == f"/games/{game.pk}/"
    assert theirs.get(f"/games/{game.pk}/host/").status_code == 404
    # Handing over from the dashboard: the host's card is the new host's.
    mine.post(f"/games/{game.pk}/host/hand-over/", {"username": "ann"})
    page = theirs.get(f"/games/{game.pk}/host/").content.decode()
    assert 'id="hand-over"' in page and 'data-cohost="host"' in page
    nav = client_for(None).get(f"/games/{game.pk}/").content.decode()
    assert "hosted by ann" in nav and "host (co-host)" in nav


def test_the_person_made_a_host_is_told_so(make_game, host):
    from notifications.models import Notification

    game = make_game()
    helper, backup, heir = (UserFactory(username=n) for n in ("helper", "backup", "heir"))
    services.add_cohost(host, game.pk, "helper")
    services.add_cohost(host, game.pk, "backup", "backup")
    (told,) = Notification.objects.filter(user=helper, kind="made_host")
    said = f"host made you a co-host of {game.title}: you see and do what the host does."
    assert told.text == said
    assert told.link == f"/games/{game.pk}/host/"
    (told,) = Notification.objects.filter(user=backup, kind="made_host")
    assert "made you a backup host" in told.text
    services.hand_over(host, game.pk, "heir")
    (told,) = Notification.objects.filter(user=heir, kind="made_host")
    assert told.text == f"You host {game.title} now: its host handed it over to you."
    # Removing someone, or stepping down, tells nobody; nor is anyone else told of it.
    services.remove_cohost(heir, game.pk, helper.pk)
    assert Notification.objects.filter(kind="made_host").count() == 3
    assert (
        not Notification.objects.filter(kind="made_host")
        .exclude(user__in=[helper, backup, heir])
        .exists()
    )
