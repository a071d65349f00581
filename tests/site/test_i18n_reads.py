"""The reads' words in Russian (issue 35, part 4): what the pages and the API show of a game
(the vote count, the needs, the host's chores, the refusals, the house rules, the post
limit, the role names) is said in the reader's language, and a cached read keeps one copy
per language (asked in English, then in Russian, each gets its own)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.utils import translation

from games import display, fragments, game_settings
from games.models import Slot
from games.reads import policy
from games.reads.my_games import my_games
from games.reads.needs import NEED_LABELS
from games.reads.post_limit import Allowance
from games.reads.vote_count import vote_count, with_texts
from games.setups import SETUPS
from tests.conftest import current_phase

pytestmark = pytest.mark.django_db

CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)


def russian(text: Any) -> bool:
    return bool(CYRILLIC.search(str(text)))


def slots(game: Any) -> list[Slot]:
    return list(game.slots.select_related("user").order_by("seat"))


def test_the_vote_count_speaks_russian_and_english_alike(make_game):
    game = make_game("forum-vanilla")
    day = current_phase(game)
    with translation.override("en"):
        english = vote_count(day, slots=slots(game))
    with translation.override("ru"):
        russian_count = vote_count(day, slots=slots(game))
    assert english["majority_text"] == "With 7 alive it takes 4 to eliminate"
    assert russian_count["majority_text"] == "Живых: 7; для изгнания нужно 4"
    assert english["alive_count"] == russian_count["alive_count"]


def test_needs_host_chores_and_status_lines_are_translated(make_game):
    game = make_game("forum-vanilla")
    player = slots(game)[0].user
    with translation.override("ru"):
        labels = {code: str(label) for code, label in NEED_LABELS.items()}
        mine = my_games(player).active[0]
        assert all(russian(label) for label in labels.values())
        assert [words for _code, words in mine.need_labels] == [labels["vote"]]
    with translation.override("en"):
        assert str(NEED_LABELS["vote"]) == "You have not voted today"


def test_refusals_are_said_in_the_language_they_are_raised_in():
    with translation.override("ru"):
        error = policy.LOG_IN.error()
        assert error.message == "Войдите, чтобы писать."
        assert isinstance(error.message, str)  # no lazy text leaves a raise
        assert error.to_dict()["error"] == "Войдите, чтобы писать."
    with translation.override("en"):
        assert policy.LOG_IN.error().message == "Log in to post."


def test_house_rules_setting_labels_and_setups_in_russian(make_game):
    game = make_game("forum-vanilla")
    game.last_wills = True
    game.post_limit = 5
    with translation.override("ru"):
        rules = game_settings.house_rules(game)
        assert rules and all(russian(line) for line in rules)
        assert "Лимит сообщений: 5 сообщений" in rules[0]
        assert russian(game_settings.BY_NAME["whispers"].label)
        assert russian(SETUPS["forum-vanilla"].description)
    with translation.override("en"):
        assert game_settings.house_rules(game)[0].startswith("Post limit: 5 posts a day")


def test_russian_plurals_in_time_spans_and_the_post_limit():
    with translation.override("ru"):
        assert display.time_span(timedelta(days=1, hours=2, minutes=5)) == "1 день 2 часа 5 минут"
        assert display.time_span(timedelta(seconds=21)) == "21 секунда"
        allowance = Allowance(limit=5, used=2, lifted=False, lifts_at=None, lifted_before=None)
        assert allowance.sentence() == "Сегодня осталось 3 из 5 сообщений."
        assert display.day_label("2026-05-01") == "пт, 1 мая"
    with translation.override("en"):
        assert display.time_span(timedelta(days=1, hours=2, minutes=5)) == "1 day 2 hours 5 minutes"
        assert display.day_label("2026-05-01") == "Fri 1 May"
        moment = datetime(2026, 5, 1, 18, 0, tzinfo=UTC)
        assert display.moment_label(moment) == "Fri 1 May, 18:00 UTC"


def test_role_names_are_translated_where_they_are_shown():
    with translation.override("en"):
        assert display.role_title("forum", "unknown") == "Unknown"
        english = display.role_title("forum", "cop")
    with translation.override("ru"):
        assert display.role_title("forum", "unknown") == "Неизвестно"
        assert display.death_line("forum", "unknown") == "Роль установить не удалось."
        # The resolver marks its role names; the site translates them when it shows them.
        assert display.role_title("forum", "cop") == translation.gettext(english)


def test_a_cached_vote_count_is_kept_once_per_language(make_game):
    game = make_game("forum-vanilla")
    game.refresh_from_db()
    with translation.override("en"):
        english = fragments.vote_count_html(fragments.vote_count_context(game))
    with translation.override("ru"):
        russian_html = fragments.vote_count_html(fragments.vote_count_context(game))
    with translation.override("en"):
        again = fragments.vote_count_html(fragments.vote_count_context(game))
    assert "With 7 alive it takes 4 to eliminate" in english
    assert "Живых: 7; для изгнания нужно 4" in russian_html
    assert "With 7 alive" not in russian_html
    assert again == english


def test_a_cached_players_panel_is_kept_once_per_language(make_game):
    game = make_game("forum-vanilla")
    game.refresh_from_db()
    from games.reads.access import Viewer

    player = slots(game)[0]
    viewer = Viewer.of(game, player.user)
    current = current_phase(game)

    def panel() -> str:
        return fragments.players_panel_html(
            game, viewer, player.user.pk, current=current, slots=slots(game), vc=None
        )

    with translation.override("en"):
        english = panel()
    # A copy made in English is never served to a Russian reader: the key has the language.
    poisoned = "<p>kept for English readers only</p>"
    with translation.override("en"):
        key = (*fragments._state_key(game, current), player.user.pk)
    fragments._PANELS.put(key, poisoned)
    with translation.override("en"):
        assert panel() == poisoned
    with translation.override("ru"):
        russian_panel = panel()
    assert russian_panel != poisoned and "players" in russian_panel
    assert russian_panel.replace("Игроки", "Players").startswith(english[:20])


def test_a_stored_count_is_said_again_in_the_readers_language(make_game):
    """A day's final count is stored once (in whatever language was active); its sentences
    are said again from its numbers when it is read."""
    game = make_game("forum-vanilla")
    day = current_phase(game)
    with translation.override("en"):
        stored = vote_count(day, slots=slots(game))
        stored["wagons"] = [{"target": None, "name": "No elimination", "count": 1}]
    with translation.override("ru"):
        read = with_texts(day, stored)
    assert read["majority_text"] == "Живых: 7; для изгнания нужно 4"
    assert read["wagons"][0]["name"] == "Без изгнания"
    assert stored["majority_text"] == "With 7 alive it takes 4 to eliminate"  # kept as it was
