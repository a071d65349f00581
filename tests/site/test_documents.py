"""Issue 33, part 3: the site says what its rule documents say, each thing once.

Every test here failed before its fix: the wording list (sign-ups, log-in, the role list of
an open setup, the unsubscribe page, ISO by a name nobody has, the Activity page after a
replacement, one notification for a mention in the mafia chat, the Sheriff's result on the
Maniac, the archive's phase names, an automatic prod's inbox note) and the power and city
tables' self-votes. City's tie ladder is where the document is silent: its test pins what the
manual (docs/rules/) says the site does (one rung, then nobody)."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from rest_framework.test import APIClient

from games import services
from games.errors import ErrorCode, GameRuleError
from games.fragments import render_turn
from games.models import Phase
from games.reads.table import turn_view
from games.services.nights import describe_result
from notifications import mail
from notifications.models import Notification
from tests.conftest import current_phase, slot_of, slots_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def text(response: Any) -> str:
    assert response.status_code == 200, response.status_code
    page = re.sub(r"<script.*?</script>", " ", response.content.decode(), flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page)))


def end_phase(game: Any) -> None:
    phase = current_phase(game)
    assert services.advance_phase(game.pk, phase.number, now=phase.deadline)
    game.refresh_from_db()


# -- sign-ups ------------------------------------------------------------------------------
def test_one_player_has_joined(make_game, client_for):
    game = make_game("forum-vanilla", start=False)
    for slot in list(game.slots.order_by("seat"))[1:]:
        services.leave_game(slot.user, game.pk)
    with pytest.raises(GameRuleError) as refused:
        services.start_game(game.host, game.pk)
    assert refused.value.message == "The setup needs 7 players; 1 has joined."
    page = text(client_for(None).get(f"/games/{game.pk}/"))
    assert "1 of 7 players has joined." in page and "have joined" not in page


def test_the_game_starts_with_a_day_or_a_night(make_game, client_for):
    game = make_game("forum-vanilla", start=False)
    page = text(client_for(None).get(f"/games/{game.pk}/"))
    assert "The game starts with a day." in page
    night = make_game("forum-vanilla", start=False, starts_with="night")
    assert "The game starts with a night." in text(client_for(None).get(f"/games/{night.pk}/"))


def test_log_in_to_post_is_said_once_and_is_the_link(make_game, client_for):
    game = make_game("forum-vanilla")
    html = client_for(None).get(f"/games/{game.pk}/").content.decode()
    assert "Log in to post. Log in" not in text(client_for(None).get(f"/games/{game.pk}/"))
    assert re.search(r'<a href="/accounts/login/\?next=[^"]*">Log in to post\.</a>', html)


def test_an_open_setup_s_role_list_is_not_said_to_be_private(make_game, client_for):
    open_game = make_game("forum-vanilla", start=False, openness="open")
    page = text(client_for(open_game.host).get(f"/games/{open_game.pk}/"))
    assert "shown only to you" not in page and "everyone sees it" in page
    closed = make_game("forum-vanilla", start=False, openness="closed")
    assert "shown only to you" in text(client_for(closed.host).get(f"/games/{closed.pk}/"))


def test_the_unsubscribe_page_speaks_of_the_account_it_names(db):
    person = UserFactory(username="Дмитрий")
    url = f"/notifications/unsubscribe/{mail.unsubscribe_token(person.pk, 'all')}/"
    from django.test import Client

    done = text(Client().post(url))
    assert "Дмитрий will get no more e-mails" in done
    assert "your inbox" not in done and "Дмитрий's inbox on the site" in done


# -- the thread, ISO and the Activity page -----------------------------------------------
def test_iso_by_a_name_nobody_has_says_so_instead_of_showing_the_thread(make_game, client_for):
    game = make_game("forum-vanilla")
    author = slot_of(game, "vanilla_townie")
    services.submit_post(author.user, game.pk, body="A post of mine.")
    response = client_for(None).get(f"/games/{game.pk}/?iso=zzz")
    page = text(response)
    assert "No player called zzz." in page and "A post of mine." not in page
    assert 'id="iso-unknown"' in response.content.decode()
    assert "No player with number 99." in text(client_for(None).get(f"/games/{game.pk}/?iso=99"))
    known = text(client_for(None).get(f"/games/{game.pk}/?iso={author.user.username}"))
    assert "A post of mine." in known and "No player" not in known


def test_the_activity_page_gives_each_post_to_who_wrote_it(make_game, client_for):
    game = make_game("forum-vanilla")
    townie = slot_of(game, "vanilla_townie")
    first = townie.user
    services.submit_post(first, game.pk, body="one")
    services.submit_post(first, game.pk, body="two")
    newcomer = UserFactory(username="newcomer")
    services.replace_player(game.host, game.pk, townie.pk, newcomer)
    services.submit_post(newcomer, game.pk, body="three")
    html = client_for(None).get(f"/games/{game.pk}/activity/").content.decode()
    rows = {
        unescape(re.sub(r"<[^>]+>", " ", row)).split()[0]: unescape(re.sub(r"<[^>]+>", " ", row))
        for row in re.findall(r"<tr><td>.*?</tr>", html, flags=re.S)
    }
    assert "2 / 0" in rows[first.username] and "1 / 0" in rows["newcomer"]


# -- notifications -----------------------------------------------------------------------
def test_a_mafia_chat_post_that_mentions_a_partner_tells_them_once(make_game):
    game = make_game("forum-vanilla")
    goon, partner = slots_of(game, "goon")
    body = f"@{partner.user.username} who do we kill?"
    services.submit_post(goon.user, game.pk, body=body, thread="mafia")
    kinds = list(Notification.objects.filter(user=partner.user).values_list("kind", flat=True))
    assert kinds.count("mentioned") == 1 and "partner_posted" not in kinds
    # A post that mentions nobody still tells the partner it was made.
    services.submit_post(goon.user, game.pk, body="the cop?", thread="mafia")
    assert Notification.objects.filter(user=partner.user, kind="partner_posted").count() == 1


def test_an_automatic_prod_s_notification_does_not_say_the_host_asked(make_game, host):
    # Every prod is the site's own, at a day's end (a league game has no host at all): the
    # pop-up said "The host prodded you", and the inbox "… posts a day the host asks for".
    game = make_game("forum-vanilla", min_posts_per_day=1)
    services.cut_deadline_now(host, game.pk)
    texts = set(Notification.objects.filter(kind="prodded").values_list("text", flat=True))
    assert texts == {
        f"You were prodded for inactivity in {game.title}: 0 of the 1 post a day this game "
        "asks for. Post more to stay in the game."
    }


# -- power and city ----------------------------------------------------------------------
def test_the_sheriff_s_black_is_not_called_mafia():
    line = describe_result({"kind": "investigation", "target": "P1", "result": "black"}, {})
    assert "(mafia)" not in line and "black (not town)" in line
    # Nor does it name roles (the Don, the Maniac): the leak scanner would find them.
    assert "Don" not in line and "Maniac" not in line


def test_the_sheriff_s_check_of_the_maniac_reads_black_not_mafia_in_his_role_pm(
    make_game, client_for
):
    game = make_game("city-ten", table=True)  # day 1 first: it runs on its timeouts
    for _ in range(300):
        phase = current_phase(game)
        if not phase.is_day:
            break
        services.advance_phase(game.pk, phase.number, now=phase.deadline, turn_seq=phase.turn_seq)
    sheriff, maniac = slot_of(game, "sheriff"), slot_of(game, "maniac")
    services.submit_night_action(sheriff.user, game.pk, ability="check", targets=[maniac.pk])
    end_phase(game)
    page = text(client_for(sheriff.user).get(f"/games/{game.pk}/role/"))
    name = maniac.user.username
    assert f"Night 1: Your investigation of {name}: black (not town)." in page
    assert "(mafia)" not in page


@pytest.mark.parametrize("setup", ["power-nine", "city-ten"])
def test_a_table_refuses_a_self_vote_where_the_game_says_so(make_game, setup):
    game = make_game(setup, table=True, self_vote_allowed=False)
    phase = current_phase(game)
    if not phase.is_day:  # city and power start with a day; be safe
        end_phase(game)
    phase = current_phase(game)
    voter = game.slots.filter(alive=True).order_by("seat").first()
    # Run the table to its vote: every speaker passes, every turn times out.
    for _ in range(200):
        phase.refresh_from_db()
        if turn_view(game, phase, list(game.slots.all()))["step"] == "vote":
            break
        services.advance_phase(game.pk, phase.number, now=phase.deadline, turn_seq=phase.turn_seq)
    assert turn_view(game, phase, list(game.slots.all()))["step"] == "vote"
    other = game.slots.filter(alive=True).exclude(pk=voter.pk).order_by("seat").first()
    # The voter's own name is not on their ballot's list, nor taken if sent anyway.
    ballot = render_turn(game, voter).split('id="turn-vote"')[1].split("</select>")[0]
    assert f'value="{voter.pk}"' not in ballot and f'value="{other.pk}"' in ballot
    # Nor on the ballot the API gives them (the page and the API read one turn view).
    api = APIClient()
    api.force_authenticate(voter.user)
    listed = [o.get("slot_id") for o in api.get(f"/api/v1/games/{game.pk}/turn/").json()["ballot"]]
    assert voter.pk not in listed and other.pk in listed
    with pytest.raises(GameRuleError) as refused:
        services.cast_vote(voter.user, game.pk, voter.pk)
    assert refused.value.code == ErrorCode.SELF_VOTE
    services.cast_vote(voter.user, game.pk, other.pk)  # another player is fine


def test_city_s_tie_ladder_has_one_rung_then_nobody_is_eliminated(make_game):
    # The city document's "tie -> re-speak + re-vote (ladder)" names no second rung: the
    # site plays one, as the manual says, and a second tie ends the day with nobody out.
    game = make_game("city-ten", table=True)
    living = list(game.slots.filter(alive=True).order_by("seat").select_related("user"))
    first, second = living[0], living[1]

    def to_the_vote() -> dict[str, Any]:
        for _ in range(60):  # every speech (the tied players' defense too) is passed
            step = turn_view(game, current_phase(game), living)
            if step["step"] == "vote":
                return step
            speaker = next(s for s in living if s.pk == step["speaker"]["slot_id"])
            services.pass_turn(speaker.user, game.pk)
        raise AssertionError("the table never reached its vote")

    def split_vote() -> None:
        for n, slot in enumerate(living):
            services.cast_vote(slot.user, game.pk, (first if n % 2 else second).pk)

    to_the_vote()
    split_vote()
    day = current_phase(game)
    assert day.is_day
    ballot = [o.get("slot_id") for o in to_the_vote()["ballot"]]
    assert sorted(ballot, key=str) == sorted([first.pk, second.pk, None], key=str)
    split_vote()  # tied again: the ladder's end
    assert not current_phase(game).is_day and current_phase(game).label == "Night 1"
    assert game.slots.filter(alive=True).count() == len(living)
    told = [p.body for p in day.posts.filter(is_auto=True).order_by("number")]
    assert any("is tied: a revote." in b for b in told)
    assert told[-1].rstrip().endswith("**Day 1 ends with no elimination.**")


# -- the archive -------------------------------------------------------------------------
def test_the_archive_names_phases_as_the_thread_does(make_game, client_for):
    game = make_game("classic-ten", table=True)
    assert current_phase(game).night_zero
    end_phase(game)  # night 0 ends: Day 1
    for _ in range(300):  # Day 1 runs on its turns' timeouts: then the night after it
        phase = current_phase(game)
        if not phase.is_day:
            break
        services.advance_phase(game.pk, phase.number, now=phase.deadline, turn_seq=phase.turn_seq)
    for mafioso in slots_of(game, "mafia"):
        services.modkill(game.host, game.pk, mafioso.pk)
    game.refresh_from_db()
    assert game.is_finished
    labels = [p.label for p in Phase.objects.filter(game=game).order_by("number")]
    assert labels == ["Night 0", "Day 1", "Night 1"]
    page = text(client_for(None).get(f"/games/{game.pk}/archive/"))
    assert re.findall(r"(?:Night|Day) \d+", page)[:3] == labels
    assert "Night 2" not in page


# -- a blocked player's PM ---------------------------------------------------------------
def test_a_blocked_cop_s_pm_says_what_the_rules_tell_a_blocked_player(make_game, client_for):
    game = make_game("power-nine")  # days as a thread: day 1, then night 1
    end_phase(game)
    cop, blocker = slot_of(game, "cop"), slot_of(game, "mafia_roleblocker")
    godfather = slot_of(game, "godfather")
    services.submit_night_action(blocker.user, game.pk, ability="block", targets=[cop.pk])
    services.submit_night_action(cop.user, game.pk, ability="investigate", targets=[godfather.pk])
    end_phase(game)
    page = text(client_for(cop.user).get(f"/games/{game.pk}/role/"))
    # Power's rules: a blocked cop gets no result, and nothing else stops a cop's result.
    assert "No results yet." not in page
    assert "Night 1: You were blocked tonight: your action got no result." in page
    # The forum's rules give a blocked player no feedback: only that there was no result.
    from resolver.rulesets import get_ruleset

    assert "blocked" not in get_ruleset("forum").no_result_line


# -- classic and city: the elimination, then the last words ------------------------------
@pytest.mark.parametrize("setup", ["city-ten", "classic-ten"])
def test_the_elimination_is_announced_before_the_last_words(make_game, setup):
    game = make_game(setup, table=True)
    if current_phase(game).night_zero:
        end_phase(game)
    living = list(game.slots.filter(alive=True).order_by("seat").select_related("user"))
    target = living[3]
    for _ in range(40):  # speeches: each speaker nominates the target (classic) or passes
        step = turn_view(game, current_phase(game), living)
        if step["step"] != "speech":
            break
        speaker = next(s for s in living if s.pk == step["speaker"]["slot_id"])
        if setup == "classic-ten":  # a classic speech ends with its nomination
            services.nominate(speaker.user, game.pk, target.pk)
        else:
            services.pass_turn(speaker.user, game.pk)
    for slot in living:
        services.cast_vote(slot.user, game.pk, target.pk if slot != target else None)
    phase = current_phase(game)
    told = [p.body for p in phase.posts.filter(is_auto=True).order_by("number")]
    assert any(f"{target.user.username}" in b and "has been eliminated" in b for b in told)
    assert turn_view(game, phase, living)["step"] == "last_words"
    services.submit_post(target.user, game.pk, body="My last words: it was the quiet one.")
    game.refresh_from_db()
    posts = list(phase.posts.order_by("number"))
    last = next(p.number for p in posts if p.body.startswith("My last words"))
    out = next(p.number for p in posts if p.is_auto and "has been eliminated" in p.body)
    assert out < last  # told first, then the last words
    # Told once: the day's end does not say the elimination again.
    assert sum("has been eliminated" in p.body for p in posts if p.is_auto) == 1
