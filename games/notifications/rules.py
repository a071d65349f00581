"""Which event notifies whom, in what words: one small function per case.

A rule gets a committed event and the ``Context`` and proposes ``Note``s; ``fanout`` drops
any note whose person is outside the event's audience. Texts say only what the event's
payload says, and the payload is what its audience may see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..display import alignment_title, day_label, moment_label
from ..models import GameEvent, ReplacementSignup
from .notes import Context, Note, Rule

RULES: dict[str, list[Rule]] = {}


def on(*kinds: str, audience_checked: bool = True) -> Callable[[Rule], Rule]:
    """Register a rule for these event kinds. ``audience_checked=False`` only for a rule
    whose text reveals nothing of the event beyond what its recipients know (say why)."""

    def register(rule: Rule) -> Rule:
        rule.audience_checked = audience_checked  # type: ignore[attr-defined]
        for kind in kinds:
            RULES.setdefault(kind, []).append(rule)
        return rule

    return register


def _deadline(deadline: str | None) -> str:
    return f" Deadline: {moment_label(deadline)}." if deadline else ""


# -- a game you play ---------------------------------------------------------------------
@on("game_started")
def game_started(event: GameEvent, ctx: Context) -> Iterator[Note]:
    text = f"{ctx.game.title} has started: read your role PM."
    for slot in ctx.players():
        yield Note(slot.user_id, "game_started", text, ctx.role_pm())


@on("phase_started")
def phase_started(event: GameEvent, ctx: Context) -> Iterator[Note]:
    p = event.payload
    text = f"{p['label']} has started in {ctx.game.title}.{_deadline(p['deadline'])}"
    for slot in ctx.players(alive_only=True):
        yield Note(slot.user_id, "phase_started", text, ctx.thread())


@on("game_finished")
def game_finished(event: GameEvent, ctx: Context) -> Iterator[Note]:
    winner = event.payload["winner"]
    side = alignment_title(ctx.game.ruleset, winner) if winner else ""
    text = f"{ctx.game.title} is over: " + (f"the {side} side wins." if side else "a draw.")
    people = {s.user_id for s in ctx.players()} | {ctx.game.host_id}
    for user_id in sorted(people):
        yield Note(user_id, "game_finished", text, ctx.thread())


@on("your_turn")
def your_turn(event: GameEvent, ctx: Context) -> Iterator[Note]:
    slot = ctx.by_id.get(int(event.audience.removeprefix("slot:")))
    if slot is None or not slot.user_id:
        return
    p = event.payload
    if p["step"] == "vote":
        text = f"The vote has opened at the table in {ctx.game.title}: cast your vote."
        kind = "vote_opened"
    else:
        text = f"It is your turn at the table in {ctx.game.title}."
        kind = "your_turn"
    yield Note(slot.user_id, kind, text + _deadline(p["deadline"]), ctx.thread())


@on("prod")
def prodded(event: GameEvent, ctx: Context) -> Iterator[Note]:
    slot = ctx.slot(event.payload)
    if slot is None or event.audience != f"slot:{slot.pk}":
        return  # the host's copy of the prod tells the host's dashboard, not the player
    p = event.payload
    text = (
        f"You were prodded in {ctx.game.title}: {p['posts']} of the {p['required']} posts "
        "a day the host asks for."
    )
    yield Note(slot.user_id, "prodded", text, ctx.thread())


@on("replaced")
def replaced(event: GameEvent, ctx: Context) -> Iterator[Note]:
    p = event.payload
    title = ctx.game.title
    yield Note(p["old_user_id"], "replaced", f"{p['new_name']} replaced you in {title}.",
               ctx.thread())  # fmt: skip
    slot = ctx.by_id.get(p["slot_id"])
    if slot is not None and slot.user_id:
        text = f"You replaced {p['old_name']} in {title}: read your role PM."
        yield Note(slot.user_id, "replaced", text, ctx.role_pm())


@on("modkill")
def modkilled(event: GameEvent, ctx: Context) -> Iterator[Note]:
    slot = ctx.slot(event.payload)
    if slot is not None and slot.user_id:
        reason = event.payload["reason"]
        text = f"The host modkilled you in {ctx.game.title}" + (f" ({reason})." if reason else ".")
        yield Note(slot.user_id, "modkilled", text, ctx.thread())


@on("replacement_needed", audience_checked=False)
def replacement_wanted(event: GameEvent, ctx: Context) -> Iterator[Note]:
    # Unchecked: the event is the host's, but this text names no one and no reason, only
    # that the game wants a player, which the queue exists to hear.
    text = f"{ctx.game.title} needs a replacement player: you are in its queue."
    for user_id in ReplacementSignup.objects.filter(game=ctx.game).values_list(
        "user_id", flat=True
    ):
        yield Note(user_id, "replacement_wanted", text, ctx.thread())


# -- a game you host ---------------------------------------------------------------------
@on("signup_joined")
def signups_full(event: GameEvent, ctx: Context) -> Iterator[Note]:
    if event.payload["count"] >= ctx.game.player_cap:
        text = f"Sign-ups for {ctx.game.title} are full: you can start the game."
        yield Note(ctx.game.host_id, "signups_full", text, ctx.host_page())


@on("absence")
def absence_asked(event: GameEvent, ctx: Context) -> Iterator[Note]:
    p = event.payload
    days = f"{day_label(p['starts'])} to {day_label(p['ends'])}"
    text = f"{p['name']} asked for V/LA in {ctx.game.title}: {days}."
    yield Note(ctx.game.host_id, "absence_asked", text, ctx.host_page())
