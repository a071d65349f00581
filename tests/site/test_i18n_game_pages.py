"""The game pages' own words (templates/games/) in Russian: a reader whose browser asks for
Russian (Accept-Language: ru) gets the thread, the role PM, the host's dashboard, the
lobby and the sign-ups in Russian, with the plural forms Russian has; an English reader
gets the same English as before."""

from __future__ import annotations

from typing import Any

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

pytestmark = pytest.mark.django_db


def read(url: str, user: Any = None, language: str = "ru") -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def assert_shows(html: str, words: list[str], where: str) -> None:
    left = [w for w in words if w not in html]
    assert not left, f"{where}: missing {left}"


def assert_hides(html: str, words: list[str], where: str) -> None:
    found = [w for w in words if w in html]
    assert not found, f"{where}: English left {found}"


def test_the_thread_is_russian_for_a_player(make_game) -> None:
    game = make_game("forum-vanilla", starts_with="day")
    player = game.slots.select_related("user").order_by("seat").first().user
    html = read(f"/games/{game.pk}/", player)
    assert_shows(
        html,
        [
            "Перейти к полю ответа",  # the skip link
            'aria-label="Страницы игры"',  # the game's tabs
            ">Ролевое сообщение</a>",
            ">Голоса</a>",
            ">Активность</a>",
            "Подсчёт голосов, ",  # the sidebar's count
            "Не голосуют (",
            "Игроки ",
            "(в живых: ",
            ">Голосовать</button>",
            'aria-label="Подсчёт голосов и игроки"',
            "ведущий: ",  # hosted by
            "показать в теме только сообщения выбранных игроков",  # the ISO bar
            "Ответить",
        ],
        "thread",
    )
    assert_hides(
        html,
        [
            "Skip to the reply box",
            "Role PM<",
            "Vote count and players",
            ">Post reply<",
            "Not voting (",
        ],
        "thread",
    )


def test_the_role_pm_is_russian(make_game) -> None:
    game = make_game("forum-vanilla", starts_with="day")
    slot = game.slots.select_related("user").order_by("seat").first()
    html = read(f"/games/{game.pk}/role/", slot.user)
    assert_shows(
        html,
        [
            "Ваше ролевое сообщение",
            "Ваша роль — ",
            "Сторона: <strong",
            "<h2>Ночные действия</h2>",
            "Ночные действия отправляют ночью.",
            "<h2>Ваши результаты</h2>",
            "Результатов пока нет.",
        ],
        "role PM",
    )
    assert_hides(html, ["Your role PM", "Night actions", "Your results", "No results yet."], "role")


def test_the_host_dashboard_is_russian(make_game) -> None:
    game = make_game("forum-vanilla", starts_with="day")
    html = read(f"/games/{game.pk}/host/", game.host)
    assert_shows(
        html,
        [
            ">Панель ведущего</a>",
            "<h2>Игроки и роли</h2>",
            "<h2>Соблюдение сроков</h2>",
            ">Продлить</button>",
            "<h2>Модкилл</h2>",
            'data-confirm="Модкилл этого игрока?"',
            ">Опубликовать подсчёт голосов сейчас</button>",
            "<h2>Очередь на замену</h2>",
            "<h2>Заменить игрока</h2>",
            "<h2>Написать как ведущий</h2>",
            "<h2>Фазы, действия и объяснения</h2>",
            ">Место</th>",
            "жив(а)",
        ],
        "host dashboard",
    )
    assert_hides(
        html, ["Players and roles", "Deadline keeping", "Post as host", ">Extend<"], "host"
    )


def test_the_sign_ups_and_the_lobby_are_russian_with_plural_forms(make_game, host) -> None:
    game = make_game("forum-vanilla", start=False)
    html = read(f"/games/{game.pk}/", host)
    assert_shows(
        html,
        [
            "<h2>Набор игроков</h2>",
            ">Начать игру</button>",
            "дни по ",  # "{n} players: ..., days of ..., nights of ..."
            "Список ролей (",
        ],
        "sign-ups",
    )
    lobby = read("/", host)
    assert_shows(
        lobby,
        [
            "<h1>Игры</h1>",
            ">Мои игры</a>",
            ">Провести игру</a>",
            f"ведущий: {host.get_username()}",
            f"записалось {game.slots.count()}/{game.player_cap}",
        ],
        "lobby",
    )
    assert_hides(lobby, ["Host a game", "hosted by", "signed up"], "lobby")


@pytest.mark.parametrize(
    ("n", "words"),
    [(1, "1 сообщение"), (3, "3 сообщения"), (5, "5 сообщений"), (21, "21 сообщение")],
)
def test_the_russian_counts_take_their_plural_form(n: int, words: str) -> None:
    from django.template import Context, Template

    template = Template(
        "{% load i18n %}{% blocktranslate trimmed count n=n %}({{ n }} post)"
        "{% plural %}({{ n }} posts){% endblocktranslate %}"
    )
    with translation.override("ru"):
        assert template.render(Context({"n": n})) == f"({words})"
    with translation.override("en"):
        assert template.render(Context({"n": n})) == f"({n} post{'s' if n != 1 else ''})"


def test_an_english_reader_keeps_the_english_words(make_game) -> None:
    game = make_game("forum-vanilla", starts_with="day")
    player = game.slots.select_related("user").order_by("seat").first().user
    html = read(f"/games/{game.pk}/", player, language="en")
    assert_shows(
        html,
        ["Skip to the reply box", ">Role PM</a>", "Vote count, ", "Not voting (", "hosted by "],
        "English thread",
    )
    role = read(f"/games/{game.pk}/role/", player, language="en")
    assert_shows(role, ["Your role PM", "You are ", "<h2>Night actions</h2>"], "English role PM")


def test_the_post_frame_follows_the_readers_language() -> None:
    """The post's frame (Quote, Bookmark, Report) is in the language it is rendered in."""
    from types import SimpleNamespace

    post = SimpleNamespace(
        thread="public",
        number=3,
        game_id=1,
        is_host=False,
        is_auto=False,
        vote_note="",
        author_name="Игрок1",
        created_at=None,
        to_name="",
        html="<p>Привет</p>",
        body="Привет",
    )
    with translation.override("ru"):
        html = render_to_string("games/_post.html", {"post": post})
    assert ">Цитировать</a>" in html and "В закладки" in html and "Пожаловаться" in html
    assert "сообщение #3" in html
    with translation.override("en"):
        html = render_to_string("games/_post.html", {"post": post})
    assert ">Quote</a>" in html and "Bookmark<span" in html and "post #3" in html
