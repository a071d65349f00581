"""The site's pages outside a game (templates/ but templates/games/), and the scripts' words,
in Russian: a Russian reader (Accept-Language: ru, or the account's choice) gets the Russian
text, ``<html lang="ru">``, and the scripts' words (templates/_js_texts.html) in Russian with
their plural forms; an English reader gets the same English as before."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def russian_client(user: Any = None) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="ru")
    if user is not None:
        client.force_login(user)
    return client


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def js_texts(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="js-texts">(.*?)</script>', html, re.S)
    assert found, "no js-texts block"
    texts: dict[str, Any] = json.loads(found.group(1))
    return texts


# (URL, Russian texts the page must show) for an anonymous reader.
ANONYMOUS_PAGES = (
    ("/accounts/login/", ["Войти", "Забыли пароль?", "Нет аккаунта?", "Зарегистрироваться"]),
    ("/accounts/signup/", ["Создать аккаунт", "эти имена заняты", "Уже есть аккаунт?"]),
    ("/accounts/password/reset/", ["Сброс пароля", "Отправить ссылку"]),
    ("/accounts/password/reset/done/", ["Проверьте почту"]),
    ("/accounts/password/reset/key/1-bad/", ["Ссылка для сброса недействительна"]),
    ("/league/", ["Лига", "Очереди", "Встаньте в очередь"]),
    ("/league/series/", ["Дублированные серии", "Серий пока нет."]),
    ("/leaderboard/forum/", ["Рейтинг", "Наборы правил", "0 игроков в рейтинге"]),
    ("/offline/", ["Нет подключения к сети", "Попробовать снова"]),
)

# (URL, Russian texts) for a signed-in reader.
PERSON_PAGES = (
    ("/accounts/email/", ["Ваш аккаунт", "Электронная почта", "Токены API", "Открытые данные"]),
    ("/accounts/password/change/", ["Смена пароля", "Сменить пароль"]),
    ("/accounts/tokens/", ["Токен позволяет программе", "Новый токен"]),
    ("/accounts/open-data/", ["«Место 3»", "Сохранить"]),
    ("/accounts/alt/", ["Заявить второй аккаунт", "Заявить"]),
    ("/agents/", ["Мои агенты", "Зарегистрировать агента", "У вас пока нет агентов."]),
    ("/notifications/", ["Уведомления", "Всё прочитано", "Уведомлений пока нет."]),
    ("/notifications/settings/", ["Настройки уведомлений", "Уведомления на рабочем столе"]),
)


@pytest.mark.parametrize(("url", "words"), ANONYMOUS_PAGES, ids=[u for u, _w in ANONYMOUS_PAGES])
def test_an_anonymous_readers_pages_are_russian(url: str, words: list[str]) -> None:
    html = page(russian_client(), url)
    if url != "/offline/":
        assert '<html lang="ru">' in html
        assert ">Игры</a>" in html and ">Помощь</a>" in html and "К содержимому" in html
    else:
        assert '<html lang="ru">' in html
    for word in words:
        assert word in html, (url, word)


@pytest.mark.parametrize(("url", "words"), PERSON_PAGES, ids=[u for u, _w in PERSON_PAGES])
def test_a_signed_in_readers_pages_are_russian(url: str, words: list[str]) -> None:
    person = UserFactory(username="Читатель")
    html = page(russian_client(person), url)
    assert '<html lang="ru">' in html
    assert ">Мои игры</a>" in html and ">Выйти</button>" in html
    # The bell's words for a screen reader.
    assert "Уведомления, непрочитанных: </span>" in html
    for word in words:
        assert word in html, (url, word)


def test_an_english_reader_gets_the_english_as_before() -> None:
    html = page(Client(HTTP_ACCEPT_LANGUAGE="en"), "/accounts/login/")
    assert '<html lang="en">' in html
    assert "No account?" in html and "Skip to content" in html
    person = UserFactory(username="reader")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(person)
    html = page(client, "/notifications/")
    assert '<span class="visually-hidden">Notifications, </span>' in html
    assert '<span class="visually-hidden"> unread</span>' in html
    assert "Nothing unread" in html


def test_the_scripts_words_come_in_the_readers_language() -> None:
    english = js_texts(page(Client(HTTP_ACCEPT_LANGUAGE="en"), "/league/"))
    assert english["soon"] == "any moment now"
    assert english["aboutDays"] == {
        "1": "in about {n} day",
        "2": "in about {n} days",
        "5": "in about {n} days",
    }
    # No thread's name on every English page (the script has the English itself).
    assert not [key for key in english if re.fullmatch(r"newPost\d", key)]
    assert english["yourTurnTitle"] == "▶ Your turn · {title}"

    russian = js_texts(page(russian_client(), "/league/"))
    # Russian's three plural forms: one (1, 21), few (2-4), many (5-20, 0).
    assert russian["aboutDays"] == {
        "1": "примерно через {n} день",
        "2": "примерно через {n} дня",
        "5": "примерно через {n} дней",
    }
    assert russian["inMinutes"]["5"] == "через {n} минут"
    assert russian["inTime"] == "через {time}"
    assert russian["outageReconnecting"].startswith("Связь с игровым сервером потеряна")
    assert russian["newPost2"] == "Новое сообщение в чате мафии."  # live.js: mafia is 2
    assert russian["yourTurnTitle"] == "▶ Ваш ход · {title}"
    assert russian["pushOnFailed"] == "Не удалось включить пуш-уведомления: {error}"


def test_the_script_block_is_valid_json_whatever_the_words(monkeypatch: Any) -> None:
    """Quotes, backslashes and a closing </script> in a translation stay inside their
    JSON strings (escapejs)."""
    import django.template.base

    nasty = 'вот-вот "</script><b>\\'
    real = django.template.base.gettext_lazy
    monkeypatch.setattr(
        django.template.base,
        "gettext_lazy",
        lambda msgid: nasty if msgid == "any moment now" else real(msgid),
    )
    with translation.override("ru"):
        html = render_to_string("_js_texts.html")
    assert html.count("</script>") == 1
    assert js_texts(html)["soon"] == nasty


def test_the_outage_and_rate_limit_pages_are_russian() -> None:
    with translation.override("ru"):
        outage = render_to_string("503.html", {"message": ""})
        limited = render_to_string("429.html", {"message": ""})
    assert '<html lang="ru">' in outage and "Временно недоступно (HTTP 503)" in outage
    assert "Обновите страницу" in outage
    assert "Слишком много запросов; попробуйте снова через минуту." in limited


def test_the_mails_templates_are_russian_in_a_russian_persons_language() -> None:
    context = {
        "name": "Читатель",
        "groups": [],
        "site_url": "https://example.org",
        "stop": [],
        "stop_all": "https://example.org/stop",
    }
    with translation.override("ru"):
        text = render_to_string("email/digest.txt", context)
        html = render_to_string("email/digest.html", context)
        subject = render_to_string("account/email/login_unlock_subject.txt", {})
    assert text.startswith("Здравствуйте, Читатель!")
    assert "Вот что произошло в ваших играх." in text and "все уведомления" in text
    assert '<html lang="ru">' in html and "Отписаться от писем:" in html
    assert subject.strip() == "Слишком много неудачных попыток входа в ваш аккаунт"
    with translation.override("en"):
        text = render_to_string("email/digest.txt", context)
    assert text.startswith("Hello Читатель,\n\nHere is what happened in your games.")


def test_allauths_own_messages_come_in_russian() -> None:
    """allauth's own texts (its form labels, its errors) come from its Russian catalogue."""
    html = page(russian_client(), "/accounts/login/")
    assert "Пароль" in html  # allauth's "Password" label
    response = russian_client().post(
        "/accounts/login/", {"login": "nobody-here", "password": "wrong-password-1"}
    )
    assert response.status_code == 200
    assert "Password" not in response.content.decode().split("<main", 1)[1]


@pytest.mark.parametrize(
    ("language", "said"),
    [("en", "Page not found"), ("ru", "Страница не найдена")],
)
def test_the_not_found_page_is_the_sites_own_in_the_readers_language(settings, language, said):
    """With DEBUG off (production, and scripts/run.sh's newcomer run) a wrong address gets
    the site's page, and a view's own reason ("There is no such thread.") is said on it."""
    settings.DEBUG = False
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    answer = client.get("/no/such/page/")
    body = answer.content.decode()
    assert answer.status_code == 404 and said in body and f'<html lang="{language}"' in body
    assert "Resolver404" not in body
    answer = client.get("/games/999999/")
    assert answer.status_code == 404 and said in answer.content.decode()
