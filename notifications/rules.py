"""Which event notifies whom, in what words: one small function per case.

A rule gets a committed event and the ``Context`` and proposes ``Note``s; ``fanout`` drops
any note whose person is outside the event's audience. Texts say only what the event's
payload says, and the payload is what its audience may see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from games.display import alignment_title, day_label, prod_line
from games.models import TEAM_THREADS, GameEvent, ReplacementSignup, Thread, VoteRule
from games.naming import fold
from games.reads.access import THREAD_LABELS, cohosts, host_ids, private_threads_of
from games.reads.needs import NIGHT_ACTION, needs_of
from games.reads.reliability import cooldown_sentence

from .deadlines import stated
from .mentions import spoken_to
from .notes import Context, Note, Rule, phase_name

RULES: dict[str, list[Rule]] = {}

# Every text is a function (``notes.Text``): ``fanout.write`` calls it in its recipient's
# language, so the same event tells each person in their own.


def on(*kinds: str, audience_checked: bool = True) -> Callable[[Rule], Rule]:
    """Register a rule for these event kinds. ``audience_checked=False`` only for a rule
    whose text reveals nothing of the event beyond what its recipients know (say why)."""

    def register(rule: Rule) -> Rule:
        rule.audience_checked = audience_checked  # type: ignore[attr-defined]
        for kind in kinds:
            RULES.setdefault(kind, []).append(rule)
        return rule

    return register


def _deadline(deadline: str | None, kind: str) -> str:
    # ``stated``: the words a moved deadline is corrected by (``deadlines.correct``).
    return stated(kind, deadline) if deadline else ""


# -- a game you play ---------------------------------------------------------------------
@on("game_started")
def game_started(event: GameEvent, ctx: Context) -> Iterator[Note]:
    title = ctx.game.title

    def text() -> str:
        return _("%(title)s has started: read your role PM.") % {"title": title}

    for slot in ctx.players():
        yield Note(slot.user_id, "game_started", text, ctx.role_pm())


@on("phase_started")
def phase_started(event: GameEvent, ctx: Context) -> Iterator[Note]:
    p = event.payload
    title = ctx.game.title

    def text() -> str:
        said = _("%(phase)s has started in %(title)s.") % {
            "phase": phase_name(p["label"]),
            "title": title,
        }
        return said + _deadline(p["deadline"], "phase_started")

    for slot in ctx.players(alive_only=True):
        yield Note(slot.user_id, "phase_started", text, ctx.thread())


@on("game_finished")
def game_finished(event: GameEvent, ctx: Context) -> Iterator[Note]:
    winner = event.payload["winner"]
    game = ctx.game

    def text() -> str:
        side = alignment_title(game.ruleset, winner) if winner else ""
        if side:
            return _("%(title)s is over: the %(side)s side wins.") % {
                "title": game.title,
                "side": side,
            }
        return _("%(title)s is over: a draw.") % {"title": game.title}

    people = {s.user_id for s in ctx.players()} | host_ids(ctx.game)
    for user_id in sorted(people):
        yield Note(user_id, "game_finished", text, ctx.thread())


@on("your_turn")
def your_turn(event: GameEvent, ctx: Context) -> Iterator[Note]:
    slot = ctx.by_id.get(int(event.audience.removeprefix("slot:")))
    if slot is None or not slot.user_id:
        return
    p = event.payload
    title = ctx.game.title
    kind = "vote_opened" if p["step"] == "vote" else "your_turn"

    def text() -> str:
        if kind == "vote_opened":
            said = _("The vote has opened at the table in %(title)s: cast your vote.")
        else:
            said = _("It is your turn at the table in %(title)s.")
        return said % {"title": title} + _deadline(p["deadline"], kind)

    yield Note(slot.user_id, kind, text, ctx.thread())


@on("prod")
def prodded(event: GameEvent, ctx: Context) -> Iterator[Note]:
    slot = ctx.slot(event.payload)
    if slot is None or event.audience != f"slot:{slot.pk}":
        return  # the host's copy of the prod tells the host's dashboard, not the player
    p = event.payload
    title = ctx.game.title

    def text() -> str:
        return prod_line(p["posts"], p["required"], title)  # the site's, not the host's

    yield Note(slot.user_id, "prodded", text, ctx.thread())


@on("replaced")
def replaced(event: GameEvent, ctx: Context) -> Iterator[Note]:
    p = event.payload
    title = ctx.game.title

    def gone() -> str:
        return _("%(name)s replaced you in %(title)s.") % {"name": p["new_name"], "title": title}

    def came() -> str:
        return _("You replaced %(name)s in %(title)s: read your role PM.") % {
            "name": p["old_name"],
            "title": title,
        }

    yield Note(p["old_user_id"], "replaced", gone, ctx.thread())
    slot = ctx.by_id.get(p["slot_id"])
    if slot is not None and slot.user_id:
        yield Note(slot.user_id, "replaced", came, ctx.role_pm())


@on("modkill")
def modkilled(event: GameEvent, ctx: Context) -> Iterator[Note]:
    slot = ctx.slot(event.payload)
    if slot is not None and slot.user_id:
        reason = event.payload["reason"]
        title = ctx.game.title
        inactivity = bool(event.payload.get("inactivity"))  # the site's rule, and its cooldown
        at = event.created_at

        def text() -> str:
            if inactivity:
                said = _("You were modkilled for inactivity in %(title)s.") % {"title": title}
                return said + cooldown_sentence(at)
            if reason:
                return _("The host modkilled you in %(title)s (%(reason)s).") % {
                    "title": title,
                    "reason": reason,
                }
            return _("The host modkilled you in %(title)s.") % {"title": title}

        yield Note(slot.user_id, "modkilled", text, ctx.thread())


@on("replacement_needed", audience_checked=False)
def replacement_wanted(event: GameEvent, ctx: Context) -> Iterator[Note]:
    # Unchecked: the event is the host's, but this text names no one and no reason, only
    # that the game wants a player, which the queue exists to hear.
    title = ctx.game.title

    def text() -> str:
        return _("%(title)s needs a replacement player: you are in its queue.") % {"title": title}

    for user_id in ReplacementSignup.objects.filter(game=ctx.game).values_list(
        "user_id", flat=True
    ):
        yield Note(user_id, "replacement_wanted", text, ctx.thread())


_NO_L_N = ("at_table", "in_revote", "resolved")


@on("vote_count")
def near_elimination(event: GameEvent, ctx: Context) -> Iterator[Note]:
    """L-1 and L-0 from the public count, once per slot, day and level.

    The count's ``l_minus`` is what every page shows: the votes still needed by the public
    threshold (hidden vote modifiers stay hidden: the count then uses plain majority). L-0
    means the wagon on you has what eliminates you: under a hammer the day ends with it,
    under a lock you go at the deadline unless votes move. A plurality day shows no L-n
    (the most votes at the deadline eliminate), so it tells nothing; neither do a revote
    (between the tied), a table's day (its ballots are secret until its vote closes) nor
    the day's final count (its end is announced)."""
    p = event.payload
    phase = ctx.phase
    if p["vote_rule"] == VoteRule.PLURALITY or any(p.get(k) for k in _NO_L_N):
        return
    if phase is None or phase.number != p["phase"] or not phase.is_day:
        return
    for wagon in p["wagons"]:
        slot = ctx.slot(wagon["target"])
        if slot is None or not slot.alive or not slot.user_id or wagon["l_minus"] > 1:
            continue
        level = wagon["l_minus"]
        text = _wagon_text(level, ctx.game.title, wagon["count"], wagon["needed"])
        key = f"L{level}:{phase.pk}:{slot.pk}"
        yield Note(slot.user_id, "near_elimination", text, ctx.thread(), key=key)


def _wagon_text(level: int, title: str, count: int, needed: int) -> Callable[[], str]:
    def text() -> str:
        values = {"title": title, "count": count, "needed": needed}
        if level == 1:
            # English says "votes" whatever the number; other languages need the plural.
            return (
                ngettext(
                    "You are at L-1 in %(title)s: %(count)s of the %(needed)s votes that "
                    "eliminate are on you.",
                    "You are at L-1 in %(title)s: %(count)s of the %(needed)s votes that "
                    "eliminate are on you.",
                    needed,
                )
                % values
            )
        return (
            ngettext(
                "You are at L-0 in %(title)s: the wagon on you has reached %(needed)s votes.",
                "You are at L-0 in %(title)s: the wagon on you has reached %(needed)s votes.",
                needed,
            )
            % values
        )

    return text


def _where(thread: str) -> str:
    """ "the game thread", "the mafia chat", "the masons' thread"... in the active language,
    as the place in "mentioned you in … of <game>"."""
    places = {
        "public": pgettext("in … of a game", "the game thread"),
        "mafia": pgettext("in … of a game", "the mafia chat"),
        "dead": pgettext("in … of a game", "the dead thread"),
        "masons": pgettext("in … of a game", "the masons' thread"),
        "neighbors": pgettext("in … of a game", "the neighbors' thread"),
    }
    return places.get(thread) or str(THREAD_LABELS.get(thread, thread))


def _author_id(p: dict, ctx: Context) -> int | None:
    if p["is_host"]:  # the host's post, or a co-host's (under their own name)
        by_name = {c.name: c.user_id for c in cohosts(ctx.game)}
        return by_name.get(p["author"], ctx.game.host_id)
    slot = ctx.by_id.get(p["slot_id"]) if p["slot_id"] else None
    return slot.user_id if slot is not None else None


@on("post")
def mentioned(event: GameEvent, ctx: Context) -> Iterator[Note]:
    """A post that quotes someone or mentions them (``@name``) tells them, by the name they
    play (or host) under now; the audience check keeps it to people who can read the
    thread (a mention in the mafia chat of a town player tells nobody)."""
    p = event.payload
    title = ctx.game.title
    for user_id, how in _spoken_to(p, ctx):
        yield Note(
            user_id, "mentioned", _spoken_text(how, p, title), ctx.post(p["number"], p["thread"])
        )


def _spoken_text(how: str, p: dict, title: str) -> Callable[[], str]:
    def text() -> str:
        values = {"author": p["author"], "where": _where(p["thread"]), "title": title}
        if how == "quoted":
            return _("%(author)s quoted you in %(where)s of %(title)s.") % values
        return _("%(author)s mentioned you in %(where)s of %(title)s.") % values

    return text


def _spoken_to(p: dict, ctx: Context) -> list[tuple[int, str]]:
    """Whom a post quotes or mentions (user id, "quoted" / "mentioned"), its author left
    out, by the name each plays (or hosts) under now."""
    html = p["html"]
    if p["is_auto"] or ("@" not in html and "quote-author" not in html):
        return []
    people = {fold(s.display_name): s.user_id for s in ctx.players() if s.user_id}
    people.setdefault(fold(ctx.game.host.get_username()), ctx.game.host_id)
    for cohost in cohosts(ctx.game):
        people.setdefault(fold(cohost.name), cohost.user_id)
    author = _author_id(p, ctx)
    told = [(people[name], how) for name, how in sorted(spoken_to(html, people).items())]
    return [(user_id, how) for user_id, how in told if user_id != author]


@on("post")
def partner_posted(event: GameEvent, ctx: Context) -> Iterator[Note]:
    """A post in the mafia chat or a team's thread tells the thread's other living members
    (batched per person and thread). Never anyone else: not the town, not the dead, and not
    the host, who reads every thread but need not hear of every post in it. A partner the
    post quotes or mentions hears of it once, as "mentioned you" (issue 33: not twice)."""
    p = event.payload
    thread = p["thread"]
    if p["is_auto"] or thread not in (Thread.MAFIA, *TEAM_THREADS):
        return
    author = _author_id(p, ctx)
    mentioned_ids = {user_id for user_id, _how in _spoken_to(p, ctx)}
    title = ctx.game.title

    def text() -> str:
        return _("%(author)s posted in %(where)s of %(title)s.") % {
            "author": p["author"],
            "where": _where(thread),
            "title": title,
        }

    def text_many(count: int) -> str:
        return ngettext(
            "%(count)s new post in %(where)s of %(title)s.",
            "%(count)s new posts in %(where)s of %(title)s.",
            count,
        ) % {"count": count, "where": _where(thread), "title": title}

    link = ctx.post(p["number"], thread)
    for slot in ctx.players(alive_only=True):
        if slot.user_id in mentioned_ids or slot.user_id == author:
            continue
        if thread not in private_threads_of(ctx.game, slot):
            continue
        yield Note(
            slot.user_id,
            "partner_posted",
            text,
            link,
            key=f"thread:{ctx.game.pk}:{thread}",
            text_many=text_many,
        )


@on("whisper")
def whispered(event: GameEvent, ctx: Context) -> Iterator[Note]:
    """The recipient's own copy tells them who whispered, never what: the text stays on
    the whispers page (the host's and the sender's copies tell nobody)."""
    slot = ctx.slot(event.payload["recipient"])
    if slot is None or not slot.user_id or event.audience != f"slot:{slot.pk}":
        return
    sender, title = event.payload["sender"]["name"], ctx.game.title

    def text() -> str:
        return _("%(sender)s whispered to you in %(title)s.") % {"sender": sender, "title": title}

    link = reverse("games:whispers", args=[ctx.game.pk])
    yield Note(slot.user_id, "whispered", text, link)


# -- a game you host ---------------------------------------------------------------------
@on("signup_joined")
def signups_full(event: GameEvent, ctx: Context) -> Iterator[Note]:
    if event.payload["count"] >= ctx.game.player_cap:
        title = ctx.game.title

        def text() -> str:
            return _("Sign-ups for %(title)s are full: you can start the game.") % {"title": title}

        for user_id in sorted(host_ids(ctx.game)):  # the host and its co-hosts
            yield Note(user_id, "signups_full", text, ctx.host_page())


@on("absence")
def absence_asked(event: GameEvent, ctx: Context) -> Iterator[Note]:
    p = event.payload
    title = ctx.game.title

    def text() -> str:
        return _("%(name)s asked for V/LA in %(title)s: %(starts)s to %(ends)s.") % {
            "name": p["name"],
            "title": title,
            "starts": day_label(p["starts"]),
            "ends": day_label(p["ends"]),
        }

    for user_id in sorted(host_ids(ctx.game)):
        yield Note(user_id, "absence_asked", text, ctx.host_page())


@on("hosts_changed")
def made_host(event: GameEvent, ctx: Context) -> Iterator[Note]:
    """The person a host added as a co-host or backup host, or handed the game to, is told
    (a public event: the payload names them; ``user_ids[0]`` is theirs)."""
    p = event.payload
    if p["change"] not in ("added", "handed_over") or not p.get("user_ids"):
        return
    title = ctx.game.title

    def text() -> str:
        values = {"title": title, "host": p["host"]}
        if p["change"] == "handed_over":
            return _("You host %(title)s now: its host handed it over to you.") % values
        if p["kind"] == "backup":
            return (
                _(
                    "%(host)s made you a backup host of %(title)s: you see and do what the "
                    "host does."
                )
                % values
            )
        return (
            _("%(host)s made you a co-host of %(title)s: you see and do what the host does.")
            % values
        )

    yield Note(p["user_ids"][0], "made_host", text, ctx.host_page())


@on("night_action")
def night_actions_in(event: GameEvent, ctx: Context) -> Iterator[Note]:
    """The last action the night waits for tells the host, once a night (its host copy:
    the event reaches the actor, the host and maybe the mafia)."""
    phase = ctx.phase
    if event.audience != "host" or phase is None or phase.is_day or phase.resolved:
        return
    needs = needs_of(ctx.game, [s for s in ctx.slots if s.user_id], phase)
    if any(NIGHT_ACTION in codes for codes in needs.values()):
        return
    title = ctx.game.title

    def text() -> str:  # (the phase's label is in the active language)
        return _("All night actions are in for %(phase)s of %(title)s.") % {
            "phase": phase.label,
            "title": title,
        }

    for user_id in sorted(host_ids(ctx.game)):
        yield Note(user_id, "night_actions_in", text, ctx.host_page(), key=f"actions_in:{phase.pk}")
