"""Every kind of notification, declared once: its label, its default channel, where it shows.

A notification is another way of delivering a game event to its audience (``games.
event_kinds``): ``notifications`` turns the events of a committed change into
``Notification`` rows for the people the event's audience includes, and never for anyone
else. Each kind here says

- ``label``: what the person's settings page calls it ("A day or night starts");
- ``default``: the channel a person has until they choose one (``CHANNELS``);
- ``desktop``: it may also pop up as a desktop notification in a background tab;
- ``batched``: repeats fold into the one unread notification of the same key ("3 new
  posts in the mafia chat") instead of piling up;
- ``for_host``: it only ever goes to a game's host (the settings page groups them);
- ``fixed``: the person cannot turn it off or away from e-mail (a moderator's action on
  their account must reach them even when they can no longer log in): the settings page
  does not list it and its channel is always ``default``.

The settings page, the API's kind names, the e-mail digests and the model's choices all
derive from ``NOTIFICATION_KINDS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# Where a notification goes: the inbox (with the bell), e-mail, both, or nowhere.
INBOX = "inbox"
EMAIL = "email"
BOTH = "both"
OFF = "off"
# Labels translate where they are shown (lazy): str() them before JSON.
CHANNELS: dict[str, StrOrPromise] = {
    INBOX: _("Inbox"),
    EMAIL: _("E-mail"),
    BOTH: _("Inbox and e-mail"),
    OFF: _("Off"),
}

CHANNEL_CHOICES = list(CHANNELS.items())


@dataclass(frozen=True)
class NotificationKind:
    name: str
    label: StrOrPromise  # lazy: shown in the reader's language
    default: str = INBOX
    desktop: bool = False
    batched: bool = False
    for_host: bool = False
    fixed: bool = False

    def __post_init__(self) -> None:
        assert self.default in CHANNELS, self.name


NOTIFICATION_KINDS: dict[str, NotificationKind] = {
    k.name: k
    for k in (
        # -- a game you play -----------------------------------------------------------------
        NotificationKind("game_started", _("A game you joined starts"), BOTH, desktop=True),
        NotificationKind("phase_started", _("A day or night starts"), BOTH, desktop=True),
        NotificationKind("game_finished", _("A game you play ends"), BOTH),
        NotificationKind("your_turn", _("It is your turn at a table"), BOTH, desktop=True),
        NotificationKind("vote_opened", _("The table's vote opens"), BOTH, desktop=True),
        NotificationKind("near_elimination", _("You are at L-1 or L-0"), BOTH, desktop=True),
        NotificationKind("action_missing", _("Your vote or night action is still missing"), BOTH),
        NotificationKind("prodded", _("You were prodded"), BOTH),
        NotificationKind("replaced", _("You were replaced"), BOTH),
        NotificationKind("modkilled", _("You were modkilled"), BOTH),
        NotificationKind("partner_posted", _("A partner posted in a private thread"), batched=True),
        NotificationKind("mentioned", _("You are quoted or mentioned (@name)")),
        NotificationKind("whispered", _("A player whispered to you"), desktop=True),
        NotificationKind(
            "replacement_wanted", _("A replacement is wanted in a game you queued for")
        ),
        # -- a game you host -----------------------------------------------------------------
        NotificationKind("signups_full", _("Sign-ups are full"), BOTH, for_host=True),
        NotificationKind("night_actions_in", _("All night actions are in"), for_host=True),
        NotificationKind("absence_asked", _("A player asked for V/LA"), for_host=True),
        NotificationKind(
            "made_host", _("You are made a co-host or backup host, or handed a game"), BOTH
        ),
        # -- the site ------------------------------------------------------------------------
        NotificationKind("moderation", _("A moderator acted on your account"), BOTH, fixed=True),
    )
}

KIND_CHOICES = [(k.name, k.label) for k in NOTIFICATION_KINDS.values()]
# The kinds a person chooses a channel for (the settings page, the API, unsubscribing).
SETTABLE_KINDS: dict[str, NotificationKind] = {
    name: k for name, k in NOTIFICATION_KINDS.items() if not k.fixed
}


def channel_parts(channel: str) -> tuple[bool, bool]:
    """(to the inbox, by e-mail) for a channel."""
    return channel in (INBOX, BOTH), channel in (EMAIL, BOTH)
