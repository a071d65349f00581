"""The site's own posts in the game thread, written as the host does on a forum: a phase
begins (with its deadline), the day's final vote count and elimination, the night's deaths
or a quiet night, a revote, a modkill, a replacement, the host moving the deadline
(extend, pause, resume), the end of the game, a game cancelled in sign-ups.

Each is a public post by the host marked ``is_auto``, written inside the transaction of the
change it announces, and linked from the phase banner (``Phase.announcements``). They say
only what is public: a role is named only as the resolver revealed it (a cleaned role stays
unknown, a role the rules do not reveal is not named). The game's chat webhook, if the
host set one, gets each of them word for word (the webhooks app, through ``hooks``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.utils import dateformat
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from .. import hooks
from ..display import death_line, time_span
from ..markup import escape_markdown
from ..models import Phase, Post, Slot, Thread, VoteRule
from .common import Tx
from .thread import do_post


def announce(tx: Tx, body: str) -> Post:
    """Post ``body`` in the game thread as the host, marked automatic."""
    post = do_post(tx, tx.game.host, None, body, Thread.PUBLIC, is_host=True, is_auto=True)
    tx.announced.append(post.number)
    hooks.announced(tx, post)  # e.g. the game's chat webhook (the webhooks app) says it too
    return post


def link_from_banner(tx: Tx, phase: Phase | None, *, replace: bool) -> None:
    """Let the banner of ``phase`` link this transaction's announcements (``replace``: only
    them, for a phase that just opened or a game that just ended)."""
    if phase is None or not tx.announced:
        return
    numbers = list(tx.announced) if replace else [*phase.announcements, *tx.announced]
    phase.announcements = list(dict.fromkeys(numbers))
    Phase.objects.filter(pk=phase.pk).update(announcements=phase.announcements)


def name(slot: Slot) -> str:
    return escape_markdown(slot.display_name)


def role_sentence(slot: Slot) -> str:
    """What the thread learns of a dead player's role: exactly what was revealed, in the
    one wording every death uses (``display.death_line``)."""
    return death_line(slot.game.ruleset, slot.revealed_role, markdown=True)


def when(deadline: datetime | None) -> str:
    if deadline is None:
        return ""
    # Django's names of the weekday and month follow the active language (the game's):
    # "Sun 29 Nov, 10:43 UTC" in English, as ``strftime`` wrote it.
    return f"{dateformat.format(deadline, 'D j M, H:i')} UTC"


def phase_begins(tx: Tx, phase: Phase, *, table_day: bool = False) -> str:
    game = tx.game
    if table_day:  # its deadline is the first turn's: the turn panel shows the clock
        return _(
            "**%(phase)s begins.** The day is played turn by turn: the order, whose "
            "turn it is and the turn's clock are beside the thread."
        ) % {"phase": phase.label}
    lines = [
        _("**%(phase)s begins.** It ends %(deadline)s.")
        % {"phase": phase.label, "deadline": when(phase.deadline)}
    ]
    alive = len(tx.locked.alive)
    if phase.night_zero:
        lines.append(_("The mafia meet in their thread; nobody acts tonight."))
        if game.no_night_posting:
            lines.append(_("The game thread is closed to players until the morning."))
    elif phase.is_day:
        if game.vote_rule == VoteRule.PLURALITY:
            lines.append(
                _("With %(alive)s alive, the most votes at the deadline eliminate.")
                % {"alive": alive}
            )
        else:
            majority = alive // 2 + 1
            lines.append(
                _("With %(alive)s alive it takes %(majority)s to eliminate.")
                % {"alive": alive, "majority": majority}
            )
    else:
        lines.append(_("Send your night actions from your role PM."))
        if game.no_night_posting:
            lines.append(_("The game thread is closed to players until the morning."))
    return "\n\n".join(lines)


def count_lines(count: dict[str, Any]) -> list[str]:
    """The final vote count as a forum host posts it."""
    lines = [_("**Final vote count, %(label)s**") % {"label": count["label"]}, ""]
    for wagon in count["wagons"]:
        voters = ", ".join(escape_markdown(v["name"]) for v in wagon["voters"])
        lines.append(f"- {escape_markdown(wagon['name'])} ({wagon['count']}): {voters}")
    if not count["wagons"]:
        lines.append("- " + _("No votes."))
    not_voting = ", ".join(escape_markdown(p["name"]) for p in count["not_voting"])
    lines.append(
        "- "
        + _("Not voting (%(count)s): %(names)s")
        % {"count": len(count["not_voting"]), "names": not_voting or "—"}
    )
    lines.extend(["", f"{count['majority_text']}."])
    return lines


def day_ended(count: dict[str, Any], eliminated: Slot | None, label: str) -> str:
    lines = count_lines(count)
    lines.append("")
    if eliminated is None:
        lines.append(_("**%(label)s ends with no elimination.**") % {"label": label})
    else:
        said = _("**%(name)s has been eliminated.**") % {"name": name(eliminated)}
        lines.append(f"{said} {role_sentence(eliminated)}")
    return "\n".join(lines)


def table_day_ended(
    label: str, eliminated: Slot | None, rounds: Iterable[Iterable[tuple[Slot, Slot | None]]] = ()
) -> str:
    """A table day's end, with the ballots of each of its votes (voter → target, ``None``
    for skip): the panel shows them when a vote closes, but the day may end at that very
    moment (no last words), so the thread keeps them."""
    lines: list[str] = []
    rounds = [list(r) for r in rounds]
    skip = pgettext("vote", "skip")
    for number, ballots in enumerate(rounds, start=1):
        lines.append(_("The vote:") if number == 1 else _("The revote:"))
        lines.extend(
            f"- {name(voter)} → {name(target) if target is not None else skip}"
            for voter, target in ballots
        )
        lines.append("")
    if eliminated is None:
        lines.append(_("**%(label)s ends with no elimination.**") % {"label": label})
    else:
        said = _("**%(label)s ends: %(name)s has been eliminated.**") % {
            "label": label,
            "name": name(eliminated),
        }
        lines.append(f"{said} {role_sentence(eliminated)}")
    return "\n".join(lines)


def day_shot(aim: Slot, dead: Iterable[Slot]) -> str:
    """A day vigilante's shot: who was shot and, if they died, their role (the day's flip)."""
    dead = list(dead)
    if not dead:
        return _("**%(name)s has been shot, but survives.**") % {"name": name(aim)}
    dies = _("**%(name)s has been shot and dies.**")
    return "\n\n".join(f"{dies % {'name': name(slot)}} {role_sentence(slot)}" for slot in dead)


def night_ended(label: str, deaths: Iterable[Slot]) -> str:
    deaths = list(deaths)
    if not deaths:
        return _("**%(label)s is over.** Nobody died in the night.") % {"label": label}
    lines = [_("**%(label)s is over.**") % {"label": label}, ""]
    for slot in deaths:
        found = _("%(name)s was found dead.") % {"name": name(slot)}
        lines.append(f"{found} {role_sentence(slot)}")
        lines.append("")
    return "\n".join(lines).strip()


def revote(label: str, tied: Iterable[Slot], deadline: datetime | None) -> str:
    names = ", ".join(name(s) for s in tied)
    return _(
        "**%(label)s is tied: a revote.** Vote again between %(names)s or no elimination, "
        "until %(deadline)s."
    ) % {"label": label, "names": names, "deadline": when(deadline)}


def deadline_extended(phase: Phase, by: timedelta) -> str:
    """The host pushed the deadline back: by how much and to when (paused: how long the
    clock will have once the game resumes)."""
    # A table day's deadline is its current turn's (``Phase.day_state``): say so, or a
    # player would read the whole day as moved.
    if phase.paused_remaining is not None:  # phase.is_paused, said so mypy narrows it
        if phase.is_table_day:
            text = _(
                "**The turn's deadline was extended by %(by)s.** The game is paused, with "
                "%(left)s left once it resumes."
            )
        else:
            text = _(
                "**The deadline was extended by %(by)s.** The game is paused, with "
                "%(left)s left once it resumes."
            )
        return text % {"by": time_span(by), "left": time_span(phase.paused_remaining)}
    if phase.is_table_day:
        text = _("**The turn's deadline was extended by %(by)s, to %(deadline)s.**")
    else:
        text = _("**The deadline was extended by %(by)s, to %(deadline)s.**")
    return text % {"by": time_span(by), "deadline": when(phase.deadline)}


def paused(phase: Phase) -> str:
    """The host stopped the clock: the thread learns how much time the phase keeps."""
    left = time_span(phase.paused_remaining or timedelta(0))
    if phase.is_table_day:
        text = _(
            "**The host paused the game, with %(left)s left of the turn.** The clock stands "
            "still until the game resumes."
        )
    else:
        text = _(
            "**The host paused the game, with %(left)s left.** The clock stands still "
            "until the game resumes."
        )
    return text % {"left": left}


def resumed(phase: Phase) -> str:
    if phase.is_table_day:
        text = _("**The game resumed.** The turn's deadline is now %(deadline)s.")
    else:
        text = _("**The game resumed.** The deadline is now %(deadline)s.")
    return text % {"deadline": when(phase.deadline)}


def table_tie(label: str, tied: list[Slot], votes: int, skip_tied: bool) -> str:
    """A table day's vote tied (classic, city): who tied, their defense, then the revote."""
    names = [name(s) for s in tied]
    skip = pgettext("vote", "skip")
    top = _and([*names, skip] if skip_tied else names)
    tied_text = _("**%(label)s is tied: a revote.**") % {"label": label}
    each = ngettext(
        "%(top)s have %(votes)s vote each.", "%(top)s have %(votes)s votes each.", votes
    ) % {"top": top, "votes": votes}
    defense = ngettext(
        "First %(names)s speaks in their defense; then everyone votes again between %(choices)s.",
        "First %(names)s speak in their defense; then everyone votes again between %(choices)s.",
        len(names),
    ) % {"names": _and(names), "choices": _and([*names, skip], or_=True)}
    return f"{tied_text} {each} {defense}"


def _and(items: list[str], *, or_: bool = False) -> str:
    """ "a, b and c" (``or_``: "a, b or c"); the names are data, the word is translated."""
    if len(items) == 1:
        return items[0]
    parts = {"items": ", ".join(items[:-1]), "last": items[-1]}
    return (_("%(items)s or %(last)s") if or_ else _("%(items)s and %(last)s")) % parts


def cancelled(signed_up: Iterable[Slot], reason: str) -> str:
    """The host called the game off in sign-ups; those who had signed up are named."""
    lines = [_("**The host has cancelled this game.** It will not start.")]
    if reason:
        lines.append(escape_markdown(reason))
    names = ", ".join(f"@{name(s)}" for s in signed_up)
    if names:
        lines.append(_("Thank you for signing up, %(names)s.") % {"names": names})
    return "\n\n".join(lines)


def modkilled(slot: Slot, reason: str) -> str:
    # The reason is the host's own words (it may hold parentheses of its own): a sentence
    # of its own, not a parenthesis.
    reason = reason.strip()
    if reason and reason[-1] not in ".!?":
        reason += "."
    said = _("**%(name)s has been modkilled.**") % {"name": name(slot)}
    if reason:
        # The site's own reasons (inactivity, removed by the moderators) are in the
        # catalogue; the host's own words are not, and stay as written.
        reason = _(reason)  # i18n: marked at its source
        said += " " + _("Reason: %(reason)s") % {"reason": escape_markdown(reason)}
    return f"{said} {role_sentence(slot)}"


def game_over(winner: str, reason: str, co_winners: Iterable[Slot]) -> str:
    # The winning side as the English post has always named it ("Town", "Mafia"); the rule
    # sets' alignment titles are in the catalogue, so the game's language says its own.
    side = _(winner.capitalize())  # i18n: marked at its source
    lines = [_("**The game is over: %(winner)s wins.**") % {"winner": escape_markdown(side)}]
    if reason:
        lines.append(escape_markdown(reason))
    co = ", ".join(name(s) for s in co_winners)
    if co:
        lines.append(_("Also winning: %(names)s.") % {"names": co})
    lines.append(_("Every role, night action and explanation is now in the archive."))
    return "\n\n".join(lines)
