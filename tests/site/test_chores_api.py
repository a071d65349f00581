"""The host's chores through the JSON API: numbered counts and their history, the vote log,
V/LA and the replacement queue, with the API's error shape."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from games.models import Slot
from tests.conftest import slots_of
from tests.site.test_forum_parts import api

pytestmark = pytest.mark.django_db


def test_numbered_counts_and_vote_log(make_game, host, client):
    game = make_game("forum-vanilla")
    townies, goon = slots_of(game, "vanilla_townie"), slots_of(game, "goon")[0]
    base = f"/api/v1/games/{game.pk}"
    assert api(townies[0].user).post(f"{base}/vote/", {"target": goon.pk}).status_code == 200
    refused = api(townies[0].user).post(f"{base}/vote-counts/")
    assert refused.status_code == 403 and refused.json()["code"]
    first = api(host).post(f"{base}/vote-counts/")
    assert first.status_code == 201, first.content
    body = first.json()
    assert body["label"] == "Vote count 1.1" and body["post_url"].endswith(
        f"#post-public-{body['post_number']}"
    )
    assert [c["voter"] for c in body["changes"]] == [townies[0].display_name]
    api(townies[1].user).post(f"{base}/vote/", {"target": goon.pk})
    api(townies[0].user).post(f"{base}/unvote/")
    api(host).post(f"{base}/vote-counts/")
    history = client.get(f"{base}/vote-counts/").json()
    assert [h["label"] for h in history] == ["Vote count 1.1", "Vote count 1.2"]
    assert [(c["voter"], c["kind"]) for c in history[1]["changes"]] == [
        (townies[1].display_name, "vote"),
        (townies[0].display_name, "unvote"),
    ]
    assert history[1]["data"]["wagons"][0]["count"] == 1
    log = client.get(f"{base}/vote-log/").json()
    assert [(v["voter"], v["kind"], v["target"]) for v in log] == [
        (townies[0].display_name, "vote", goon.display_name),
        (townies[1].display_name, "vote", goon.display_name),
        (townies[0].display_name, "unvote", None),
    ]
    assert all(v["post_url"] and "#post-public-" in v["post_url"] for v in log)


def test_vla_mark_list_cancel(make_game, client):
    game = make_game("forum-vanilla")
    me, other = slots_of(game, "vanilla_townie")[:2]
    base = f"/api/v1/games/{game.pk}/away/"
    today = date.today()
    bad = api(me.user).post(base, {"starts": "tomorrow", "ends": today.isoformat()})
    assert bad.status_code == 400 and bad.json()["field"] == "starts"
    backwards = {"starts": (today + timedelta(2)).isoformat(), "ends": today.isoformat()}
    refused = api(me.user).post(base, backwards)
    assert refused.status_code == 422 and refused.json()["code"] == "dates"
    made = api(me.user).post(
        base, {"starts": today.isoformat(), "ends": today.isoformat(), "note": "wedding"}
    )
    assert made.status_code == 201 and made.json()["note"] == "wedding"
    listed = client.get(base).json()
    assert [(a["player"]["slot_id"], a["note"]) for a in listed] == [(me.pk, "")]
    absence = made.json()["id"]
    assert api(other.user).delete(f"{base}{absence}/").status_code == 404
    assert client.delete(f"{base}{absence}/").status_code in (401, 403)
    assert api(me.user).delete(f"{base}{absence}/").json() == {"ok": True}
    assert client.get(base).json() == []


def test_replacement_queue_join_leave_and_swap(make_game, make_users, host, client):
    game = make_game("forum-vanilla")
    sub1, sub2 = make_users(2, prefix="sub")
    base = f"/api/v1/games/{game.pk}"
    assert api(sub1).post(f"{base}/queue/join/").json() == {"queue": [sub1.username]}
    again = api(sub1).post(f"{base}/queue/join/")
    assert again.status_code == 422 and again.json()["code"] == "already_queued"
    api(sub2).post(f"{base}/queue/join/")
    assert api(sub2).post(f"{base}/queue/leave/").json() == {"queue": [sub1.username]}
    api(sub2).post(f"{base}/queue/join/")
    assert client.get(f"{base}/queue/").json() == {"queue": [sub1.username, sub2.username]}
    slot = slots_of(game, "vanilla_townie")[0]
    player = slot.user
    denied = api(player).post(f"{base}/host/replace-next/", {"slot_id": slot.pk})
    assert denied.status_code == 403
    done = api(host).post(f"{base}/host/replace-next/", {"slot_id": slot.pk})
    assert done.status_code == 200 and done.json()["ok"]
    assert Slot.objects.get(pk=slot.pk).user_id == sub1.pk
    assert client.get(f"{base}/queue/").json() == {"queue": [sub2.username]}
    bad = api(host).post(f"{base}/host/replace-next/", {"slot_id": "x"})
    assert bad.status_code == 400 and bad.json()["field"] == "slot_id"
