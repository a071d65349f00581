"""The resolver's texts in the game's language: a Russian game's night explanation and win
reason are stored in Russian, whatever language the request that ended the phase was in;
an English game's stay English; a refusal is in the reader's language."""

from __future__ import annotations

import pytest
from django.utils import translation

from games import services
from games.errors import InvalidInput
from tests.conftest import current_phase, slot_of, slots_of

pytestmark = pytest.mark.django_db


def _night(make_game, host, language: str):
    game = make_game("classic-ten", language=language)
    services.cut_deadline_now(host, game.pk)  # day 1 ends with no votes
    assert current_phase(game).is_night
    return game


def _play_night(game, host) -> tuple[list[str], str]:
    """The mafia shoot a townie; the night ends. (explanation, the victim's name)"""
    mafia = slots_of(game, "mafia")
    victim = slots_of(game, "town")[0]
    services.submit_night_action(mafia[0].user, game.pk, ability="kill", targets=[victim.pk])
    assert services.cut_deadline_now(host, game.pk)
    night = game.phases.get(number=2)
    assert night.resolved
    return night.report["explanation"], victim.resolver_name


def _end_with_town_win(game, host) -> None:
    for slot in slots_of(game, "mafia"):
        services.modkill(host, game.pk, slot.pk)
    game.refresh_from_db()
    assert game.status == "finished" and game.winner == "town"


def test_a_russian_games_night_explanation_and_win_reason_are_russian(make_game, host) -> None:
    game = _night(make_game, host, "ru")
    with translation.override("en"):  # whoever ends the phase, the thread's language wins
        lines, victim = _play_night(game, host)
    assert f"{victim} убит(а) мафией" in " ".join(lines)
    assert not any("killed by the mafia" in line for line in lines)
    with translation.override("en"):
        _end_with_town_win(game, host)
    assert game.win_reason == "Все мафиози выбыли."


def test_an_english_games_resolver_texts_stay_english(make_game, host) -> None:
    game = _night(make_game, host, "en")
    with translation.override("ru"):
        lines, victim = _play_night(game, host)
    assert any(line.startswith(f"{victim} is killed by the mafia") for line in lines)
    with translation.override("ru"):
        _end_with_town_win(game, host)
    assert game.win_reason == "Every mafia member has been eliminated."


def test_a_refusal_is_in_the_readers_language(make_game, host) -> None:
    game = _night(make_game, host, "en")
    detective = slot_of(game, "detective")
    with translation.override("ru"), pytest.raises(InvalidInput) as err:
        services.submit_night_action(
            detective.user, game.pk, ability="investigate", targets=[detective.pk]
        )
    assert "не может применять investigate к себе" in err.value.message
