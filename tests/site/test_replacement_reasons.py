"""Why the host should replace a seat (``games.inactivity.ReplacementReason``): one set of
reasons, given by ``slots_needing_replacement`` and said by the host's dashboard."""

from __future__ import annotations

import pytest
from django.test import Client

from games.inactivity import ReplacementReason, slots_needing_replacement
from games.models import PRODS_BEFORE_ACTION, InactivityAction

pytestmark = pytest.mark.django_db


def test_a_prodded_seat_and_a_removed_account_each_say_why(make_game, host):
    game = make_game("forum-vanilla", inactivity_action=InactivityAction.REPLACE)
    prodded, removed = list(game.slots.order_by("seat").select_related("user"))[:2]
    game.slots.filter(pk=prodded.pk).update(prods=PRODS_BEFORE_ACTION)
    removed.user.is_active = False
    removed.user.save(update_fields=["is_active"])
    reasons = {s.pk: s.replacement_reason for s in slots_needing_replacement(game)}
    assert reasons == {
        prodded.pk: ReplacementReason.INACTIVE,
        removed.pk: ReplacementReason.REMOVED,
    }
    client = Client()
    client.force_login(host)
    dashboard = client.get(f"/games/{game.pk}/host/").content.decode()
    assert f"{prodded.user.username}</strong>: inactive (prodded twice)" in dashboard
    assert f"{removed.user.username}</strong>: taken off the site by its moderators" in dashboard
    assert dashboard.count("</strong>: inactive (prodded twice)") == 1
