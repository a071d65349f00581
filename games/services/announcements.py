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
    return deadline.strftime("%a %-d %b, %H:%M UTC")


def phase_begins(tx: Tx, phase: Phase, *, table_day: bool = False) -> str:
    game = tx.game
    if table_day:  # its deadline is the first turn's: the turn panel shows the clock
        return (
            f"**{phase.label} begins.** The day is played turn by turn: the order, whose "
            "turn it is and the turn's clock are beside the thread."
        )
    lines = [f"**{phase.label} begins.** It ends {when(phase.deadline)}."]
    alive = len(tx.locked.alive)
    if phase.night_zero:
        lines.append("The mafia meet in their thread; nobody acts tonight.")
        if game.no_night_posting:
            lines.append("The game thread is closed to players until the morning.")
    elif phase.is_day:
        if game.vote_rule == VoteRule.PLURALITY:
            lines.append(f"With {alive} alive, the most votes at the deadline eliminate.")
        else:
            majority = alive // 2 + 1
            lines.append(f"With {alive} alive it takes {majority} to eliminate.")
    else:
        lines.append("Send your night actions from your role PM.")
        if game.no_night_posting:
            lines.append("The game thread is closed to players until the morning.")
    return "\n\n".join(lines)


def count_lines(count: dict[str, Any]) -> list[str]:
    """The final vote count as a forum host posts it."""
    lines = [f"**Final vote count, {count['label']}**", ""]
    for wagon in count["wagons"]:
        voters = ", ".join(escape_markdown(v["name"]) for v in wagon["voters"])
        lines.append(f"- {escape_markdown(wagon['name'])} ({wagon['count']}): {voters}")
    if not count["wagons"]:
        lines.append("- No votes.")
    not_voting = ", ".join(escape_markdown(p["name"]) for p in count["not_voting"])
    lines.append(f"- Not voting ({len(count['not_voting'])}): {not_voting or '—'}")
    lines.extend(["", f"{count['majority_text']}."])
    return lines


def day_ended(count: dict[str, Any], eliminated: Slot | None, label: str) -> str:
    lines = count_lines(count)
    lines.append("")
    if eliminated is None:
        lines.append(f"**{label} ends with no elimination.**")
    else:
        lines.append(f"**{name(eliminated)} has been eliminated.** {role_sentence(eliminated)}")
    return "\n".join(lines)


def table_day_ended(
    label: str, eliminated: Slot | None, rounds: Iterable[Iterable[tuple[Slot, Slot | None]]] = ()
) -> str:
    """A table day's end, with the ballots of each of its votes (voter → target, ``None``
    for skip): the panel shows them when a vote closes, but the day may end at that very
    moment (no last words), so the thread keeps them."""
    lines: list[str] = []
    rounds = [list(r) for r in rounds]
    for number, ballots in enumerate(rounds, start=1):
        title = "The vote" if number == 1 else "The revote"
        lines.append(f"{title}:")
        lines.extend(
            f"- {name(voter)} → {name(target) if target is not None else 'skip'}"
            for voter, target in ballots
        )
        lines.append("")
    if eliminated is None:
        lines.append(f"**{label} ends with no elimination.**")
    else:
        lines.append(
            f"**{label} ends: {name(eliminated)} has been eliminated.** {role_sentence(eliminated)}"
        )
    return "\n".join(lines)


def day_shot(aim: Slot, dead: Iterable[Slot]) -> str:
    """A day vigilante's shot: who was shot and, if they died, their role (the day's flip)."""
    dead = list(dead)
    if not dead:
        return f"**{name(aim)} has been shot, but survives.**"
    return "\n\n".join(
        f"**{name(slot)} has been shot and dies.** {role_sentence(slot)}" for slot in dead
    )


def night_ended(label: str, deaths: Iterable[Slot]) -> str:
    deaths = list(deaths)
    if not deaths:
        return f"**{label} is over.** Nobody died in the night."
    lines = [f"**{label} is over.**", ""]
    for slot in deaths:
        lines.append(f"{name(slot)} was found dead. {role_sentence(slot)}")
        lines.append("")
    return "\n".join(lines).strip()


def revote(label: str, tied: Iterable[Slot], deadline: datetime | None) -> str:
    names = ", ".join(name(s) for s in tied)
    return (
        f"**{label} is tied: a revote.** Vote again between {names} or no elimination, "
        f"until {when(deadline)}."
    )


def _the_deadline(phase: Phase) -> str:
    # A table day's deadline is its current turn's (``Phase.day_state``): say so, or a
    # player would read the whole day as moved.
    return "the turn's deadline" if phase.is_table_day else "the deadline"


def deadline_extended(phase: Phase, by: timedelta) -> str:
    """The host pushed the deadline back: by how much and to when (paused: how long the
    clock will have once the game resumes)."""
    what = _the_deadline(phase).capitalize()
    if phase.paused_remaining is not None:  # phase.is_paused, said so mypy narrows it
        return (
            f"**{what} was extended by {time_span(by)}.** The game is paused, with "
            f"{time_span(phase.paused_remaining)} left once it resumes."
        )
    return f"**{what} was extended by {time_span(by)}, to {when(phase.deadline)}.**"


def paused(phase: Phase) -> str:
    """The host stopped the clock: the thread learns how much time the phase keeps."""
    left = time_span(phase.paused_remaining or timedelta(0))
    of_what = " of the turn" if phase.is_table_day else ""
    return (
        f"**The host paused the game, with {left} left{of_what}.** The clock stands still "
        "until the game resumes."
    )


def resumed(phase: Phase) -> str:
    what = _the_deadline(phase).capitalize()
    return f"**The game resumed.** {what} is now {when(phase.deadline)}."


def table_tie(label: str, tied: list[Slot], votes: int, skip_tied: bool) -> str:
    """A table day's vote tied (classic, city): who tied, their defense, then the revote."""
    names = [name(s) for s in tied]
    top = _and([*names, "skip"] if skip_tied else names)
    speak = "speaks" if len(names) == 1 else "speak"
    return (
        f"**{label} is tied: a revote.** {top} have {votes} vote{'s' if votes != 1 else ''} "
        f"each. First {_and(names)} {speak} in their defense; then everyone votes again "
        f"between {_and([*names, 'skip'], 'or')}."
    )


def _and(items: list[str], word: str = "and") -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {word} {items[-1]}"


def cancelled(signed_up: Iterable[Slot], reason: str) -> str:
    """The host called the game off in sign-ups; those who had signed up are named."""
    lines = ["**The host has cancelled this game.** It will not start."]
    if reason:
        lines.append(escape_markdown(reason))
    names = ", ".join(f"@{name(s)}" for s in signed_up)
    if names:
        lines.append(f"Thank you for signing up, {names}.")
    return "\n\n".join(lines)


def modkilled(slot: Slot, reason: str) -> str:
    # The reason is the host's own words (it may hold parentheses of its own): a sentence
    # of its own, not a parenthesis.
    reason = reason.strip()
    if reason and reason[-1] not in ".!?":
        reason += "."
    why = f" Reason: {escape_markdown(reason)}" if reason else ""
    return f"**{name(slot)} has been modkilled.**{why} {role_sentence(slot)}"


def game_over(winner: str, reason: str, co_winners: Iterable[Slot]) -> str:
    lines = [f"**The game is over: {escape_markdown(winner.capitalize())} wins.**"]
    if reason:
        lines.append(escape_markdown(reason))
    co = ", ".join(name(s) for s in co_winners)
    if co:
        lines.append(f"Also winning: {co}.")
    lines.append("Every role, night action and explanation is now in the archive.")
    return "\n\n".join(lines)
