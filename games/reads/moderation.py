"""Site moderation, the read side: who moderates, a person's standing (muted, suspended,
banned), the accounts of one person, and what a moderator's queue may show.

The one rule about hidden information here: while a game runs, its reports go to the
moderators outside it. A moderator who holds (or held) a seat in a running game sees none of
its reports, not even of a public post (the reporter's text may tell what they know), so a
report of a mafia-chat post can never reach a player of that game.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core import signing
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import display
from ..models import (
    AltAccount,
    AltStatus,
    Appeal,
    GameStatus,
    ModerationLogEntry,
    Post,
    Replacement,
    Report,
    ReportStatus,
    Sanction,
    SanctionKind,
    Slot,
)

MODERATE = "games.moderate"  # the permission (``Report.Meta.permissions``)
QUEUE_SIZE = 50  # the oldest open reports a moderator's queue shows at once
LOG_PAGE = 100
CONTEXT_POSTS = 2  # posts shown before and after a reported post
_APPEAL_SALT = "games.moderation.appeal"
APPEAL_DAYS = 90  # an appeal link in a mail works this long


def is_moderator(user: Any) -> bool:
    return bool(getattr(user, "is_authenticated", False)) and user.has_perm(MODERATE)


# -- standing ------------------------------------------------------------------------------
def mute_of(user_id: int, now: datetime | None = None) -> Sanction | None:
    """The mute in force on this person (the one ending last), or None."""
    return longest(Sanction.objects.in_force(now).filter(user_id=user_id, kind=SanctionKind.MUTE))


def removal_of(user_id: int, now: datetime | None = None) -> Sanction | None:
    """The suspension or ban that keeps this person off the site now: a ban before a
    suspension, else the suspension ending last; None when there is none."""
    return longest(Sanction.objects.in_force(now).removals().filter(user_id=user_id))


def longest(sanctions: QuerySet[Sanction]) -> Sanction | None:
    """Of these sanctions, the one that holds longest: a ban, else one without an end,
    else the one ending last."""
    found = list(sanctions)
    if not found:
        return None
    forever = [s for s in found if s.ends_at is None]
    if forever:
        return next((s for s in forever if s.kind == SanctionKind.BAN), forever[0])
    return max(found, key=lambda s: s.ends_at or timezone.now())


def until_text(sanction: Sanction) -> str:
    """ "for good" or "until Mon 3 May 2027, 18:00 UTC" (a sanction's end, in words)."""
    if sanction.ends_at is None:
        return _("for good")
    return _("until %(moment)s") % {"moment": display.dated_moment(sanction.ends_at)}


def standing_sentence(sanction: Sanction) -> str:
    """What a person is told when a sanction in force refuses them."""
    if sanction.kind == SanctionKind.BAN:
        return _("This account is banned from the site.")
    if sanction.ends_at is None:
        if sanction.kind == SanctionKind.MUTE:
            return _("You are muted for good: you may not post.")
        return _("This account is suspended for good.")
    moment = {"moment": display.dated_moment(sanction.ends_at)}
    if sanction.kind == SanctionKind.MUTE:
        return _("You are muted until %(moment)s: you may not post.") % moment
    return _("This account is suspended until %(moment)s.") % moment


# -- one person, several accounts ----------------------------------------------------------
def same_person(user_id: int) -> set[int]:
    """Every account of the person who holds ``user_id``: the main account and its approved
    alternates (an account with none is alone)."""
    main = (
        AltAccount.objects.filter(alt_id=user_id, status=AltStatus.APPROVED)
        .values_list("main_id", flat=True)
        .first()
    ) or user_id
    alts = AltAccount.objects.filter(main_id=main, status=AltStatus.APPROVED).values_list(
        "alt_id", flat=True
    )
    return {main, *alts}


def alt_of(user: Any) -> AltAccount | None:
    """This account's own declaration (as someone's alternate), if it made one."""
    if not getattr(user, "is_authenticated", False):
        return None
    return AltAccount.objects.filter(alt_id=user.pk).select_related("main").first()


def approved_alts(user_id: int) -> list[Any]:
    """The accounts declared and approved as this person's alternates (for their page)."""
    return [
        a.alt
        for a in AltAccount.objects.filter(main_id=user_id, status=AltStatus.APPROVED)
        .select_related("alt")
        .order_by("alt__username")
    ]


# -- what a moderator may see --------------------------------------------------------------
def _games_played(moderator: Any) -> set[int]:
    """The running games in which this moderator holds or held a seat."""
    running = GameStatus.RUNNING
    held = Slot.objects.filter(user_id=moderator.pk, game__status=running).values_list(
        "game_id", flat=True
    )
    left = Replacement.objects.filter(
        old_user_id=moderator.pk, slot__game__status=running
    ).values_list("slot__game_id", flat=True)
    return {*held, *left}


def visible_reports(moderator: Any) -> QuerySet[Report]:
    """The reports this moderator may see: every one, except those of a running game in
    which they play (or played before a replacement)."""
    return Report.objects.exclude(game_id__in=_games_played(moderator))


@dataclass(frozen=True)
class ReportView:
    report: Report
    # A reported post with the posts around it in its thread, oldest first.
    context: list[Post]


def queue(moderator: Any) -> list[ReportView]:
    """The open reports this moderator may see, oldest first, each with its context."""
    reports = list(
        visible_reports(moderator)
        .filter(status=ReportStatus.OPEN)
        .select_related("reporter", "player", "game", "post__author", "post__slot")
        .order_by("created_at", "pk")[:QUEUE_SIZE]
    )
    return [ReportView(r, _context(r.post)) for r in reports]


def open_count(moderator: Any) -> int:
    return visible_reports(moderator).filter(status=ReportStatus.OPEN).count()


def _context(post: Post | None) -> list[Post]:
    if post is None:
        return []
    return list(
        Post.objects.filter(
            game_id=post.game_id,
            thread=post.thread,
            number__gte=post.number - CONTEXT_POSTS,
            number__lte=post.number + CONTEXT_POSTS,
        )
        .select_related("author")
        .order_by("number")
    )


def audit_log(moderator: Any, *, before: int | None = None) -> list[ModerationLogEntry]:
    """The newest entries of the audit log this moderator may read (older ones: ``before``
    an entry's pk): none that came of a report of a running game they play in (its note may
    quote the reported post; that its player was reported at all may tell their side)."""
    played = _games_played(moderator)
    entries = (
        ModerationLogEntry.objects.select_related("moderator", "user", "sanction")
        .exclude(report__game_id__in=played)
        .exclude(sanction__report__game_id__in=played)
    )
    if before is not None:
        entries = entries.filter(pk__lt=before)
    return list(entries.order_by("-pk")[:LOG_PAGE])


def open_appeals(moderator: Any) -> list[Appeal]:
    """The unanswered appeals, but those of a sanction that came of a report of a running
    game this moderator plays in (as ``audit_log``)."""
    return list(
        Appeal.objects.filter(answered_at__isnull=True)
        .exclude(sanction__report__game_id__in=_games_played(moderator))
        .select_related("sanction__user", "sanction__moderator")
        .order_by("created_at", "pk")
    )


def pending_alts() -> list[AltAccount]:
    return list(
        AltAccount.objects.filter(status=AltStatus.PENDING)
        .select_related("alt", "main")
        .order_by("declared_at", "pk")
    )


def sanctions_of(user_id: int, moderator: Any) -> list[Sanction]:
    """The person's sanctions this moderator may read (as ``audit_log``)."""
    return list(
        Sanction.objects.filter(user_id=user_id)
        .exclude(report__game_id__in=_games_played(moderator))
        .select_related("moderator")
        .order_by("-created_at", "-pk")
    )


# -- the appeal link -----------------------------------------------------------------------
def appeal_token(sanction_id: int) -> str:
    """The signed part of the appeal link a sanctioned person gets: it works without
    logging in (a suspended person cannot), for one sanction."""
    return signing.dumps(int(sanction_id), salt=_APPEAL_SALT, compress=True)


def sanction_for_token(token: str) -> Sanction | None:
    try:
        sanction_id = signing.loads(token, salt=_APPEAL_SALT, max_age=APPEAL_DAYS * 86400)
    except (signing.BadSignature, ValueError, TypeError):
        return None
    if not isinstance(sanction_id, int):
        return None
    return Sanction.objects.select_related("user").filter(pk=sanction_id).first()
