"""What is written for one person and read later is in that person's language (issue 35,
part 4): a notification, the digest that mails it, an account mail, the correction of a
moved deadline. Two players of the same game, one whose account says Russian and one
English, each read their own; the game's thread stays in the game's language."""

from __future__ import annotations

from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from django.core import mail as django_mail
from django.test import Client
from django.utils import timezone, translation

from games import services
from games.display import moment_label
from games.models import AccountSettings, Game
from league.problems import shown, stored, waiting_for
from notifications import mail
from notifications.models import EmailDigest, MailState, Notification
from notifications.notes import phase_name
from notifications.reminders import send_reminders
from tests.conftest import current_phase
from tests.factories import UserFactory
from tests.mail_support import smtp_server, verify_addresses

pytestmark = pytest.mark.django_db

LATER = timedelta(minutes=16)  # past the default 15-minute digest window


def russian(user) -> None:
    AccountSettings.objects.update_or_create(user=user, defaults={"language": "ru"})


def english(user) -> None:
    AccountSettings.objects.update_or_create(user=user, defaults={"language": "en"})


def in_russian(make, *args):
    with translation.override("ru"):
        return make(*args)


def one(user, kind: str) -> Notification:
    (note,) = Notification.objects.filter(user=user, kind=kind)
    return note


@pytest.fixture
def two_players(make_game, host):
    """A game about to start whose first player reads Russian and second English."""
    game = make_game("forum-vanilla", start=False)
    ru, en = [s.user for s in game.slots.order_by("seat")[:2]]
    russian(ru)
    english(en)
    return game, ru, en


def test_each_player_is_told_of_the_start_in_their_own_language(two_players, host):
    game, ru, en = two_players
    services.start_game(host, game.pk)
    day = current_phase(game)

    assert one(ru, "game_started").text == (
        f"Игра «{game.title}» началась: прочитайте ролевое сообщение."
    )
    deadline = in_russian(moment_label, day.deadline)
    assert one(ru, "phase_started").text == (
        f"В игре «{game.title}» начинается День 1. Срок: {deadline}."
    )
    assert one(en, "game_started").text == f"{game.title} has started: read your role PM."
    assert one(en, "phase_started").text == (
        f"Day 1 has started in {game.title}. Deadline: {moment_label(day.deadline)}."
    )
    # Someone who never chose a language is written to in the site's (English).
    third = game.slots.order_by("seat")[2].user
    assert not AccountSettings.objects.filter(user=third).exists()
    assert one(third, "game_started").text == f"{game.title} has started: read your role PM."


def test_a_games_language_is_its_threads_not_its_players_notifications(two_players, host):
    game, ru, en = two_players
    Game.objects.filter(pk=game.pk).update(language="ru")  # the thread is written in Russian
    services.start_game(host, game.pk)
    assert one(en, "phase_started").text.startswith(
        f"Day 1 has started in {game.title}. Deadline: "
    )
    assert one(ru, "phase_started").text.startswith(
        f"В игре «{game.title}» начинается День 1. Срок: "
    )
    Game.objects.filter(pk=game.pk).update(language="en")
    with translation.override("ru"):
        assert phase_name("Day 3") == "День 3" and phase_name("Night 0") == "Ночь 0"
    with translation.override("en"):
        assert phase_name("День 2") == "Day 2" and phase_name("Ночь 1") == "Night 1"
        assert phase_name("Sunrise 2") == "Sunrise 2"


def test_a_moved_deadline_is_corrected_in_each_persons_language(two_players, host):
    game, ru, en = two_players
    services.start_game(host, game.pk)
    day = current_phase(game)
    assert send_reminders(day.deadline - timedelta(hours=1))
    assert one(ru, "action_missing").text == (
        f"Ваш голос в игре «{game.title}» ещё не подан: День 1 заканчивается "
        f"{in_russian(moment_label, day.deadline)}."
    )

    services.extend_deadline(host, game.pk, by=timedelta(hours=2))
    new = day.deadline + timedelta(hours=2)
    assert one(ru, "phase_started").text == (
        f"В игре «{game.title}» начинается День 1. Срок: {in_russian(moment_label, new)}."
    )
    assert one(ru, "action_missing").text == (
        f"Ваш голос в игре «{game.title}» ещё не подан: День 1 заканчивается "
        f"{in_russian(moment_label, new)}."
    )
    assert one(en, "phase_started").text == (
        f"Day 1 has started in {game.title}. Deadline: {moment_label(new)}."
    )

    services.pause_game(host, game.pk)
    assert one(ru, "phase_started").text == (
        f"В игре «{game.title}» начинается День 1. Срок: нет, пока игра приостановлена."
    )
    assert one(ru, "action_missing").text == (
        f"Ваш голос в игре «{game.title}» ещё не подан: День 1, игра приостановлена."
    )
    assert one(en, "action_missing").text == (
        f"Your vote in {game.title} is still missing: Day 1 is paused."
    )


def test_the_digest_is_in_its_readers_language(two_players, host, settings):
    game, ru, en = two_players
    verify_addresses()
    with smtp_server() as smtp:
        settings.MAILERS = smtp.mailers()
        settings.SITE_URL = "https://mafia.example"
        services.start_game(host, game.pk)
        count = Notification.objects.filter(user=ru, mail=MailState.PENDING).count()
        assert count == 2  # the game started, Day 1 started
        mail.sweep(mail.send_digest, now=timezone.now() + LATER)

    russian_digest = EmailDigest.objects.get(user=ru)
    assert russian_digest.subject == f"2 новости: {game.title}"
    for note in Notification.objects.filter(user=ru):
        assert note.text in russian_digest.text and note.text in russian_digest.html
    assert "Начинается игра, в которую вы записались" in russian_digest.text  # stop links
    assert "Начинается день или ночь" in russian_digest.html
    assert "has started" not in russian_digest.text

    english_digest = EmailDigest.objects.get(user=en)
    assert english_digest.subject == f"2 updates: {game.title}"
    assert f"{game.title} has started: read your role PM." in english_digest.text
    assert "A game you joined starts" in english_digest.text
    assert "Игра" not in english_digest.text

    sent = {m["To"]: m for m in smtp.messages}
    assert sent[ru.email]["Subject"] == f"2 новости: {game.title}"
    assert sent[en.email]["Subject"] == f"2 updates: {game.title}"


def test_an_account_mail_is_in_the_accounts_language_whatever_the_browser(settings):
    settings.MAILERS = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}
    ru = UserFactory(username="olga-ru")
    en = UserFactory(username="ed-en")
    russian(ru)
    english(en)
    for user in (ru, en):
        address = f"{user.username}-{timezone.now().timestamp():.0f}@example.com"
        EmailAddress.objects.create(user=user, email=address, verified=True, primary=True)
        # Asked from an English browser, and from a Russian one: the account decides.
        browser = "en" if user == ru else "ru"
        r = Client(HTTP_ACCEPT_LANGUAGE=browser).post(
            "/accounts/password/reset/", {"email": address}
        )
        assert r.status_code == 302
    russian_mail, english_mail = django_mail.outbox
    assert russian_mail.to[0].startswith("olga-ru") and english_mail.to[0].startswith("ed-en")
    assert russian_mail.subject == "[Forum Mafia] Письмо для сброса пароля"
    assert "Нажмите на ссылку ниже, чтобы сбросить пароль." in russian_mail.body
    assert english_mail.subject == "[Forum Mafia] Password Reset Email"
    assert "Hello from Forum Mafia!" in english_mail.body
    assert "пароль" not in english_mail.body


def settings_page(user) -> str:
    web = Client()
    web.force_login(user)
    return web.get("/notifications/settings/").content.decode()


def test_the_settings_page_names_kinds_and_channels_in_the_readers_language():
    person = UserFactory(username="nina-ru")
    russian(person)
    page = settings_page(person)
    assert "Начинается игра, в которую вы записались" in page
    assert "Входящие и эл. почта" in page
    assert "A game you joined starts" not in page
    assert "A game you joined starts" in settings_page(UserFactory(username="ned-en"))


def test_a_league_queue_problem_is_kept_in_english_and_shown_in_the_readers_language():
    kept = in_russian(stored, waiting_for, 2)
    assert kept == "Waiting for 2 more players."
    with translation.override("en"):
        assert shown(kept) == kept
    with translation.override("ru"):
        assert shown(kept) == "Ждём ещё 2 игроков."
        assert shown("Waiting for 1 more player.") == "Ждём ещё 1 игрока."
        assert shown("something else") == "something else"
