"""Issue 35, part 4: the thread's automatic posts are written in the game's language (chosen
by its host), whoever acts and from where: an English request, a Celery task with no request
at all, a Russian host in an English game. What is said back to the person acting (a
refusal) is in that person's language.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone, translation
from rest_framework.test import APIClient

from games import services
from games.errors import InvalidInput
from games.models import AccountSettings, Game, Phase, Post, Thread, VoteCountPost
from games.tasks import advance_phase_task
from tests.conftest import current_phase, slots_of

CYRILLIC = re.compile("[А-Яа-яЁё]")


def _thread(game: Any) -> list[Post]:
    return list(Post.objects.filter(game=game, thread=Thread.PUBLIC).order_by("number"))


def _russian_game(make_game: Any) -> Game:
    game = make_game("forum-vanilla")
    Game.objects.filter(pk=game.pk).update(language="ru")
    game.refresh_from_db()
    return game


def _due_now(game: Any) -> Phase:
    """The current phase's deadline moved into the past: the timer task may end it."""
    phase = current_phase(game)
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    return phase


def test_a_russian_games_vote_count_is_russian_when_an_english_host_asks(
    make_game, host, client_for
):
    game = _russian_game(make_game)
    client = client_for(host)
    r = client.post(f"/games/{game.pk}/host/count/", HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 302
    count = VoteCountPost.objects.get(phase__game=game)
    assert count.label == "Подсчёт голосов 1.1"
    body = count.post.body
    assert body.startswith("**Подсчёт голосов 1.1**")
    assert "Голосов пока нет." in body and "Не голосуют (" in body
    assert "Vote count" not in body and "No votes yet" not in body and "Not voting" not in body


def test_a_russian_games_phase_change_is_russian_from_the_celery_task(make_game):
    game = _russian_game(make_game)
    a, b = slots_of(game, "vanilla_townie")[:2]
    services.cast_vote(a.user, game.pk, b.pk)
    before = len(_thread(game))
    day = _due_now(game)
    with translation.override("en"):  # a worker has no request: the site's default language
        assert advance_phase_task.apply(args=(game.pk, day.number)).get() is True
    posts = [p for p in _thread(game)[before:] if p.is_auto]
    text = "\n\n".join(p.body for p in posts)
    assert "**Итоговый подсчёт голосов" in text, text
    assert "Не голосуют (" in text
    assert "Ночные действия отправляйте из своего ролевого сообщения." in text
    assert "**Начинается " in text and "Срок: " in text
    for english in ("Final vote count", "Not voting", "begins.", "Send your night actions"):
        assert english not in text, english
    # A night that ends by itself, from the task too: the morning's post is Russian.
    night = _due_now(game)
    before = len(_thread(game))
    with translation.override("en"):
        advance_phase_task.apply(args=(game.pk, night.number)).get()
    morning = "\n\n".join(p.body for p in _thread(game)[before:] if p.is_auto)
    assert "закончилась.**" in morning and "is over" not in morning


def test_the_hosts_extend_and_pause_notices_follow_the_game_not_the_host(make_game, host):
    game = _russian_game(make_game)
    with translation.override("en"):  # the host reads English; the thread is Russian
        services.extend_deadline(host, game.pk, by=timedelta(hours=2))
        services.pause_game(host, game.pk)
        services.resume_game(host, game.pk)
    extended, paused, resumed = (p.body for p in _thread(game)[-3:])
    assert extended.startswith("**Срок продлён на ")
    assert paused.startswith("**Ведущий приостановил игру; осталось ")
    assert resumed.startswith("**Игра продолжается.** Новый срок: ")
    assert "UTC" in resumed


def test_an_english_game_acted_on_by_a_russian_host(make_game, host):
    game = make_game("forum-vanilla")
    assert game.language == "en"
    AccountSettings.objects.update_or_create(user=host, defaults={"language": "ru"})
    client = Client()
    client.force_login(host)
    a, b = slots_of(game, "vanilla_townie")[:2]
    # The host's own actions: the thread reads English.
    client.post(f"/games/{game.pk}/host/extend/", {"amount": 1, "unit": "hours"})
    client.post(f"/games/{game.pk}/host/count/")
    client.post(f"/games/{game.pk}/host/modkill/", {"slot": a.pk, "reason": "Замолчал"})
    posts = [p.body for p in _thread(game)[-3:]]
    assert posts[0].startswith("**The deadline was extended by 1 hour, to ")
    assert posts[1].startswith("**Vote count 1.1**")
    assert posts[2].startswith(f"**{a.display_name} has been modkilled.** Reason: Замолчал")
    assert "Their role is not revealed." in posts[2]  # (the reason is the host's own words)
    for body in posts[:2]:
        assert not CYRILLIC.search(body), body
    # A refusal is said to the host, in the host's language.
    page = client.post(
        f"/games/{game.pk}/host/replace/",
        {"slot": b.pk, "username": b.user.username},
        follow=True,
    ).content.decode()
    assert f"{b.user.username} уже занимает место в этой игре." in page
    assert "already has a slot" not in page
    # Nothing of the refusal reached the thread.
    assert [p.body for p in _thread(game)[-3:]] == posts


def test_a_refusal_is_in_the_readers_language_and_its_code_stays_english(make_game, host):
    game = make_game("forum-vanilla")
    dead = slots_of(game, "vanilla_townie")[0]
    services.modkill(host, game.pk, dead.pk)
    with translation.override("ru"), pytest.raises(InvalidInput) as refused:
        services.modkill(host, game.pk, dead.pk)
    assert refused.value.message == f"{dead.display_name} уже выбыл(а)."
    assert refused.value.code == "dead_target"
    api = APIClient()
    api.force_authenticate(host)
    r = api.post(
        f"/api/v1/games/{game.pk}/host/modkill/",
        {"slot_id": dead.pk},
        format="json",
        HTTP_ACCEPT_LANGUAGE="ru",
    )
    assert r.status_code == 422
    assert r.json()["error"] == f"{dead.display_name} уже выбыл(а)."
    assert r.json()["code"] == "dead_target"
    # The same refusal in English for an English reader: the English wording is unchanged.
    r = api.post(
        f"/api/v1/games/{game.pk}/host/modkill/",
        {"slot_id": dead.pk},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert r.json()["error"] == f"{dead.display_name} is already dead."


def test_the_announcements_lists_keep_english_and_give_russian_its_words():
    """The "a, b and c" of the table's tie announcement: English as it was, Russian's own."""
    from games.services.announcements import _and

    with translation.override("en"):
        assert _and(["a", "b", "c"]) == "a, b and c"
        assert _and(["a", "b"], or_=True) == "a or b"
    with translation.override("ru"):
        assert _and(["a", "b", "c"]) == "a, b и c"
        assert _and(["a", "b"], or_=True) == "a или b"
