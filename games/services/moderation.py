"""Site moderation: reports, a moderator's actions (dismiss, warn, mute, suspend, ban),
appeals, sanctions that end, declared alternate accounts.

Moderators are a permission (``reads.moderation.MODERATE``), separate from hosting a game.
Every action runs in one transaction with the acted-on person's row locked, writes the audit
log (``ModerationLogEntry``) and tells the person (the ``moderation`` notification: inbox and
mail, which they cannot turn off; its link is their appeal page, which works signed out).

A suspension or a ban takes the person off the site until it is lifted: their account and
their agents' accounts are deactivated (Django then signs in none of their sessions, API
tokens or sockets), their open sockets are closed after the commit, they leave the league's
queues, and each seat they or their agents hold in a running game is flagged to its host for
replacement (in a league game, which has no host to ask, the seat is replaced from the queue
or else modkilled). A mute only refuses their posts (``services.posts``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.i18n import in_language_of

from .. import hooks
from ..errors import ErrorCode, InvalidInput, NotAllowed, NotFound, WrongPhase
from ..live.inbox import (
    close_account_sockets_on_commit,
    close_token_sockets_on_commit,
    publish_inbox_on_commit,
)
from ..models import (
    REMOVALS,
    Agent,
    AgentToken,
    AltAccount,
    AltStatus,
    Appeal,
    Game,
    GameStatus,
    ModerationAction,
    ModerationLogEntry,
    Post,
    ReplacementSignup,
    Report,
    ReportReason,
    ReportStatus,
    Sanction,
    SanctionKind,
    Slot,
)
from ..naming import slot_ref
from ..reads import moderation as reads
from ..reads.access import Viewer
from ..reads.people import user_called
from .common import emit, game_tx
from .lobby import leave_game
from .phases import do_modkill

if TYPE_CHECKING:  # the site's user model is Django's (AUTH_USER_MODEL is not set)
    from django.contrib.auth.models import User
from .swap import replace_from_queue

MAX_DAYS = 3650
MAX_TEXT = 2000
MAX_APPEAL = 4000
DISMISS = "dismiss"
ACTIONS = (DISMISS, *SanctionKind.values)  # what a moderator may do with a report
# What a sanction writes to the log, and what a lifted one's person is told.
_LOGGED = {
    SanctionKind.WARN: ModerationAction.WARNED,
    SanctionKind.MUTE: ModerationAction.MUTED,
    SanctionKind.SUSPEND: ModerationAction.SUSPENDED,
    SanctionKind.BAN: ModerationAction.BANNED,
}
# The seat's reason in the thread when a league game modkills a removed player.
# (Marked for translation: the announcement says a known reason in the game's language.)
REMOVED = gettext_noop("removed from the site by its moderators")
ANOTHER_ACCOUNT = gettext_noop("another account of a player in this game")


# -- reports -------------------------------------------------------------------------------
def file_report(
    user: Any,
    *,
    reason: str,
    text: str = "",
    game_id: int | None = None,
    thread: str = "public",
    number: int | None = None,
    player: str | None = None,
    now: datetime | None = None,
) -> Report:
    """Report one post (``game_id``, ``thread``, ``number``: a post the reporter can read)
    or one player (``player``: a name; ``game_id`` optional, the game it is about). A
    second report of the same thing by the same person while the first is open is that one."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to report."), ErrorCode.LOGIN)
    if reason not in ReportReason.values:
        raise InvalidInput(_("Choose a reason from the list."), ErrorCode.REASON, "reason")
    text = (text or "").strip()
    if len(text) > MAX_TEXT:
        raise InvalidInput(
            _("Say it in at most %(limit)s characters.") % {"limit": MAX_TEXT},
            ErrorCode.TOO_LONG,
            "text",
        )
    if reason == ReportReason.OTHER and not text:
        raise InvalidInput(_("Say what is wrong."), ErrorCode.EMPTY, "text")
    if (number is None) == (not player):
        raise InvalidInput(_("Report one post or one player."), ErrorCode.REPORT_TARGET, "player")
    post = game = None
    reported: User | None
    if game_id is not None:
        game = _game(game_id)
    if number is not None:
        if game is None:
            raise InvalidInput(_("Say which game the post is in."), ErrorCode.NO_GAME, "game")
        viewer = Viewer.of(game, user)
        # A thread the reporter may not read does not exist for them (no hint it does).
        if not viewer.thread_exists(thread) or not viewer.can_read(thread):
            raise NotFound(_("There is no such thread."), ErrorCode.NO_THREAD, "thread")
        post = (
            Post.objects.select_related("author")
            .filter(game=game, thread=thread, number=number)
            .first()
        )
        if post is None:
            raise NotFound(_("There is no such post."), ErrorCode.NOT_FOUND, "number")
        reported = post.author
    else:
        reported = user_called(str(player))
        if reported is None:
            raise NotFound(
                _("There is nobody called %(name)s.") % {"name": repr(player)},
                ErrorCode.NO_USER,
                "player",
            )
    if reported.pk == user.pk:
        raise InvalidInput(_("You cannot report yourself."), ErrorCode.REPORT_TARGET, "player")
    with transaction.atomic():
        _lock_people([user.pk])
        same = Report.objects.filter(
            reporter=user, player=reported, post=post, status=ReportStatus.OPEN
        ).first()
        if same is not None:
            return same
        return Report.objects.create(
            reporter=user,
            post=post,
            player=reported,
            game=game,
            reason=reason,
            text=text,
            created_at=now or timezone.now(),
        )


def _game(game_id: int) -> Game:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise NotFound(_("There is no such game."), ErrorCode.NO_GAME, "game")
    return game


def handle_report(
    moderator: Any,
    report_id: int,
    *,
    action: str,
    reason: str = "",
    days: int | None = None,
    note: str = "",
    now: datetime | None = None,
) -> Report:
    """Dismiss a report, or act on the person it names (``sanction``): one transaction."""
    _require_moderator(moderator)
    if action not in ACTIONS:
        raise InvalidInput(
            _("Choose dismiss, warn, mute, suspend or ban."), ErrorCode.MODERATION_ACTION, "action"
        )
    now = now or timezone.now()
    with transaction.atomic():
        report = _undecided(
            # Or one of a game they play in: not admitted either way.
            reads.visible_reports(moderator),
            report_id,
            missing=NotFound(_("There is no such report."), ErrorCode.NO_REPORT),
            decided=lambda row: row.status != ReportStatus.OPEN,
            taken=_("Another moderator has handled this report."),
        )
        if action == DISMISS:
            report.status = ReportStatus.DISMISSED
            _log(
                moderator,
                ModerationAction.DISMISSED,
                report.player_id,
                now,
                report=report,
                reason=report.reason,
                note=_text(note),
            )
        else:
            sanction(
                moderator,
                report.player,
                action,
                reason=reason or report.reason,
                days=days,
                note=note,
                report=report,
                now=now,
            )
            report.status = ReportStatus.ACTIONED
        _decide(report, "handled", moderator, now, status=report.status)
        return report


# -- sanctions -----------------------------------------------------------------------------
def sanction(
    moderator: Any,
    user: Any,
    kind: str,
    *,
    reason: str,
    days: int | None = None,
    note: str = "",
    report: Report | None = None,
    now: datetime | None = None,
) -> Sanction:
    """Warn, mute (no posting for ``days``), suspend (``days``) or ban ``user``."""
    _require_moderator(moderator)
    if kind not in SanctionKind.values:
        raise InvalidInput(
            _("Choose warn, mute, suspend or ban."), ErrorCode.MODERATION_ACTION, "action"
        )
    if reason not in ReportReason.values:
        raise InvalidInput(_("Choose a reason from the list."), ErrorCode.REASON, "reason")
    if user is None or not getattr(user, "pk", None):
        raise NotFound(_("There is no such person."), ErrorCode.NO_USER, "player")
    if user.pk == moderator.pk:
        raise InvalidInput(_("You cannot act on your own account."), ErrorCode.SAME_PERSON)
    ends_at = None
    now = now or timezone.now()
    if kind in (SanctionKind.MUTE, SanctionKind.SUSPEND):
        ends_at = now + timedelta(days=_days(days))
    with transaction.atomic():
        _lock_people([user.pk])
        row = Sanction.objects.create(
            user_id=user.pk,
            kind=kind,
            reason=reason,
            note=_text(note),
            moderator=moderator,
            report=report,
            created_at=now,
            ends_at=ends_at,
        )
        _log(
            moderator,
            _LOGGED[SanctionKind(kind)],
            user.pk,
            now,
            report=report,
            sanction=row,
            reason=reason,
            note=row.note,
        )
        _tell(user.pk, lambda: _sanction_text(row), row, now)
        if kind in REMOVALS:
            _take_off_the_site(user.pk, now)
        return row


def lift(
    moderator: Any | None, sanction_id: int, *, note: str = "", now: datetime | None = None
) -> Sanction:
    """End a sanction before its time (a moderator; ``None``: the sweep, at its end). The
    account comes back once no other suspension or ban holds it."""
    if moderator is not None:
        _require_moderator(moderator)
    now = now or timezone.now()
    with transaction.atomic():
        row = Sanction.objects.filter(pk=sanction_id).first()
        if row is None:
            raise NotFound(_("There is no such sanction."), ErrorCode.NO_SANCTION)
        _lock_people([row.user_id])
        row = Sanction.objects.select_for_update().get(pk=sanction_id)
        if row.lifted_at is not None or row.kind == SanctionKind.WARN:
            raise WrongPhase(_("This sanction is not in force."), ErrorCode.NO_SANCTION)
        row.lifted_at = now
        row.lifted_by = moderator
        row.save(update_fields=["lifted_at", "lifted_by"])
        expired = moderator is None
        _log(
            moderator,
            ModerationAction.EXPIRED if expired else ModerationAction.LIFTED,
            row.user_id,
            now,
            sanction=row,
            note=_text(note),
        )

        def lifted_text() -> str:
            label = {"kind": row.get_kind_display().lower()}
            if expired:
                return _("Your %(kind)s has ended.") % label
            return _("Your %(kind)s has been lifted.") % label

        _tell(row.user_id, lifted_text, row, now)
        if row.kind in REMOVALS and reads.removal_of(row.user_id, now) is None:
            _bring_back(row.user_id)
        return row


def lift_ended(now: datetime | None = None) -> int:
    """Lift every mute and suspension whose time is up (the beat's sweep, a minute apart);
    the number lifted. One transaction each: one failing does not hold the others."""
    now = now or timezone.now()
    due = list(
        Sanction.objects.filter(lifted_at__isnull=True, ends_at__lte=now)
        .order_by("ends_at")
        .values_list("pk", flat=True)[:500]
    )
    lifted = 0
    for pk in due:
        try:
            lift(None, pk, now=now)
        except WrongPhase:
            continue  # lifted meanwhile
        lifted += 1
    return lifted


# -- appeals -------------------------------------------------------------------------------
def appeal(user: Any, sanction_id: int, *, text: str, now: datetime | None = None) -> Appeal:
    """The sanctioned person's one appeal (``user``: them, or None when they came by the
    signed link in their mail: the link is the proof)."""
    text = (text or "").strip()
    if not text:
        raise InvalidInput(_("Say why the sanction should go."), ErrorCode.EMPTY, "text")
    if len(text) > MAX_APPEAL:
        raise InvalidInput(
            _("Say it in at most %(limit)s characters.") % {"limit": MAX_APPEAL},
            ErrorCode.TOO_LONG,
            "text",
        )
    with transaction.atomic():
        row = Sanction.objects.select_for_update().filter(pk=sanction_id).first()
        if row is None or (user is not None and row.user_id != user.pk):
            raise NotFound(_("There is no such sanction."), ErrorCode.NO_SANCTION)
        if Appeal.objects.filter(sanction=row).exists():
            raise WrongPhase(_("You have appealed this already."), ErrorCode.ALREADY_APPEALED)
        if row.lifted_at is not None:
            raise WrongPhase(_("This sanction is no longer in force."), ErrorCode.NO_SANCTION)
        return Appeal.objects.create(sanction=row, text=text, created_at=now or timezone.now())


def answer_appeal(
    moderator: Any,
    appeal_id: int,
    *,
    grant: bool,
    answer: str = "",
    now: datetime | None = None,
) -> Appeal:
    """Grant (the sanction is lifted) or refuse an appeal; never by the moderator who acted."""
    _require_moderator(moderator)
    now = now or timezone.now()
    with transaction.atomic():
        row = _undecided(
            Appeal.objects.select_related("sanction"),
            appeal_id,
            missing=NotFound(_("There is no such appeal."), ErrorCode.NO_APPEAL),
            decided=lambda row: row.answered_at is not None,
            taken=_("Another moderator has answered this appeal."),
        )
        if row.sanction.moderator_id == moderator.pk:
            raise NotAllowed(
                _("Another moderator answers the appeal of your own action."),
                ErrorCode.OWN_SANCTION,
            )
        _decide(row, "answered", moderator, now, granted=bool(grant), answer=_text(answer))
        action = ModerationAction.APPEAL_GRANTED if grant else ModerationAction.APPEAL_REFUSED
        _log(moderator, action, row.sanction.user_id, now, sanction=row.sanction, note=row.answer)
        sanction_row = row.sanction
        if grant and sanction_row.lifted_at is None and sanction_row.kind != SanctionKind.WARN:
            lift(moderator, sanction_row.pk, note="Appeal granted.", now=now)

        def appeal_text() -> str:
            kind = {"kind": sanction_row.get_kind_display().lower()}
            if grant:
                text = _("Your appeal of your %(kind)s was granted.") % kind
            else:
                text = _("Your appeal of your %(kind)s was refused.") % kind
            return f"{text} {row.answer}" if row.answer else text

        _tell(sanction_row.user_id, appeal_text, sanction_row, now)
        return row


# -- alternate accounts --------------------------------------------------------------------
def declare_alt(user: Any, main: str, *, note: str = "", now: datetime | None = None) -> AltAccount:
    """``user`` declares itself an alternate account of ``main`` (a name); a moderator
    approves it. Declaring puts nobody out of a game; approval keeps the two apart."""
    if not getattr(user, "is_authenticated", False):
        raise NotAllowed(_("Log in to declare an account."), ErrorCode.LOGIN)
    if Agent.objects.filter(user_id=user.pk).exists():
        raise NotAllowed(
            _("An agent is declared by its owner, not as an alt."), ErrorCode.AGENT_ACCOUNT
        )
    main_user = user_called(str(main or ""))
    if main_user is None:
        raise NotFound(
            _("There is nobody called %(name)s.") % {"name": repr(main)}, ErrorCode.NO_USER, "main"
        )
    if main_user.pk == user.pk:
        raise InvalidInput(
            _("Name your main account, not this one."), ErrorCode.SAME_PERSON, "main"
        )
    with transaction.atomic():
        _lock_people([user.pk])
        if AltAccount.objects.filter(alt_id=user.pk).exclude(status=AltStatus.REFUSED).exists():
            raise WrongPhase(_("This account is declared already."), ErrorCode.ALT_DECLARED)
        if AltAccount.objects.filter(main_id=user.pk, status=AltStatus.APPROVED).exists():
            raise WrongPhase(
                _("This account is a main account with alternates: declare them from there."),
                ErrorCode.ALT_DECLARED,
                "main",
            )
        AltAccount.objects.filter(alt_id=user.pk).delete()  # a refused one: ask again
        # One person, one main: an alt of an alt belongs to the first one's main.
        root = AltAccount.objects.filter(alt_id=main_user.pk, status=AltStatus.APPROVED).first()
        return AltAccount.objects.create(
            alt_id=user.pk,
            main_id=root.main_id if root else main_user.pk,
            note=_text(note),
            declared_at=now or timezone.now(),
        )


def decide_alt(
    moderator: Any, alt_id: int, *, approve: bool, now: datetime | None = None
) -> AltAccount:
    _require_moderator(moderator)
    now = now or timezone.now()
    with transaction.atomic():
        row = _undecided(
            AltAccount.objects.all(),
            alt_id,
            missing=NotFound(_("There is no such declaration."), ErrorCode.NO_ALT),
            decided=lambda row: row.status != AltStatus.PENDING,
            taken=_("Another moderator has decided this."),
        )
        status = AltStatus.APPROVED if approve else AltStatus.REFUSED
        _decide(row, "decided", moderator, now, status=status)
        action = ModerationAction.ALT_APPROVED if approve else ModerationAction.ALT_REFUSED
        _log(
            moderator, action, row.alt_id, now, note=f"declared an alternate of user {row.main_id}"
        )
        if approve:
            _keep_accounts_apart(row.alt, reads.same_person(row.alt_id) - {row.alt_id}, now)
        return row


def _keep_accounts_apart(alt: Any, others: set[int], now: datetime) -> None:
    """Two accounts of one person never hold seats in one game (nor play one the other
    hosts): an approved alternate already sitting beside another of the person's accounts
    leaves a game still in sign-ups, and its seat in a running game is flagged as a
    removed person's is (the host replaces it; a league game fills or modkills it)."""
    shared = (
        Game.objects.filter(slots__user_id=alt.pk)
        .filter(Q(slots__user_id__in=others) | Q(host_id__in=others))
        .filter(status__in=[GameStatus.SIGNUPS, GameStatus.RUNNING])
        .values_list("pk", "status")
        .distinct()
    )
    for game_id, status in sorted(set(shared)):
        if status == GameStatus.SIGNUPS:
            leave_game(alt, game_id)
            continue
        with game_tx(game_id, now) as tx:
            for slot in [s for s in tx.slots if s.user_id == alt.pk and s.alive]:
                _flag_seat(tx, slot, removed=False)


# -- who moderates -------------------------------------------------------------------------
MODERATORS_GROUP = "Moderators"


def set_moderator(user: Any, on: bool = True) -> None:
    """Make ``user`` one of the site's moderators (or no longer): the group "Moderators",
    which holds the permission (``manage.py moderators``; the admin can do the same)."""
    with transaction.atomic():
        group, _created = Group.objects.get_or_create(name=MODERATORS_GROUP)
        app, codename = reads.MODERATE.split(".")
        group.permissions.add(
            Permission.objects.get(content_type__app_label=app, codename=codename)
        )
        if on:
            user.groups.add(group)
        else:
            user.groups.remove(group)


def moderators() -> list[Any]:
    perm = reads.MODERATE.split(".")[1]
    return list(
        get_user_model()
        .objects.filter(
            Q(
                groups__permissions__codename=perm,
                groups__permissions__content_type__app_label="games",
            )
            | Q(user_permissions__codename=perm, user_permissions__content_type__app_label="games")
            | Q(is_superuser=True)
        )
        .filter(is_active=True)
        .distinct()
        .order_by("username")
    )


# -- the steps -----------------------------------------------------------------------------
def _undecided(
    rows: Any, pk: int, *, missing: NotFound, decided: Callable[[Any], bool], taken: str
) -> Any:
    """Row ``pk`` of ``rows``, locked, still waiting for a moderator: ``missing`` when
    there is none, ALREADY_HANDLED (saying ``taken``) when another moderator came first."""
    row = rows.select_for_update(of=("self",)).filter(pk=pk).first()
    if row is None:
        raise missing
    if decided(row):
        raise WrongPhase(taken, ErrorCode.ALREADY_HANDLED)
    return row


def _decide(row: Any, verb: str, moderator: Any, now: datetime, **values: Any) -> None:
    """Save the decision on ``row``: ``values`` and who and when (``<verb>_by``, ``_at``)."""
    values |= {f"{verb}_by": moderator, f"{verb}_at": now}
    for field, value in values.items():
        setattr(row, field, value)
    row.save(update_fields=list(values))


def _require_moderator(user: Any) -> None:
    if not reads.is_moderator(user):
        raise NotAllowed(_("Only the site's moderators do this."), ErrorCode.NOT_MODERATOR)


def _days(days: Any) -> int:
    try:
        value = int(days)
    except (TypeError, ValueError):
        value = 0
    if not 1 <= value <= MAX_DAYS:
        raise InvalidInput(
            _("Give a number of days from 1 to %(most)s.") % {"most": MAX_DAYS},
            ErrorCode.DAYS,
            "days",
        )
    return value


def _text(value: Any) -> str:
    return str(value or "").strip()[:MAX_TEXT]


def _lock_people(user_ids: list[int]) -> None:
    """The people's rows, locked in id order: their sanctions and declarations serialize
    (the league's joins lock the same row)."""
    list(
        get_user_model()
        .objects.filter(pk__in=sorted(user_ids))
        .order_by("pk")
        .select_for_update()
        .values_list("pk", flat=True)
    )


def _log(
    moderator: Any | None,
    action: str,
    user_id: int | None,
    now: datetime,
    *,
    report: Report | None = None,
    sanction: Sanction | None = None,
    reason: str = "",
    note: str = "",
) -> None:
    ModerationLogEntry.objects.create(
        at=now,
        moderator=moderator,
        action=action,
        user_id=user_id,
        report=report,
        sanction=sanction,
        reason=reason,
        note=note,
    )


def _sanction_text(row: Sanction) -> str:
    parts = {"reason": row.get_reason_display()}
    kind = SanctionKind(row.kind)
    if kind == SanctionKind.WARN:
        text = _("A moderator warned you. Reason: %(reason)s.") % parts
    elif kind == SanctionKind.MUTE:
        text = _("You are muted %(until)s: you may not post. Reason: %(reason)s.") % {
            **parts,
            "until": reads.until_text(row),
        }
    elif kind == SanctionKind.SUSPEND:
        text = _("Your account is suspended %(until)s. Reason: %(reason)s.") % {
            **parts,
            "until": reads.until_text(row),
        }
    else:
        text = _("Your account is banned from the site. Reason: %(reason)s.") % parts
    if row.note:
        text = f"{text} {row.note}"
    return text + " " + _("Open this to appeal.")


def _tell(user_id: int, compose: Callable[[], str], row: Sanction, now: datetime) -> None:
    """The person's notification (inbox and mail, always): its link is the appeal page.
    ``compose`` writes its text in the person's language (they read it later)."""
    with in_language_of(get_user_model().objects.filter(pk=user_id).first()):
        text = compose()
    link = reverse("games:appeal", args=[reads.appeal_token(row.pk)])
    told = hooks.tell(user_id, "moderation", text[:500], link, now)
    if told:
        publish_inbox_on_commit(told)


def _take_off_the_site(user_id: int, now: datetime) -> None:
    """Deactivate the person and their agents, close their sockets, take them out of the
    league's queues and flag (or, in a league game, fill) every seat they hold."""
    agents = list(Agent.objects.filter(owner_id=user_id).values_list("user_id", flat=True))
    people = [user_id, *agents]
    get_user_model().objects.filter(pk__in=people).update(is_active=False)
    close_account_sockets_on_commit(people)
    close_token_sockets_on_commit(
        AgentToken.objects.filter(agent__user_id__in=people).values_list("pk", flat=True)
    )
    hooks.bench(people)  # out of the league's queues (the league app)
    ReplacementSignup.objects.filter(user_id__in=people).delete()
    games = (
        Slot.objects.filter(user_id__in=people, alive=True, game__status=GameStatus.RUNNING)
        .values_list("game_id", flat=True)
        .distinct()
    )
    for game_id in sorted(set(games)):
        with game_tx(game_id, now) as tx:
            for slot in [s for s in tx.slots if s.user_id in people and s.alive]:
                _flag_seat(tx, slot)


def _flag_seat(tx: Any, slot: Slot, *, removed: bool = True) -> None:
    """Fill the seat from the replacement queue, or ask the host to (a league game has
    none: its seat is modkilled). ``removed``: its account was taken off the site (else it
    gives way to another account of its person)."""
    if replace_from_queue(tx, slot):
        return
    if tx.game.league_setup:  # nobody hosts it: the seat cannot wait for a replacement
        do_modkill(tx, slot, REMOVED if removed else ANOTHER_ACCOUNT)
        return
    emit(tx, "replacement_needed", {**slot_ref(slot), "removed": removed}, "host")


def _bring_back(user_id: int) -> None:
    agents = list(Agent.objects.filter(owner_id=user_id).values_list("user_id", flat=True))
    get_user_model().objects.filter(pk__in=[user_id, *agents]).update(is_active=True)
