"""Issue 19, items 6, 12 and 13: one death line true to each rule set, the reply box's hint
where bold votes do not count, the role PM at a paused night and for the dead, and the
ISO pages with a number no player has."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

import pytest
from django.utils import timezone

from games import services
from games.display import death_line, with_article
from games.forms import reply_hint
from games.models import Post
from games.services import announcements
from tests.conftest import current_phase, slot_of, slots_of

pytestmark = pytest.mark.django_db

BOLD_VOTE = "bold **Vote: Name**"


def text(response) -> str:
    assert response.status_code == 200, response.status_code
    page = re.sub(r"<script.*?</script>", " ", response.content.decode(), flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page)))


# -- 6: one death line, true to each rule set --------------------------------------------
def test_the_death_line_asks_the_rule_set_whether_roles_are_revealed():
    for hidden in ("city", "classic"):  # cards stay face down until the game ends
        for revealed in ("", "unknown", "citizen", "mafia"):
            assert death_line(hidden, revealed) == "Their role is not revealed until the game ends."
    assert death_line("forum", "goon") == "They were a Goon."
    assert death_line("forum", "unknown") == "Their role could not be determined."  # janitor
    assert death_line("forum", "") == "Their role is not revealed."  # a modkill
    assert death_line("forum", "vanilla_townie", markdown=True) == (
        "They were a **Vanilla Townie**."
    )
    assert with_article("Alien") == "an Alien" and with_article("Goon") == "a Goon"
    assert with_article("Unknown") == "an Unknown" and with_article("One-Shot Doctor")[:2] == "a "


def test_a_city_night_death_and_a_classic_modkill_say_the_same_thing(make_game):
    city = make_game("city-ten")
    victim = city.slots.order_by("seat").first()
    victim.revealed_role = "unknown"  # what the city night reveals for every death
    classic = make_game("classic-ten")
    services.modkill(classic.host, classic.pk, classic.slots.order_by("seat").first().pk)
    modkill = Post.objects.filter(game=classic, is_auto=True).order_by("number").last()
    line = "Their role is not revealed until the game ends."
    assert announcements.role_sentence(victim) == line
    assert line in modkill.body and "could not be determined" not in modkill.body


def test_a_modkill_reason_is_a_sentence_not_a_nested_parenthesis(make_game):
    game = make_game("forum-vanilla")
    goon = slot_of(game, "goon")
    services.modkill(game.host, game.pk, goon.pk, reason="Testing modkill (replacement was idle)")
    body = Post.objects.filter(game=game, is_auto=True).order_by("number").last().body
    assert "((" not in body and "modkill (replacement was idle).)" not in body
    assert "modkilled.** Reason: Testing modkill \\(replacement was idle\\)\\. Their" in body


# -- 6 and 12: the reply box's hint -----------------------------------------------------
def test_a_table_day_reply_box_gives_the_table_s_hint_not_bold_votes(make_game, client_for):
    game = make_game("city-ten", table=True)
    assert current_phase(game).is_day
    player = game.slots.order_by("seat").first()
    page = text(client_for(player.user).get(f"/games/{game.pk}/"))
    assert "Post reply" in page and BOLD_VOTE not in page
    assert "A post does not vote: vote with the table's buttons." in page
    # Each table says its own: classic's speech and nomination, power's skip line.
    classic = make_game("classic-ten", table=True)
    assert "Nominate button" in reply_hint(classic, "public")
    power = make_game("power-nine", table=True)
    assert "VOTE_SKIP_DISCUSSION" in reply_hint(power, "public")
    assert all(BOLD_VOTE not in reply_hint(g, "public") for g in (classic, power))


def test_a_thread_day_reply_box_explains_bold_votes(make_game, client_for):
    game = make_game("forum-vanilla")
    player = game.slots.order_by("seat").first()
    assert BOLD_VOTE in text(client_for(player.user).get(f"/games/{game.pk}/"))


def test_the_mafia_chat_has_its_own_hint(make_game, client_for):
    game = make_game("forum-vanilla")
    goon = slot_of(game, "goon")
    page = text(client_for(goon.user).get(f"/games/{game.pk}/t/mafia/"))
    assert BOLD_VOTE not in page
    assert "A vote posted here does not count: the day's vote is in the game thread." in page


# -- 12: the role PM -------------------------------------------------------------------
def test_a_paused_night_says_the_game_is_paused(make_game, client_for):
    game = make_game("forum-cop-doctor-nine")
    services.cut_deadline_now(game.host, game.pk)
    assert current_phase(game).is_night
    services.pause_game(game.host, game.pk)
    cop = slot_of(game, "cop")
    page = text(client_for(cop.user).get(f"/games/{game.pk}/role/"))
    assert "Night actions are sent at night" not in page
    assert "The game is paused. Night actions can be sent, changed or withdrawn again" in page
    services.resume_game(game.host, game.pk)
    page = text(client_for(cop.user).get(f"/games/{game.pk}/role/"))
    assert "The game is paused" not in page and "until the night's deadline" in page


def test_a_dead_player_s_role_pm_says_they_are_dead(make_game, client_for):
    game = make_game("forum-cop-doctor-nine")
    cop = slot_of(game, "cop")
    services.modkill(game.host, game.pk, cop.pk)
    services.cut_deadline_now(game.host, game.pk)
    assert current_phase(game).is_night
    page = text(client_for(cop.user).get(f"/games/{game.pk}/role/"))
    assert "You are dead: you take no further part, and have no night actions." in page
    assert "You have no night action tonight" not in page
    assert "You can change your actions" not in page


# -- 11: the numbered count, V/LA dates ---------------------------------------------------
def test_the_numbered_count_keeps_v_la_a_paragraph_of_its_own(make_game, client_for):
    game = make_game("forum-vanilla")
    away = game.slots.order_by("seat").first()
    today = timezone.now().date()
    ends = today + timedelta(days=2)
    services.mark_away(away.user, game.pk, starts=today, ends=ends)
    count = services.post_vote_count(game.host, game.pk)
    body = count.post.body
    assert "\n\nV/LA: " in body  # not run into the "Not voting" line
    day = f"{ends:%a} {ends.day} {ends:%b}"
    assert f"(until {day})" in body
    page = text(client_for(away.user).get(f"/games/{game.pk}/"))
    assert f"{away.display_name} (until {day})" in page and ends.isoformat() not in page


# -- 13: ISO with a number no player has -------------------------------------------------
def test_iso_with_an_unknown_number_says_so_and_links_back(make_game, client_for):
    game = make_game("forum-vanilla")
    response = client_for(None).get(f"/games/{game.pk}/?iso=99")
    html = response.content.decode()
    assert "No player with number 99." in text(response)
    assert 'id="iso-unknown"' in html and '<a href="?page=1">Show the whole thread</a>' in html
    known = client_for(None).get(f"/games/{game.pk}/?iso=1").content.decode()
    assert 'id="iso-unknown"' not in known


def test_multi_iso_with_an_unknown_number_says_so(make_game, client_for):
    game = make_game("forum-vanilla")
    page = text(client_for(None).get(f"/games/{game.pk}/iso/?iso=42"))
    assert "No player with number 42." in page


def test_multi_iso_puts_the_date_above_a_whole_post(make_game, client_for):
    game = make_game("forum-vanilla")
    a, b = slots_of(game, "vanilla_townie")[:2]
    services.submit_post(a.user, game.pk, body="First paragraph.\n\nSecond paragraph.")
    html = client_for(None).get(f"/games/{game.pk}/iso/?iso={a.seat}&iso={b.seat}")
    html = html.content.decode()
    assert 'style="' not in html.split('id="multi-iso"')[1][:200]  # CSP forbids inline styles
    article = html.split(f'id="iso-{a.seat}-')[1].split("</article>")[0]
    assert 'class="body"' in article and "Second paragraph" in article.split('class="body"')[1]
