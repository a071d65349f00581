"""The leak scanner: a whole game per rule set, and at every phase everything each kind of
person gets is searched for what they may not know.

Games: forum (cop and doctor nine, a free-thread day), and city, classic and power played as
tables (turns). Every phase the mafia, the masons and the dead post a fresh secret in their
thread and every night every role sends its action; the day's vote goes to the mafia.

People: anonymous, a logged-in spectator, a town investigator (cop / sheriff / detective),
a mafia member, a dead player (a plain townie modkilled on day 1) and the host. At each
capture each person fetches every page and API read of the game (thread, private threads,
role PM, host page, archive; the game, posts of every thread, vote count, turn, role PM,
host view, archive; their own notifications: the inbox page, its API and the bell's socket
frame, ``live.inbox.inbox_frame``), the e-mail digest their pending notifications make
(built as the sweep builds it) and the frames a socket of theirs gets:
``live.audiences.viewer_audiences`` and ``live.replay.replay`` from the positions of the
previous capture (exactly what the game socket sends a reconnecting page), plus the ping
answer (``live.numbering.heads``).

What each person may know is worked out from the rules, not from the site's access code:
their own slot; their team (mafia know the mafia, masons the masons); roles revealed by
deaths; the private threads their state opens (mafia chat: living mafia; masons: living
masons; dead thread: the dead); their own night actions and results (and the mafia's kill
orders for living mafia). The host knows everything. Forbidden, then, and searched for in
every body:

- the role (slug and title) of every slot the person does not know, unless a slot they do
  know (or a public death) has the same role, and unless the name is also an alignment or
  a thread's name (city's and classic's ``mafia``, classic's ``town``: those words are on
  every page; their holders are covered by the structural checks below);
- other players' private results, the resolver's night explanations, sanity values, and
  the ability names of night actions the person may not see;
- every secret posted in a thread the person may not read;
- traces: the game-wide event counter (``event_seq``, a ``seq`` key), site-wide ids of
  posts, events, actions and results (``id``/``pk``/``post_id``... keys other than a
  game's id, ``data-*-id`` / ``post-<digits>`` in HTML), frame numbers that skip (a gap in
  an audience's numbering counts hidden events) or audiences the rules do not give.
  The socket's frames are also searched as the client library's stream hands them to an
  agent (``mafia_client.parse_frame``: typed events); ``tests/client`` searches a live one.
  So is every part a socket pushes as the person's own copy: the players panel and table,
  and each live page of the game and the league page as the socket renders them for them.

Scoping, to keep false positives out: the rules texts (every role, ability, modifier and
flag description, win conditions, the setups' slugs, names and descriptions) are cut out of
each body before the search, since a description may name other roles ("reads innocent to
the cop"); the rule-set and setup listings and the create-game form are not fetched (they
are the rules, not the game). JSON bodies are searched in their string values and keys, HTML
after unescaping. Structural checks on every JSON object (API and frames): a ``role``,
``alignment``, ``modifiers`` or ``sanity`` beside a ``slot_id`` must be empty unless the
person knows that slot (or, for role and alignment, the role was revealed by a death), and
``role_list`` is the host's alone. After the end, everything may show, and the archive must
show every role to everyone.
"""

from __future__ import annotations

import contextlib
import dataclasses
import html
import json
import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.utils import timezone
from mafia_client import parse_frame

from games import naming, services
from games.errors import GameRuleError
from games.fragments import OWN_PARTS, own_parts_html
from games.live import audiences as live_audiences
from games.live import inbox as live_inbox
from games.live import kinds, numbering
from games.live import replay as live_replay
from games.live.page_render import league_parts, page_path, render_page
from games.models import Game, NightAction, PrivateResult, Slot, WebhookDelivery
from games.notifications import mail
from games.reads.table import turn_view
from games.setups import SETUPS
from resolver.rulesets import get_ruleset
from tests.factories import UserFactory
from tests.live_model import socket_scope

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

PEOPLE = ("anonymous", "spectator", "town", "mafia", "dead", "host")
INVESTIGATORS = ("cop", "sheriff", "detective")
PLAIN_TOWN = ("vanilla_townie", "villager", "citizen", "town")
THREADS = ("public", "mafia", "masons", "dead")
INBOX_BODIES = ("/api/v1/notifications/", "socket: inbox")
SITE_ID_KEYS = {"pk", "post_id", "event_id", "action_id", "result_id", "seq", "event_seq"}
# The host's chat webhook: its URL is the host's secret; what is posted to it is public.
WEBHOOK_URL = "https://chat.example/api/webhooks/4242/wh-secret-token-7c1e"
HTML_ID_TRACES = re.compile(
    r"data-(?:post|event|action|result)-?id|data-(?:last-)?seq=|event_seq|id=\"post-\d"
)


# -- what a person may know ----------------------------------------------------------------
@dataclass
class Person:
    name: str
    user: Any
    slot_id: int | None = None
    positions: dict[str, int] = field(default_factory=dict)  # the socket's, per audience
    started: bool = False


@dataclass
class Knowledge:
    """What one person may know now, and so what must not reach them."""

    slot: Slot | None
    is_host: bool
    known: set[int]  # slots whose role and alignment they know
    threads: set[str]  # threads they may read
    audiences: set[str]  # socket audiences the rules give them


def knowledge(game: Game, person: Person) -> Knowledge:
    slots = list(game.slots.all())
    if person.name == "host" or game.is_finished:
        return Knowledge(None, True, {s.pk for s in slots}, set(THREADS), set())
    me = next((s for s in slots if s.pk == person.slot_id), None)
    known: set[int] = set()
    threads = {"public"}
    audiences = {"public"}
    if me is not None:
        known.add(me.pk)
        audiences.add(f"slot:{me.pk}")
        if me.is_mafia:
            known |= {s.pk for s in slots if s.is_mafia}
        if me.is_mason:
            known |= {s.pk for s in slots if s.is_mason}
        if me.alive and me.is_mafia:
            threads.add("mafia")
        if me.alive and me.is_mason:
            threads.add("masons")
        if not me.alive:
            threads.add("dead")
    audiences |= threads - {"public"}
    return Knowledge(me, False, known, threads, audiences)


def revealed(slot: Slot) -> bool:
    return not slot.alive and bool(slot.revealed_role) and slot.revealed_role == slot.role


@dataclass
class Secrets:
    """Everything hidden in the game so far: thread secrets, by thread."""

    posts: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in THREADS})


def forbidden(game: Game, who: Knowledge, secrets: Secrets) -> dict[str, str]:
    """token -> why it may not reach this person."""
    if who.is_host:
        return {}
    rules = get_ruleset(game.ruleset)
    out: dict[str, str] = {"wh-secret-token-7c1e": "the host's webhook URL"}
    slots = list(game.slots.select_related("user"))
    allowed_roles = {s.role for s in slots if s.pk in who.known or revealed(s)}
    words_everywhere = {a.lower() for a in rules.alignment_titles} | set(THREADS)
    words_everywhere |= {t.lower() for t in rules.alignment_titles.values()}
    for slot in slots:
        if slot.pk in who.known or revealed(slot) or slot.role in allowed_roles:
            continue
        spec = rules.roles[slot.role]
        for token in (slot.role, spec.title):
            if token.lower() not in words_everywhere:
                out[token] = f"{slot.display_name}'s role"
        if slot.sanity and slot.sanity != "sane":
            out[slot.sanity] = f"{slot.display_name}'s sanity"
    me = who.slot
    for thread, posted in secrets.posts.items():
        if thread not in who.threads:
            out.update(dict.fromkeys(posted, f"a post in the {thread} thread"))
    for result in PrivateResult.objects.filter(phase__game=game).select_related("slot"):
        if me is None or result.slot_id != me.pk:
            out[result.text] = f"{result.slot.display_name}'s private result"
    kill = rules.factional_kill.slug if rules.factional_kill else None
    for action in NightAction.objects.filter(phase__game=game):
        mine = me is not None and action.actor_id == me.pk
        team = action.ability == kill and me is not None and me.alive and me.is_mafia
        if not (mine or team or action.ability == kill):
            out[action.ability] = "another player's night action"
    names = naming.seat_names(slots)
    for phase in game.phases.filter(resolved=True, kind="night"):
        for line in (phase.report or {}).get("explanation", []):
            out[naming.render(line, names)] = f"the resolver's explanation of {phase.label}"
    return out


# -- fetching everything --------------------------------------------------------------------
def page_urls(g: int) -> list[str]:
    pages = [f"/games/{g}/", f"/games/{g}/?page=last"]
    pages += [f"/games/{g}/t/{t}/" for t in THREADS[1:]]
    pages += [f"/games/{g}/role/", f"/games/{g}/host/", f"/games/{g}/archive/", "/"]
    api = [f"/api/v1/games/{g}/", f"/api/v1/games/{g}/vote-count/", f"/api/v1/games/{g}/turn/"]
    api += [f"/api/v1/games/{g}/posts/?thread={t}&page=last" for t in THREADS]
    api += [f"/api/v1/games/{g}/role/", f"/api/v1/games/{g}/host/"]
    api += [f"/api/v1/games/{g}/archive/", "/api/v1/games/"]
    # Each person's own notifications (the inbox page, its API, the bell's socket frame).
    pages += ["/notifications/"]
    api += ["/api/v1/notifications/?page=1", "/api/v1/notifications/?page=2"]
    return pages + api


def rating_urls(game: Game) -> list[str]:
    """The leaderboard of the game's rule set and every player's page (ratings, rated
    games with their roles: only finished games may show there)."""
    urls = [f"/leaderboard/{game.ruleset}/", f"/api/v1/leaderboard/{game.ruleset}/"]
    for name in game.slots.values_list("user__username", flat=True):
        urls += [f"/players/{name}/", f"/api/v1/players/{name}/"]
    return urls


def capture(game: Game, person: Person) -> dict[str, Any]:
    """where -> body (str for HTML, parsed JSON for the API and frames)."""
    client = Client()
    if person.user is not None:
        client.force_login(person.user)
    bodies: dict[str, Any] = {}
    for url in page_urls(game.pk) + rating_urls(game):
        response = client.get(url, follow=url.endswith("/role/") or url == "/notifications/")
        assert response.status_code in (200, 302, 401, 403, 404), (url, response.status_code)
        text = response.content.decode()
        bodies[url] = json.loads(text) if url.startswith("/api/") else text
    if person.user is None:  # the chat webhook speaks to the public: anonymous's knowledge
        deliveries = WebhookDelivery.objects.filter(game=game).order_by("id")
        bodies["webhook: deliveries"] = [d.body for d in deliveries]
    if person.user is not None:
        bodies.update(digest_bodies(person.user))
        bodies["socket: inbox"] = live_inbox.inbox_frame(person.user.pk, fresh=True)
        # The viewer's own players panel and table, as their socket attaches them to items
        # (``games.live.own``): the same reads as the page, searched as a frame of its own.
        bodies["socket: own parts"] = own_parts_html(game.pk, person.user, OWN_PARTS)
    # Every other part a socket pushes: each live page of the game and the league page,
    # rendered by the socket for this person (``games.live.page_render``).
    scope = socket_scope(client, person.user)
    signed_in = person.user is not None
    for url in page_urls(game.pk):
        if page_path(game.pk, url) is not None:
            rendered = render_page(scope, url, signed_in=signed_in)
            bodies[f"socket: parts of {url}"] = [rendered.status, rendered.parts]
    league = render_page(scope, "/league/", signed_in=signed_in, cut=league_parts)
    bodies["socket: league parts"] = [league.status, league.parts]
    audiences, _seq = live_audiences.viewer_audiences(game.pk, person.user)
    since = 0 if not person.started else None
    result = live_replay.replay(game.pk, audiences, since, dict(person.positions) or None)
    assert not result.reload, person.name
    frames = [json.loads(text) for _seq, text in result.items]
    bodies["socket: audiences"] = sorted(audiences)
    bodies["socket: replay"] = frames
    # The same frames as the client library's stream hands them to an agent (typed events).
    bodies["client: events"] = [
        dataclasses.asdict(event) for _seq, text in result.items for event in parse_frame(text)
    ]
    bodies["socket: positions"] = result.positions
    bodies["socket: ping"] = numbering.heads(game.pk, audiences)
    check_numbering(person, frames, result.positions)
    person.positions = dict(result.positions)
    person.started = True
    return bodies


UNSUBSCRIBE_TOKENS = re.compile(r"/notifications/unsubscribe/[^/\s\"<>]+/")


def digest_bodies(user: Any) -> dict[str, str]:
    """The e-mail digest of the person's pending notifications, as the sweep builds it once
    their window is over; the unsubscribe tokens are cut out (signatures, not words)."""
    EmailAddress.objects.get_or_create(
        user=user, email=user.email, defaults={"verified": True, "primary": True}
    )
    digest = mail.build_digest(user.pk, now=timezone.now() + timedelta(days=1))
    if digest is None:
        return {}
    return {
        f"e-mail: digest {part}": UNSUBSCRIBE_TOKENS.sub(" ", getattr(digest, part))
        for part in ("subject", "text", "html")
    }


def check_numbering(person: Person, frames: list[dict], positions: dict[str, int]) -> None:
    """Each audience's items come numbered 1, 2, 3... with no gap: a gap (or the game-wide
    seq) would count the events of other audiences."""
    last = dict(person.positions)
    for item in frames:
        audience = item["aud"]
        key = f"~{item['kind']}" if item["kind"] in kinds.STATE_KINDS else audience
        if key.startswith("~"):
            assert item["n"] > last.get(key, 0), (person.name, item["kind"])
        elif audience in last:
            assert item["n"] == last[audience] + 1, (person.name, audience, item["n"], last)
        last[key] = item["n"]
    for audience, number in positions.items():
        if audience in last and not audience.startswith("~"):
            assert number == last[audience], (person.name, audience, number, last[audience])


# -- searching ------------------------------------------------------------------------------
def rules_texts(game: Game) -> list[str]:
    rules = get_ruleset(game.ruleset)
    texts = [r.description for r in rules.roles.values()]
    texts += [a.description for r in rules.roles.values() for a in r.abilities]
    texts += list(rules.modifiers.values()) + list(rules.win_conditions.values())
    texts += [f.help for f in rules.flags.values()] + [s.description for s in SETUPS.values()]
    texts += [s.name for s in SETUPS.values()] + list(SETUPS)  # the league lists setups
    return sorted({t for t in texts if t}, key=len, reverse=True)


def strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [str(k), *strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [str(value)] if value is not None else []


def searchable(body: Any, cut: list[str]) -> str:
    text = html.unescape(body if isinstance(body, str) else "\n".join(strings(body)))
    for rule_text in cut:
        text = text.replace(rule_text, " ")
    return text


def token_pattern(token: str) -> re.Pattern[str]:
    # Whole words, any case; "Don" is not "Don't".
    return re.compile(rf"(?<![\w]){re.escape(token)}(?![\w'’])", re.IGNORECASE)


def objects(value: Any) -> list[dict]:
    if isinstance(value, dict):
        return [value, *[o for v in value.values() for o in objects(v)]]
    if isinstance(value, list):
        return [o for v in value for o in objects(v)]
    return []


def structural(game: Game, who: Knowledge, where: str, body: Any) -> list[str]:
    problems = []
    if isinstance(body, str):
        if HTML_ID_TRACES.search(body):
            problems.append(f"{where}: {HTML_ID_TRACES.search(body).group(0)!r} in the HTML")
        return problems
    slots = {s.pk: s for s in game.slots.all()}
    game_ids = set(Game.objects.values_list("pk", flat=True))
    for obj in objects(body):
        for key in SITE_ID_KEYS & set(obj):
            problems.append(f"{where}: a site-wide id or counter {key!r}")
        # A notification's own id is the person's own (the inbox's links need it).
        own_notification = where.startswith(INBOX_BODIES) and "kind" in obj and "text" in obj
        if "id" in obj and obj["id"] not in game_ids and not own_notification:
            problems.append(f"{where}: an 'id' that is not a game's ({obj['id']})")
        if obj.get("role_list") and not who.is_host:
            problems.append(f"{where}: the role list")
        slot = slots.get(obj.get("slot_id"))
        if slot is None or who.is_host or slot.pk in who.known:
            continue
        for key in ("role", "alignment"):
            if obj.get(key) and not (revealed(slot) or not slot.alive):
                problems.append(f"{where}: {slot.display_name}'s {key} {obj[key]!r}")
        for key in ("modifiers", "sanity"):
            if obj.get(key):
                problems.append(f"{where}: {slot.display_name}'s {key} {obj[key]!r}")
    return problems


def scan(
    game: Game, people: list[Person], secrets: Secrets, label: str, seen: dict | None = None
) -> list[str]:
    """Capture everything each person gets now; return every leak found."""
    cut = rules_texts(game)
    problems = []
    for person in people:
        who = knowledge(game, person)
        bad = forbidden(game, who, secrets)
        if seen is not None:  # what was searched for, so the test knows the scan had teeth
            seen.setdefault(person.name, set()).update(bad.values())
        patterns = {token: token_pattern(token) for token in bad}
        bodies = capture(game, person)
        if seen is not None:
            seen.setdefault("bodies", set()).update(f"{label}{person.name}{w}" for w in bodies)
        for audience in bodies["socket: audiences"]:
            if not who.is_host and audience not in who.audiences:
                problems.append(f"{label} {person.name}: the socket hears {audience!r}")
        for where, body in bodies.items():
            problems += [f"{label} {person.name} {p}" for p in structural(game, who, where, body)]
            text = searchable(body, cut)
            for token, pattern in patterns.items():
                if found := pattern.search(text):
                    context = text[max(found.start() - 60, 0) : found.end() + 40]
                    problems.append(
                        f"{label} {person.name} at {where}: {token!r} ({bad[token]}): "
                        + " ".join(context.split())
                    )
    return problems


# -- playing --------------------------------------------------------------------------------
def living(game: Game) -> list[Slot]:
    return list(game.slots.filter(alive=True).select_related("user").order_by("seat"))


def post_secrets(game: Game, secrets: Secrets) -> None:
    """A fresh secret in each private thread, from someone who may post there."""
    n = sum(len(v) for v in secrets.posts.values())
    slots = list(game.slots.select_related("user").order_by("seat"))
    writers = {
        "mafia": [s for s in slots if s.alive and s.is_mafia],
        "masons": [s for s in slots if s.alive and s.is_mason],
        "dead": [s for s in slots if not s.alive],
    }
    for thread, who in writers.items():
        if not who:
            continue
        secret = f"{thread.upper()}SECRET{game.pk}x{n}"
        with contextlib.suppress(GameRuleError):
            services.submit_post(who[0].user, game.pk, body=f"psst {secret}", thread=thread)
            secrets.posts[thread].append(secret)


def night_actions(game: Game, spare: set[int]) -> None:
    """Every living player sends an action with each ability (the mafia kill someone who is
    not one of the watching people, while there is such a one)."""
    game.refresh_from_db()
    sent_kill = False
    for slot in living(game):
        for option in services.night_options(game, slot):
            choices = list(option["choices"])
            if option["extra"] or not choices:
                continue
            if option["factional"]:
                if sent_kill:
                    continue
                by_pk = {s.pk: s for s in living(game)}
                town = [c for c in choices if c in by_pk and not by_pk[c].is_mafia]
                choices = [c for c in town if c not in spare] or town or choices
                sent_kill = True
            elif slot.role in INVESTIGATORS:  # the watching cop checks a mafioso
                by_pk = {s.pk: s for s in living(game)}
                choices = [c for c in choices if c in by_pk and by_pk[c].is_mafia] or choices
            else:  # not at the watching people (a block would hide the cop's result)
                choices = [c for c in choices if c != slot.pk] or choices
                choices = [c for c in choices if c not in spare] or choices
            with contextlib.suppress(GameRuleError):
                services.submit_night_action(
                    slot.user, game.pk, ability=option["ability"],
                    targets=[choices[0]] * option["targets"],
                )  # fmt: skip


def day_target(game: Game, keep: set[int]) -> Slot:
    """Whom the town votes out: the mafia (the watching mafioso last), then third parties."""
    alive = living(game)
    mafia = [s for s in alive if s.is_mafia]
    mafia.sort(key=lambda s: s.pk in keep)
    others = [s for s in alive if s.alignment not in ("town", "mafia") and s.role != "jester"]
    return (mafia + others or alive)[0]


def play_day(game: Game, host: Any, keep: set[int]) -> None:
    phase = game.current_phase()
    target = day_target(game, keep)
    if not phase.is_table_day:
        for slot in living(game):
            if slot.pk != target.pk and game.current_phase().number == phase.number:
                with contextlib.suppress(GameRuleError):
                    services.cast_vote(slot.user, game.pk, target.pk)
                game.refresh_from_db()
        game.refresh_from_db()
        if game.is_running and game.phase_number == phase.number:
            services.cut_deadline_now(host, game.pk)
        return
    for _ in range(300):
        game.refresh_from_db()
        phase = game.current_phase()
        if not game.is_running or phase.is_night:
            return
        slots = list(game.slots.select_related("user").order_by("seat"))
        view = turn_view(game, phase, slots)
        if view["step"] == "vote":
            ballot = [b["slot_id"] for b in view["ballot"] if not b.get("skip")]
            choice = target.pk if target.pk in ballot else (ballot or [None])[0]
            voted = {v["slot_id"] for v in view["voted"]}
            for slot in slots:
                if slot.alive and slot.pk not in voted:
                    with contextlib.suppress(GameRuleError):
                        services.cast_vote(slot.user, game.pk, choice)
            game.refresh_from_db()
            if game.is_running and game.current_phase().turn_seq == phase.turn_seq:
                services.skip_speaker(host, game.pk)  # close the vote
            continue
        if view["speaker"] is None:
            services.skip_speaker(host, game.pk)
            continue
        me = next(s for s in slots if s.pk == view["speaker"]["slot_id"])
        mine = turn_view(game, phase, slots, me)
        may = set(mine["you_may"])
        options = [o["slot_id"] for o in mine["options"] if o and not o.get("skip")]
        try:
            if "post" in may and mine["step"] in ("speech", "question"):
                to = None
                if mine["step"] == "question":
                    to = next(o for o in options if o != me.pk)
                services.submit_post(
                    me.user, game.pk, body=f"I suspect {target.display_name}.", to=to
                )
                may = set(turn_view(game, game.current_phase(), slots, me)["you_may"])
            if "nominate" in may:
                pick = target.pk if target.pk in options else options[0]
                services.nominate(me.user, game.pk, pick)
            elif "pass" in may:
                services.pass_turn(me.user, game.pk)
            elif game.current_phase().turn_seq == phase.turn_seq:
                services.skip_speaker(host, game.pk)
        except GameRuleError:
            services.skip_speaker(host, game.pk)
    raise AssertionError("the table day never ended")


def start(setup: str, host: Any) -> tuple[Game, list[Person]]:
    kwargs = SETUPS[setup].game_kwargs()
    # Neutral names: a title or user name saying "cop" would be found as a role.
    game = services.create_game(host, title="A watched game", seed=5, **kwargs)
    services.set_webhook(host, game.pk, WEBHOOK_URL)  # every announcement goes out too
    for n in range(game.player_cap):
        services.join_game(UserFactory(username=f"watched{n}"), game.pk)
    services.start_game(host, game.pk)
    # Rated: its players' pages and the leaderboard are watched too (ratings at the end).
    Game.objects.filter(pk=game.pk).update(rated=True)
    game.refresh_from_db()
    slots = list(game.slots.select_related("user").order_by("seat"))
    town = next(s for s in slots if s.role in INVESTIGATORS)
    mafia = next(s for s in slots if s.is_mafia)
    dead = next(s for s in slots if s.role in PLAIN_TOWN)
    people = [
        Person("anonymous", None),
        Person("spectator", UserFactory(username="spectator")),
        Person("town", town.user, town.pk),
        Person("mafia", mafia.user, mafia.pk),
        Person("dead", dead.user, dead.pk),
        Person("host", host),
    ]
    return game, people


@pytest.mark.parametrize(
    "setup", ["forum-cop-doctor-nine", "city-ten", "classic-ten", "power-nine"]
)
def test_nothing_hidden_leaks_in_a_whole_game(setup, host, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True  # chat.example is then not looked up in the DNS
    game, people = start(setup, host)
    watched = {p.slot_id for p in people if p.slot_id}
    dead = next(p for p in people if p.name == "dead")
    secrets = Secrets()
    problems: list[str] = []
    seen: dict[str, set[str]] = {}
    for _ in range(30):
        game.refresh_from_db()
        if not game.is_running:
            break
        phase = game.current_phase()
        if phase.is_day and Slot.objects.get(pk=dead.slot_id).alive:
            services.modkill(host, game.pk, dead.slot_id)  # our dead player, from day 1
            game.refresh_from_db()
            if not game.is_running:
                break
        post_secrets(game, secrets)
        if phase.is_night:
            night_actions(game, watched)
        problems += scan(game, people, secrets, f"{phase.label}:", seen)
        if phase.is_night:
            services.cut_deadline_now(host, game.pk)
        else:
            play_day(game, host, watched)
    game.refresh_from_db()
    assert game.is_finished, f"{setup} did not end"
    assert not problems, "\n".join(problems[:40])
    # The scan had something to find: hidden roles, secrets, results, actions, explanations.
    kinds = {why.split("'s ")[-1] if "'s " in why else why for why in seen["spectator"]}
    assert {"role", "private result", "a post in the mafia thread"} <= kinds, kinds
    assert "a post in the dead thread" in kinds and any("explanation" in k for k in kinds)
    assert len(seen["bodies"]) > 150, len(seen["bodies"])
    # The webhook got the announcements (deaths included), and they were searched.
    assert WebhookDelivery.objects.filter(game=game).count() > 5
    assert any(w.endswith("webhook: deliveries") for w in seen["bodies"])
    mailed = {b for b in seen["bodies"] if "e-mail: digest" in b}
    assert any("mafia" in b for b in mailed) and any("town" in b for b in mailed), mailed
    # After the end everything may show, and the archive shows every role to everyone.
    assert not scan(game, people, secrets, "over:")
    archive = Client().get(f"/api/v1/games/{game.pk}/archive/").json()
    assert {s["role"] for s in archive["slots"]} == set(game.slots.values_list("role", flat=True))
