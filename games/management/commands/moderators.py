"""``manage.py moderators``: list the site's moderators, or add or remove one by name.

A moderator holds the permission ``games.moderate`` through the group "Moderators"
(``services.moderation.set_moderator``); the admin can grant it too."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.reads.people import user_called
from games.services import moderation


class Command(BaseCommand):
    help = "List the site's moderators, or add or remove one: moderators [add|remove NAME]."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("action", nargs="?", choices=["list", "add", "remove"], default="list")
        parser.add_argument("name", nargs="?", default="")

    def handle(self, *args: Any, action: str, name: str, **options: Any) -> None:
        if action != "list":
            user = user_called(name)
            if user is None:
                raise CommandError(f"There is nobody called {name!r}.")
            moderation.set_moderator(user, on=action == "add")
            done = "is now a moderator" if action == "add" else "is no longer a moderator"
            self.stdout.write(f"{user.get_username()} {done}.")
        for user in moderation.moderators():
            self.stdout.write(user.get_username())
