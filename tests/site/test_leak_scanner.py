"""The leak scanner: a whole game per rule set, and at every phase everything each kind of
person gets is searched for what they may not know.

Games: forum (cop and doctor nine, a free-thread day), and city, classic and power played as
tables (turns). Every phase the mafia, the masons and the dead post a fresh secret in their
thread and every night every role sends its action; the day's vote goes to the mafia. The
games are played with last wills: every phase each living player writes a fresh will with a
unique marker. The forum game's nights are must-act, and on the first the watching town
player sends nothing: the site's random action for them, its private result (told to them
alone) and the host's note of it are searched for too.

People: anonymous, a logged-in spectator, a town investigator (cop / sheriff / detective)
who is also a site moderator, a mafia member, a dead player (a plain townie modkilled on
day 1) and the host; in the forum game also a co-host (who may know all the host knows) and
a co-host the host removes after the first scan (a spectator from then on: nothing of the
host's may reach them any more). The host reports every secret post to the moderators,
quoting it: the moderators' queue, log and records of a game's players are fetched by
everyone each phase, and a moderator who plays in the game must find none of those reports
there. At each
capture each person fetches every page and API read of the game (thread, private threads,
role PM, host page, archive; the game, posts of every thread, vote count, turn, role PM,
host view, archive; their own notifications: the inbox page, its API and the bell's socket
frame, ``live.inbox.inbox_frame``; what a web push of each would say), the e-mail digest
their pending notifications make (built as the sweep builds it) and the frames a socket of
theirs gets: ``live.audiences.viewer_audiences`` and ``live.replay.replay`` from the
positions of the previous capture (exactly what the game socket sends a reconnecting page),
plus the ping answer (``live.numbering.heads``).

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
- in the forum game, played with secret votes (``Game.secret_votes`` "totals", scanned
  once more mid-day after some votes, one of them typed in a post): who votes whom, for
  everyone but the host until the day ends: "Vote: <name>" / "voted <name>" anywhere, a
  wagon's voters in the HTML or the JSON, a vote event or a vote log entry of the day
  naming another voter (``ballots_shown``);
- every player's belief probes but the person's own (each seat says the same probability of
  its own, e.g. 0.8037, shown "80.37" on the form), the host's and the team's included,
  until the end (``analytics.probes``);
- every will but the person's own, until its writer's death posts it (the last one written:
  an earlier one is never posted; a cleaned player's never, the rules hide it with the role);
- in the forum game, also blind (``Game.blind``, issue 34): which seat is the agent's
  ("watchedbot", who takes over a seat), for everyone, the host included, until the end:
  the agent badge's markup in any HTML or frame, an ``"agent": true`` anywhere in the JSON
  (``agents_told``; the agent's own pages, which name it, aside), its account name (the
  real names below) and its page linking the game (``ties``);
- in the forum game, played with anonymous names (``Game.anonymous_names``): every
  player's own user name but the person's own (the user names are unique markers:
  ``watched<n>``), while the game runs; a person's page (``/players/<name>/``...) is
  searched without its own subject's name, and must not link the game or give its id;
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
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings as site_settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone, translation
from mafia_client import parse_frame

from agents import services as agent_services
from analytics.probe_views import percent
from analytics.probes import submit_probes
from games import naming, services
from games.errors import GameRuleError
from games.fragments import OWN_PARTS, own_parts_html
from games.live import audiences as live_audiences
from games.live import inbox as live_inbox
from games.live import kinds, numbering
from games.live import replay as live_replay
from games.live.page_render import page_path, render_page
from games.models import AccountSettings, Game, NightAction, PrivateResult, Slot
from games.reads.agents import agents_hidden
from games.reads.table import turn_view
from games.reads.thoughts import thoughts_of
from games.reads.vote_count import votes_are_secret
from games.services import moderation
from games.services.whispers import send_whisper
from games.setups import SETUPS
from league.live import league_parts
from league.models import Series, SeriesEntrant, SeriesGame
from notifications import mail, push
from notifications.models import Notification
from resolver.rulesets import get_ruleset
from tests.factories import UserFactory
from tests.live_model import socket_scope
from webhooks.models import WebhookDelivery
from webhooks.services import set_webhook

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

PEOPLE = ("anonymous", "spectator", "town", "mafia", "dead", "host")
INVESTIGATORS = ("cop", "sheriff", "detective")
PLAIN_TOWN = ("vanilla_townie", "villager", "citizen", "town")
THREADS = ("public", "mafia", "masons", "dead")
INBOX_BODIES = ("/api/v1/notifications/", "socket: inbox")
# Who reads the site in Russian (their account's language): their pages, frames, mails and
# notifications are searched for the Russian names of what they may not know too. The city
# game (played above all in Russian-speaking clubs) is written in Russian: its thread's
# announcements and the resolver's explanations are stored in Russian for everyone.
RUSSIAN_READERS = ("spectator", "mafia", "dead")
RUSSIAN_GAMES = ("city-ten",)
SITE_ID_KEYS = {"pk", "post_id", "event_id", "action_id", "result_id", "seq", "event_seq"}
# The host's chat webhook: its URL is the host's secret; what is posted to it is public.
WEBHOOK_URL = "https://chat.example/api/webhooks/4242/wh-secret-token-7c1e"
# The private result that tells a player of a must-act night that the site acted for them.
MUST_ACT_RESULT = "You did not act: the site chose"
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
    # A co-host knows what the host knows, while they are one (the host names them).
    cohost = person.user is not None and game.cohosts.filter(user=person.user).exists()
    if person.name == "host" or cohost or game.is_finished:
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
    # Bookmark notes, by their writer's user id: nobody else ever, not even after the end.
    notes: dict[int, list[str]] = field(default_factory=dict)
    # Last wills: each slot's markers, in the order written (the last one is its will).
    wills: dict[int, list[str]] = field(default_factory=dict)
    # Whispers (the games are played with private whispers): (marker, sender, recipient).
    whispers: list[tuple[str, int, int]] = field(default_factory=list)
    # Thoughts sent with acts: nobody's, not even the host's, until the end.
    thoughts: list[str] = field(default_factory=list)
    # Belief probes, by the slot that sent them: the tokens its probability is written as
    # (the API's "0.8037", the form's "80.37"); nobody else's until the end.
    probes: dict[int, tuple[str, ...]] = field(default_factory=dict)

    def thought(self, game: Game) -> str:
        marker = f"THOUGHTSECRET{game.pk}x{len(self.thoughts)}"
        self.thoughts.append(marker)
        return f"I reckon {marker}"


def forbidden(game: Game, who: Knowledge, secrets: Secrets) -> dict[str, str]:
    """token -> why it may not reach this person."""
    # (until the end: then the review and the export show them to everyone)
    thoughts = {} if game.is_finished else dict.fromkeys(secrets.thoughts, "a player's thoughts")
    if not game.is_finished:  # a player's own probes are theirs; nobody else's, the host's
        for slot_id, tokens in secrets.probes.items():
            if who.slot is None or who.slot.pk != slot_id:
                thoughts.update(dict.fromkeys(tokens, "a player's probes"))
    if who.is_host:
        return thoughts  # the host sees everything else
    out: dict[str, str] = {"wh-secret-token-7c1e": "the host's webhook URL", **thoughts}
    rules = get_ruleset(game.ruleset)
    slots = list(game.slots.select_related("user"))
    allowed_roles = {s.role for s in slots if s.pk in who.known or revealed(s)}
    words_everywhere = {a.lower() for a in rules.alignment_titles} | set(THREADS)
    for title in rules.alignment_titles.values():
        words_everywhere |= {t.lower() for t in in_every_language(title)}
    for thread in THREADS:  # the threads' own names, as the pages say them
        words_everywhere |= {t.lower() for t in in_every_language(thread.capitalize())}
    for slot in slots:
        if slot.pk in who.known or revealed(slot) or slot.role in allowed_roles:
            continue
        spec = rules.roles[slot.role]
        for token in (slot.role, *in_every_language(spec.title)):
            if token.lower() not in words_everywhere:
                out[token] = f"{slot.display_name}'s role"
        if slot.sanity and slot.sanity != "sane":
            out[slot.sanity] = f"{slot.display_name}'s sanity"
    me = who.slot
    by_pk = {s.pk: s for s in slots}
    for slot_id, markers in secrets.wills.items():
        writer = by_pk[slot_id]
        if me is not None and me.pk == slot_id:
            continue
        # Posted at the death, unless a janitor's clean hid the role (and so the will).
        cleaned = rules.reveals_roles_on_death and writer.revealed_role == "unknown"
        posted = markers[-1:] if not writer.alive and not cleaned else []
        out.update({m: f"{writer.display_name}'s will" for m in markers if m not in posted})
    if votes_secret_now(game):  # who votes whom, however it would be written
        for slot in slots:  # (a bold "Vote: <name>" is ``ballots_shown``'s: the vote
            out[f"voted {slot.display_name}"] = "who voted whom"  # buttons' titles say it)
    for thread, posted in secrets.posts.items():
        if thread not in who.threads:
            out.update(dict.fromkeys(posted, f"a post in the {thread} thread"))
    if naming.masks_hide(game):  # an anonymous game: every player's own name but theirs
        for slot in slots:
            if me is None or slot.pk != me.pk:
                out[slot.user.get_username()] = f"{slot.display_name}'s real name"
    party = set()
    for marker, sender, recipient in secrets.whispers:
        if me is None or me.pk not in (sender, recipient):
            out[marker] = "a whisper"
        else:
            party.add(me.pk)
    if secrets.whispers and not party:  # private whispers: not even that they happened
        out["whispered to"] = "that a whisper happened"
    for result in PrivateResult.objects.filter(phase__game=game).select_related("slot"):
        if me is None or result.slot_id != me.pk:
            # (A must-act night's "You did not act: the site chose..." is one too.)
            random = " (must-act)" if result.text.startswith(MUST_ACT_RESULT) else ""
            out[result.text] = f"{result.slot.display_name}'s private result{random}"
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
        for line in (phase.report or {}).get("site_notes", []):  # the host's report
            if " sent no " in line:  # a must-act night's action taken at random
                out[naming.render(line, names)] = "the host note of a random action"
    return out


# -- fetching everything --------------------------------------------------------------------
def page_urls(g: int) -> list[str]:
    pages = [f"/games/{g}/", f"/games/{g}/?page=last"]
    pages += [f"/games/{g}/t/{t}/" for t in THREADS[1:]]
    pages += [f"/games/{g}/role/", f"/games/{g}/host/", f"/games/{g}/archive/", "/"]
    pages += [f"/games/{g}/review/", f"/games/{g}/review/?phase=1"]
    pages += [f"/games/{g}/whispers/"]
    pages += [f"/games/{g}/probes/"]  # belief probes (analytics): the form, one's own
    api = [f"/api/v1/games/{g}/", f"/api/v1/games/{g}/vote-count/", f"/api/v1/games/{g}/turn/"]
    api += [f"/api/v1/games/{g}/posts/?thread={t}&page=last" for t in THREADS]
    api += [f"/api/v1/games/{g}/role/", f"/api/v1/games/{g}/host/"]
    api += [f"/api/v1/games/{g}/host/webhook/"]
    api += [f"/api/v1/games/{g}/archive/", "/api/v1/games/"]
    api += [f"/api/v1/games/{g}/review/", f"/api/v1/games/{g}/export/"]
    api += [f"/api/v1/games/{g}/whispers/"]
    api += [f"/api/v1/games/{g}/probes/"]
    api += [f"/api/v1/games/{g}/agent-guesses/"]  # blind games' guesses: after the end only
    # Each person's own notifications (the inbox page, its API, the bell's socket frame).
    pages += ["/notifications/"]
    # The moderators' pages (the town player is a moderator: a report of a private post of
    # this game must not reach them), and the report form of each thread's first post.
    pages += ["/moderation/", "/moderation/log/"]
    pages += [f"/games/{g}/t/{t}/posts/1/report/" for t in THREADS[1:]]
    # Each person's own bookmarks (the mafia chat's writer bookmarks its secrets, with notes).
    pages += ["/bookmarks/"]
    api += ["/api/v1/bookmarks/"]
    api += ["/api/v1/notifications/?page=1", "/api/v1/notifications/?page=2"]
    return pages + api


def rating_urls(game: Game) -> list[str]:
    """The leaderboard of the game's rule set and every player's page (ratings, rated
    games with their roles: only finished games may show there), and the statistics of
    the game's setup and of each player (finished games only too)."""
    urls = [f"/leaderboard/{game.ruleset}/", f"/api/v1/leaderboard/{game.ruleset}/"]
    # The statistics from finished games (analytics.stats): the setup's and each player's.
    if game.setup:
        urls += [f"/setups/{game.setup}/stats/", f"/api/v1/setups/{game.setup}/stats/"]
    # The behaviour leaderboard (analytics.behaviour_board), each side's.
    board = f"/leaderboard/{game.ruleset}/behaviour/"
    urls += [f"{board}?side={side}" for side in ("town", "mafia", "other")]
    for name in game.slots.values_list("user__username", flat=True):
        urls += [f"/players/{name}/", f"/api/v1/players/{name}/", f"/moderation/people/{name}/"]
        urls += [f"/players/{name}/stats/", f"/api/v1/players/{name}/stats/"]
    for name in game.slots.filter(user__agent__isnull=False).values_list(
        "user__username", flat=True
    ):
        urls += [f"/agents/{name}/", f"/api/v1/agents/{name}/"]
    # The duplicate series that holds the game (league app, ``as_series_game``), and the
    # league page that lists the series.
    series = SeriesGame.objects.filter(game=game).values_list("series_id", flat=True).first()
    if series is not None:
        urls += [f"/league/series/{series}/", f"/api/v1/series/{series}/", "/league/"]
        urls += ["/league/series/", "/api/v1/series/"]
    return urls


def as_series_game(game: Game) -> None:
    """Make the game the first of a duplicate series of its players (entrant j in seat
    j + 1, as ``league.series.seat_of`` seats game 0), so the series' pages are searched
    too. Only a game without anonymous names: a series is never anonymous (its rotation
    says who sits where)."""
    slots = list(game.slots.select_related("user").order_by("seat"))
    series = Series.objects.create(
        setup=game.setup or "forum-vanilla", seed=game.seed, games=len(slots), created_by=game.host
    )
    for position, slot in enumerate(slots):
        SeriesEntrant.objects.create(series=series, user=slot.user, position=position)
    SeriesGame.objects.create(series=series, number=0, game=game)


# Who fetches the moderators' pages: the moderator who plays (the one who must find no
# report of this game there) and one outsider (refused). The others are refused alike, and
# fetching a record per player for everyone doubled the city game's scan.
MODERATION_WATCHERS = frozenset({"town", "spectator"})
# Who fetches the statistics pages (analytics.stats): they are the same for everyone, so the
# two who know least (whom any leak would tell something) read them for all.
STATS_WATCHERS = frozenset({"anonymous", "spectator"})
# Who fetches every player's page (ratings, reliability, the side domains' panels): they
# differ by viewer only in a moderator's link, so the two who know least and the moderator
# who plays read them (every person reading all of them was near a quarter of the city
# scan: 16 of 68 s).
PLAYER_PAGES = ("/players/", "/api/v1/players/")
PLAYER_PAGE_WATCHERS = STATS_WATCHERS | {"town"}


def capture(game: Game, person: Person) -> dict[str, Any]:
    """where -> body (str for HTML, parsed JSON for the API and frames)."""
    client = Client()
    if person.user is not None:
        client.force_login(person.user)
    bodies: dict[str, Any] = {}
    for url in page_urls(game.pk) + rating_urls(game):
        if url.startswith("/moderation/") and person.name not in MODERATION_WATCHERS:
            continue
        same_for_everyone = url.endswith("/stats/") or "/agents/" in url or "/behaviour/" in url
        if same_for_everyone and person.name not in STATS_WATCHERS:
            continue
        if url.startswith(PLAYER_PAGES) and person.name not in PLAYER_PAGE_WATCHERS:
            continue
        if ("/series/" in url or url == "/league/") and person.name not in STATS_WATCHERS:
            continue  # the series' pages are the same for everyone, as the statistics
        response = client.get(url, follow=url.endswith("/role/") or url == "/notifications/")
        # (409/422: the guesses of a blind game that is not over, or of a game not blind)
        allowed = (200, 302, 401, 403, 404, 409, 422)
        assert response.status_code in allowed, (url, response.status_code)
        if "/review/" in url or "/export/" in url:  # nobody's until the end, not the host's
            assert response.status_code == (200 if game.is_finished else 404), (url, person.name)
        text = response.content.decode()
        bodies[url] = json.loads(text) if url.startswith("/api/") else text
    if person.user is None:  # the chat webhook speaks to the public: anonymous's knowledge
        deliveries = WebhookDelivery.objects.filter(game=game).order_by("id")
        bodies["webhook: deliveries"] = [d.body for d in deliveries]
    if person.user is not None:
        bodies.update(digest_bodies(person.user))
        bodies["socket: inbox"] = live_inbox.inbox_frame(person.user.pk, fresh=True)
        # What a web push to their phone would say of each of their notifications of a
        # pushed kind (``notifications.push.message``: the body the device decrypts).
        pushed = Notification.objects.filter(user=person.user, kind__in=push.pushed_kinds())
        bodies["push: messages"] = [push.message(n) for n in pushed.order_by("pk")]
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
def in_every_language(text: str) -> list[str]:
    """A rules text as each language of the site writes it (the resolver's data is English;
    the pages show it through the catalogue)."""
    with translation.override(None):  # the source text (a lazy one, as English says it)
        source = str(text)
    out = [source]
    for language, _name in site_settings.LANGUAGES:
        with translation.override(language):
            out.append(translation.gettext(source))
    return list(dict.fromkeys(t for t in out if t))


def rules_texts(game: Game) -> list[str]:
    rules = get_ruleset(game.ruleset)
    texts = [r.description for r in rules.roles.values()]
    texts += [a.description for r in rules.roles.values() for a in r.abilities]
    texts += list(rules.modifiers.values()) + list(rules.win_conditions.values())
    texts += [f.help for f in rules.flags.values()] + [s.description for s in SETUPS.values()]
    texts += [s.name for s in SETUPS.values()] + list(SETUPS)  # the league lists setups
    every = {t for text in texts if text for t in in_every_language(text)}
    return sorted(every, key=len, reverse=True)


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


# A Russian noun takes an ending by its case ("Доктор", "Доктора", "Доктором"): a Cyrillic
# token is found with up to three more Cyrillic letters.
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def word(token: str) -> str:
    return re.escape(token) + ("[а-яё]{0,3}" if CYRILLIC.search(token) else "")


def token_pattern(token: str) -> re.Pattern[str]:
    # Whole words, any case; "Don" is not "Don't".
    return re.compile(rf"(?<![\w]){word(token)}(?![\w'’])", re.IGNORECASE)


def tokens_pattern(tokens: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern for all of a person's forbidden tokens (whole words, any case, as
    ``token_pattern``): a body is read once, not once per token (600,000 searches a game).
    The longest first, so that a token is not cut short by another it begins with."""
    ordered = sorted(set(tokens), key=len, reverse=True)
    if not ordered:
        return None
    either = "|".join(word(t) for t in ordered)
    return re.compile(rf"(?<![\w])(?:{either})(?![\w'’])", re.IGNORECASE)


def tokens_found(
    pattern: re.Pattern[str] | None, tokens: Iterable[str], text: str
) -> dict[str, re.Match[str]]:
    """token -> its first match in ``text``; every token that appears (some may appear only
    inside a longer one's match: each such is looked for on its own)."""
    if pattern is None:
        return {}
    matches = list(pattern.finditer(text))
    if not matches:
        return {}
    by_text = {t.casefold(): t for t in tokens}
    found: dict[str, re.Match[str]] = {}
    for match in matches:
        token = by_text.get(match.group(0).casefold())
        if token is not None:
            found.setdefault(token, match)
    # A token hidden inside another's match (a name inside a longer marker), or whose case
    # folds differently: the rare body that has a match at all is searched token by token.
    for token in set(tokens) - set(found):
        if one := token_pattern(token).search(text):
            found[token] = one
    return found


def objects(value: Any) -> list[dict]:
    if isinstance(value, dict):
        return [value, *[o for v in value.values() for o in objects(v)]]
    if isinstance(value, list):
        return [o for v in value for o in objects(v)]
    return []


@dataclass(frozen=True)
class Standing:
    """What the checks read of the game and the site once per scan, not once per body:
    nothing changes while everyone fetches (reading it per body was a sixth of a scan)."""

    slots: dict[int, Slot]
    game_ids: set[int]
    series_ids: set[int]
    # A bold "Vote: <name>" in a post, when votes are secret now (else None).
    typed_vote: re.Pattern[str] | None


def standing(game: Game) -> Standing:
    return Standing(
        slots={s.pk: s for s in game.slots.select_related("user", "game")},
        game_ids=set(Game.objects.values_list("pk", flat=True)),
        series_ids=set(Series.objects.values_list("pk", flat=True)),
        typed_vote=bold_vote(game) if votes_secret_now(game) else None,
    )


def structural(
    game: Game, who: Knowledge, where: str, body: Any, now: Standing | None = None
) -> list[str]:
    problems = []
    if isinstance(body, str):
        if HTML_ID_TRACES.search(body):
            problems.append(f"{where}: {HTML_ID_TRACES.search(body).group(0)!r} in the HTML")
        return problems
    now = now or standing(game)
    slots, game_ids, series_ids = now.slots, now.game_ids, now.series_ids
    for obj in objects(body):
        for key in SITE_ID_KEYS & set(obj):
            problems.append(f"{where}: a site-wide id or counter {key!r}")
        # A notification's own id is the person's own (the inbox's links need it).
        own_notification = where.startswith(INBOX_BODIES) and "kind" in obj and "text" in obj
        own_notification |= where == "/api/v1/bookmarks/" and "note" in obj  # theirs too
        # A duplicate series' id is public: its page's address, listed on the league page.
        own_series = where.startswith("/api/v1/series/") and "entrants" in obj
        own_series &= obj.get("id") in series_ids
        if "id" in obj and obj["id"] not in game_ids and not (own_notification or own_series):
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


PERSON_PAGES = (
    "/players/",
    "/api/v1/players/",
    "/moderation/people/",
    "/agents/",
    "/api/v1/agents/",
)


def ties(game: Game, where: str, body: Any) -> list[str]:
    """A person's page that links them to an anonymous game while it runs (its thread or
    archive in the HTML, its id in the JSON): their seat's mask would be one guess away."""
    if not naming.masks_hide(game) or where.startswith("/moderation/"):
        return []
    if isinstance(body, str):
        linked = re.search(rf"/games/{game.pk}/", body)
        return [f"{where}: links the anonymous game ({linked.group(0)})"] if linked else []
    named = [obj for obj in objects(body) if obj.get("game_id") == game.pk]
    return [f"{where}: names the anonymous game"] if named else []


AGENT = "watchedbot"  # the agent who takes over a seat (``start``)
BADGE_MARKUP = re.compile(r"agent-badge")


def agents_told(game: Game, where: str, body: Any) -> list[str]:
    """Which seat is an agent's, while a blind game hides it (from everyone, the host
    too): the badge in HTML or a frame, an ``"agent": true`` in JSON. The agent's own pages
    say what it is (and ``ties`` checks they do not link the game)."""
    if not agents_hidden(game) or AGENT in where:
        return []
    if isinstance(body, str):
        return [f"{where}: an agent badge (blind game)"] if BADGE_MARKUP.search(body) else []
    told = [
        f"{where}: an agent badge (blind game)" for t in strings(body) if BADGE_MARKUP.search(t)
    ]
    told += [
        f'{where}: "agent": true (blind game)' for o in objects(body) if o.get("agent") is True
    ]
    return told[:3]


def votes_secret_now(game: Game) -> bool:
    """Whether the day running now has secret votes (``Game.secret_votes``)."""
    if game.secret_votes == "off":
        return False
    phase = game.current_phase() if game.is_running else None
    return votes_are_secret(game, phase)


VOTERS_SHOWN = re.compile(r'class="voters">\s*[^<\s]|class="voters">\s*<a')


def bold_vote(game: Game) -> re.Pattern[str]:
    """A vote naming a player as a post shows it: bold in HTML, or as written (Markdown,
    BBCode); the reply box's hint ("**Vote: Name**") names nobody."""
    names = "|".join(re.escape(s.display_name) for s in game.slots.select_related("user", "game"))
    return re.compile(rf"(<strong>|<b>|\*\*|__|\[b\])\s*vote\s*:\s*({names})\b", re.IGNORECASE)


def ballots_shown(game: Game, who: Knowledge, where: str, body: Any, now: Standing) -> list[str]:
    """Who votes whom, where votes are secret and the person is not the host: a wagon's
    voters (HTML or JSON), another player's vote or unvote event, today's vote log."""
    typed = now.typed_vote
    if who.is_host or typed is None:
        return []
    if isinstance(body, str):
        found = [VOTERS_SHOWN.search(body), typed.search(body)]
        return [f"{where}: who votes whom ({m.group(0)!r})" for m in found if m is not None]
    me = who.slot.pk if who.slot is not None else None
    problems = [f"{where}: a post's vote {t!r}"[:200] for t in strings(body) if typed.search(t)]
    today = game.phase_number
    for obj in objects(body):
        if obj.get("voters"):
            problems.append(f"{where}: a wagon's voters {obj['voters']!r}"[:200])
        voter = obj.get("voter")
        if "target" in obj and isinstance(voter, dict) and voter.get("slot_id") != me:
            problems.append(f"{where}: {voter.get('name')}'s vote")
        if "target" in obj and isinstance(voter, str) and obj.get("phase") == today:
            problems.append(f"{where}: today's vote log ({voter})")
    return problems


def scan(
    game: Game, people: list[Person], secrets: Secrets, label: str, seen: dict | None = None
) -> list[str]:
    """Capture everything each person gets now; return every leak found."""
    cut = rules_texts(game)
    now = standing(game)
    problems = []
    for person in people:
        who = knowledge(game, person)
        bad = forbidden(game, who, secrets)
        for writer, notes in secrets.notes.items():
            if person.user is None or person.user.pk != writer:
                bad.update(dict.fromkeys(notes, "someone else's bookmark note"))
        if seen is not None:  # what was searched for, so the test knows the scan had teeth
            seen.setdefault(person.name, set()).update(bad.values())
            if agents_hidden(game):
                seen[person.name].add("which seat is the agent's")
        pattern = tokens_pattern(bad)
        bodies = capture(game, person)
        if seen is not None:
            seen.setdefault("bodies", set()).update(f"{label}{person.name}{w}" for w in bodies)
        for audience in bodies["socket: audiences"]:
            if not who.is_host and audience not in who.audiences:
                problems.append(f"{label} {person.name}: the socket hears {audience!r}")
        for where, body in bodies.items():
            found_here = structural(game, who, where, body, now)
            problems += [f"{label} {person.name} {p}" for p in found_here]
            shown = ballots_shown(game, who, where, body, now)
            problems += [f"{label} {person.name} {p}" for p in shown]
            problems += [f"{label} {person.name} {p}" for p in agents_told(game, where, body)]
            text = searchable(body, cut)
            if where.startswith(PERSON_PAGES):
                # A person's page names its person; it must not tie them to a masked seat.
                problems += [f"{label} {person.name} {p}" for p in ties(game, where, body)]
                # (the person's name: the part after /players/ or /people/, stats/ or not)
                text = text.replace(where.removesuffix("stats/").split("/")[-2], " ")
            for token, found in tokens_found(pattern, bad, text).items():
                context = text[max(found.start() - 60, 0) : found.end() + 40]
                problems.append(
                    f"{label} {person.name} at {where}: {token!r} ({bad[token]}): "
                    + " ".join(context.split())
                )
    return problems


# -- playing --------------------------------------------------------------------------------
def living(game: Game) -> list[Slot]:
    return list(game.slots.filter(alive=True).select_related("user").order_by("seat"))


OUTSIDE_MODERATOR = "outsidewarden"


def outside_moderator() -> Any:
    return get_user_model().objects.get(username=OUTSIDE_MODERATOR)


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
            made = services.submit_post(
                who[0].user,
                game.pk,
                body=f"psst {secret}",
                thread=thread,
                thoughts=secrets.thought(game),
            )
            secrets.posts[thread].append(secret)
            if thread == "mafia":  # bookmarked by its writer, with a private note
                note = f"BOOKMARKNOTE{game.pk}x{n}"
                services.bookmark_post(
                    who[0].user, game.pk, made.post.number, thread=thread, note=note
                )
                secrets.notes.setdefault(who[0].user.pk, []).append(note)
            # The host reports it to the moderators, quoting it (the queue shows both).
            report = moderation.file_report(
                game.host,
                reason="other",
                text=f"they said {secret}",
                game_id=game.pk,
                thread=thread,
                number=made.post.number,
            )
            # A moderator outside the game dismisses it, quoting it again: the audit log
            # then holds this game's entries. (Not a warning: its notice would quote the
            # post to its writer, who after death may no longer read that thread.)
            moderation.handle_report(
                outside_moderator(), report.pk, action="dismiss", note=f"about {secret}"
            )


def whisper_secrets(game: Game, people: list[Person], secrets: Secrets) -> None:
    """By day, two fresh whispers with unique markers: the watching town player to someone
    unwatched, and between two unwatched players (whom no watching person may learn of)."""
    watched = {p.slot_id for p in people if p.slot_id}
    alive = living(game)
    town_id = next(p.slot_id for p in people if p.name == "town")
    town = next((s for s in alive if s.pk == town_id), None)
    others = [s for s in alive if s.pk not in watched]
    pairs = [(town, others[0])] if town is not None and others else []
    if len(others) >= 3:
        pairs.append((others[1], others[2]))
    for sender, recipient in pairs:
        assert sender is not None
        marker = f"WHISPERSECRET{game.pk}x{len(secrets.whispers)}"
        with contextlib.suppress(GameRuleError):
            send_whisper(sender.user, game.pk, to=recipient.pk, body=f"psst {marker}")
            secrets.whispers.append((marker, sender.pk, recipient.pk))


def probe_value(seat: int) -> float:
    """The probability every probe of ``seat`` says: 0.8017 for seat 1, 0.8107 for seat 10."""
    return round(0.8007 + seat / 1000, 4)


def send_probes(game: Game, secrets: Secrets) -> None:
    """By day, every living player sends belief probes on every other living player, all
    with their seat's own probability (``probe_value``)."""
    alive = living(game)
    for slot in alive:
        value = probe_value(slot.seat)
        given = {s.pk: value for s in alive if s.pk != slot.pk}
        with contextlib.suppress(GameRuleError):
            submit_probes(slot.user, game.pk, given)
            secrets.probes[slot.pk] = (str(value), percent(value))


def write_wills(game: Game, secrets: Secrets) -> None:
    """Every living player writes a fresh will, with a marker of its own."""
    for slot in living(game):
        marker = f"WILLSECRET{game.pk}x{slot.seat}x{len(secrets.wills.get(slot.pk, []))}"
        with contextlib.suppress(GameRuleError):
            services.write_will(slot.user, game.pk, f"My will: {marker}")
            secrets.wills.setdefault(slot.pk, []).append(marker)


def secret_votes_midday(game: Game, keep: set[int]) -> None:
    """Some of the day's votes, short of a majority: each watching player's (one typed in
    a post, the others by the button) and one more, all on the day's target."""
    target = day_target(game, keep)
    alive = living(game)
    voters = [s for s in alive if s.pk in keep and s.pk != target.pk]
    voters += [s for s in alive if s.pk not in keep and s.pk != target.pk][:1]
    for n, slot in enumerate(voters[: len(alive) // 2 - 1]):
        with contextlib.suppress(GameRuleError):
            if n == 0:
                body = f"I am sure now.\n\n**Vote: {target.display_name}**"
                services.submit_post(slot.user, game.pk, body=body)
            else:
                services.cast_vote(slot.user, game.pk, target.pk)


def night_actions(
    game: Game, spare: set[int], secrets: Secrets, absent: frozenset[int] = frozenset()
) -> None:
    """Every living player sends an action with each ability (the mafia kill someone who is
    not one of the watching people, while there is such a one), but the ``absent`` ones:
    on a must-act night the site takes theirs at random."""
    game.refresh_from_db()
    sent_kill = False
    for slot in living(game):
        if slot.pk in absent:
            continue
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
                    targets=[choices[0]] * option["targets"], thoughts=secrets.thought(game),
                )  # fmt: skip


def own_result(game: Game, person: Person, number: int) -> str | None:
    """The must-act result the site left ``person`` in night ``number``, if any."""
    return (
        PrivateResult.objects.filter(
            phase__game=game,
            phase__number=number,
            slot_id=person.slot_id,
            text__startswith=MUST_ACT_RESULT,
        )
        .values_list("text", flat=True)
        .first()
    )


def day_target(game: Game, keep: set[int]) -> Slot:
    """Whom the town votes out: the mafia (the watching mafioso last), then third parties."""
    alive = living(game)
    mafia = [s for s in alive if s.is_mafia]
    mafia.sort(key=lambda s: s.pk in keep)
    others = [s for s in alive if s.alignment not in ("town", "mafia") and s.role != "jester"]
    return (mafia + others or alive)[0]


def play_day(game: Game, host: Any, keep: set[int], secrets: Secrets) -> None:
    phase = game.current_phase()
    target = day_target(game, keep)
    if not phase.is_table_day:
        for slot in living(game):
            if slot.pk != target.pk and game.current_phase().number == phase.number:
                with contextlib.suppress(GameRuleError):
                    services.cast_vote(
                        slot.user, game.pk, target.pk, thoughts=secrets.thought(game)
                    )
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
                        services.cast_vote(
                            slot.user, game.pk, choice, thoughts=secrets.thought(game)
                        )
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
                services.nominate(me.user, game.pk, pick, thoughts=secrets.thought(game))
            elif "pass" in may:
                services.pass_turn(me.user, game.pk, thoughts=secrets.thought(game))
            elif game.current_phase().turn_seq == phase.turn_seq:
                services.skip_speaker(host, game.pk)
        except GameRuleError:
            services.skip_speaker(host, game.pk)
    raise AssertionError("the table day never ended")


def start(setup: str, host: Any) -> tuple[Game, list[Person]]:
    kwargs = SETUPS[setup].game_kwargs()
    # Neutral names: a title or user name saying "cop" would be found as a role.
    # With private whispers: nobody but their two players and the host may learn of one.
    kwargs["whispers"] = "private"
    kwargs["last_wills"] = True  # each player's will is theirs until their death posts it
    # A forum game plays with anonymous names: the players' own names are searched for.
    kwargs["anonymous_names"] = not kwargs["turn_based"]
    # And blind: which seat is the agent's is searched for too (``agents_told``).
    kwargs["blind"] = not kwargs["turn_based"]
    # The forum game's votes are secret (totals only until the day ends): who votes whom is
    # searched for mid-day (``secret_votes_midday``). Its nights are must-act: the watching
    # town player sends nothing on the first, the site acts for them at random.
    if not kwargs["turn_based"]:
        kwargs["secret_votes"] = "totals"
        kwargs["must_act"] = True
    if setup in RUSSIAN_GAMES:
        kwargs["language"] = "ru"
    game = services.create_game(host, title="A watched game", seed=5, **kwargs)
    set_webhook(host, game.pk, WEBHOOK_URL)  # every announcement goes out too
    for n in range(game.player_cap):
        services.join_game(UserFactory(username=f"watched{n}"), game.pk)
    services.start_game(host, game.pk)
    # Rated: its players' pages and the leaderboard are watched too (ratings at the end).
    Game.objects.filter(pk=game.pk).update(rated=True)
    game.refresh_from_db()
    if not game.anonymous_names:  # the table games: their series' pages are searched too
        as_series_game(game)
    slots = list(game.slots.select_related("user").order_by("seat"))
    town = next(s for s in slots if s.role in INVESTIGATORS)
    moderation.set_moderator(town.user)  # a site moderator who plays in this game
    moderation.set_moderator(UserFactory(username=OUTSIDE_MODERATOR))  # and one who does not
    mafia = next(s for s in slots if s.is_mafia)
    dead = next(s for s in slots if s.role in PLAIN_TOWN)
    # An agent takes over a seat nobody watches: its public page and API answer (its
    # provenance, its refusal and timeout rates: finished games only) are searched too.
    unwatched = next(s for s in slots if s.pk not in {town.pk, mafia.pk, dead.pk})
    agent = agent_services.register_agent(UserFactory(username="agentowner"), "watchedbot")
    services.replace_player(host, game.pk, unwatched.pk, agent.user)
    people = [
        Person("anonymous", None),
        Person("spectator", UserFactory(username="spectator")),
        Person("town", town.user, town.pk),
        Person("mafia", mafia.user, mafia.pk),
        Person("dead", dead.user, dead.pk),
        Person("host", host),
    ]
    if not kwargs["turn_based"]:  # the forum game: a co-host, and one who is removed
        for name in ("cohost", "ex-cohost"):
            people.append(Person(name, UserFactory(username=f"watching{name.replace('-', '')}")))
            services.add_cohost(host, game.pk, people[-1].user.username)
    for person in people:
        if person.name in RUSSIAN_READERS:
            AccountSettings.objects.update_or_create(user=person.user, defaults={"language": "ru"})
    return game, people


def remove_the_ex_cohost(game: Game, host: Any, people: list[Person]) -> None:
    """After the first scan the host removes one co-host: from then on a spectator."""
    ex = next((p for p in people if p.name == "ex-cohost"), None)
    if ex is not None and game.cohosts.filter(user=ex.user).exists():
        services.remove_cohost(host, game.pk, ex.user.pk)


@pytest.mark.parametrize(
    "setup", ["forum-cop-doctor-nine", "city-ten", "classic-ten", "power-nine"]
)
def test_nothing_hidden_leaks_in_a_whole_game(setup, host, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True  # chat.example is then not looked up in the DNS
    settings.BEHAVIOUR_BOARD_MIN_GAMES = 1  # the behaviour leaderboard ranks this one game
    game, people = start(setup, host)
    watched = {p.slot_id for p in people if p.slot_id}
    dead = next(p for p in people if p.name == "dead")
    secrets = Secrets()
    problems: list[str] = []
    seen: dict[str, set[str]] = {}
    town = next(p for p in people if p.name == "town")
    absent_nights: list[int] = []  # the must-act nights the town player sent nothing
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
        write_wills(game, secrets)
        if phase.is_day:
            whisper_secrets(game, people, secrets)
            send_probes(game, secrets)
        if phase.is_night:
            absent = frozenset({town.slot_id}) if game.must_act and not absent_nights else None
            night_actions(game, watched, secrets, absent or frozenset())
            if absent:
                absent_nights.append(phase.number)
        problems += scan(game, people, secrets, f"{phase.label}:", seen)
        remove_the_ex_cohost(game, host, people)
        if phase.is_day and votes_secret_now(game):
            secret_votes_midday(game, watched)
            problems += scan(game, people, secrets, f"{phase.label}, votes cast:", seen)
        if phase.is_night:
            services.cut_deadline_now(host, game.pk)
            if phase.number in absent_nights:  # the site acted for them: they are told
                told = own_result(game, town, phase.number)
                assert told is not None and Slot.objects.get(pk=town.slot_id).alive, setup
                role_pm = Client()
                role_pm.force_login(town.user)
                page = role_pm.get(f"/games/{game.pk}/role/").content.decode()
                assert told in html.unescape(page), setup
        else:
            play_day(game, host, watched, secrets)
    game.refresh_from_db()
    assert game.is_finished, f"{setup} did not end"
    assert not problems, "\n".join(problems[:40])
    # The scan had something to find: hidden roles, secrets, results, actions, explanations.
    kinds = {why.split("'s ")[-1] if "'s " in why else why for why in seen["spectator"]}
    assert {"role", "private result", "a post in the mafia thread"} <= kinds, kinds
    if setup == "forum-cop-doctor-nine":  # the removed co-host was searched as a spectator
        assert any(why.endswith("'s role") for why in seen["ex-cohost"]), seen["ex-cohost"]
        # Nothing of the game is hidden from a co-host (others' bookmark notes still are).
        assert not any(why.endswith(("'s role", "thread")) for why in seen["cohost"])
    assert "a post in the dead thread" in kinds and any("explanation" in k for k in kinds)
    if setup == "forum-cop-doctor-nine":  # must-act: the random action's result and the
        assert game.must_act and absent_nights, setup  # host's note were searched for
        assert "private result (must-act)" in kinds, kinds
        assert "the host note of a random action" in kinds, kinds
        assert "private result (must-act)" not in {w.split("'s ")[-1] for w in seen["town"]}
    assert "bookmark note" in kinds, kinds
    # The audit log held this game's entries, quoting its secrets (an outside moderator's
    # dismissals), which the moderator who plays never saw: the outsider does.
    outsider = Client()
    outsider.force_login(outside_moderator())
    log = outsider.get("/moderation/log/").content.decode()
    assert "Dismissed a report" in log and f"MAFIASECRET{game.pk}x" in log
    if game.secret_votes != "off":  # the forum game: who voted whom was searched for
        assert "who voted whom" in kinds and "who voted whom" in seen["mafia"], kinds
    if game.anonymous_names:  # the forum game: every player's own name was searched for
        assert "real name" in kinds and "real name" in {w.split("'s ")[-1] for w in seen["dead"]}
    if game.blind:  # the forum game: which seat is the agent's was searched for, the host's
        assert "which seat is the agent's" in seen["host"], setup  # pages included
        # and the end shows it: the badge is back, and the players may guess.
        assert "agent-badge" in Client().get(f"/games/{game.pk}/archive/").content.decode()
        guesses = Client().get(f"/api/v1/games/{game.pk}/agent-guesses/").json()
        agent_seat = game.slots.get(user__username=AGENT).seat
        assert [s["seat"] for s in guesses["agent_seats"]] == [agent_seat], guesses
    assert {"a whisper", "that a whisper happened"} <= kinds, kinds
    assert "will" in kinds and "will" in {w.split("'s ")[-1] for w in seen["mafia"]}, kinds
    # Every death posted its will (the last one written) unless cleaned, however it came
    # (a table's or a thread's vote, the night, a modkill); the scan allowed it from then on.
    everything = "".join(p.body for p in game.posts.all())
    cleaned = get_ruleset(game.ruleset).reveals_roles_on_death
    for slot in game.slots.filter(alive=False):
        if slot.pk in secrets.wills and not (cleaned and slot.revealed_role == "unknown"):
            assert secrets.wills[slot.pk][-1] in everything, slot
    # The game over, so did every survivor's (nothing is hidden any more).
    for slot in game.slots.filter(alive=True):
        assert secrets.wills[slot.pk][-1] in everything, slot
    assert "a whisper" in seen["town"] and "a whisper" in seen["mafia"]
    # Every act's thoughts were searched for on everyone's pages, the host's included, and
    # they were kept: the end shows them (``reads.thoughts``).
    assert "a player's thoughts" in seen["host"] and "thoughts" in kinds, kinds
    kept = {t["text"].removeprefix("I reckon ") for t in thoughts_of(game)}
    assert len(kept) > 10 and kept <= set(secrets.thoughts), kept
    assert len(seen["bodies"]) > 150, len(seen["bodies"])
    assert any(b.endswith("spectator/api/v1/agents/watchedbot/") for b in seen["bodies"])
    # The webhook got the announcements (deaths included), and they were searched.
    assert WebhookDelivery.objects.filter(game=game).count() > 5
    assert any(w.endswith("webhook: deliveries") for w in seen["bodies"])
    # Web pushes were searched, and there were some to search (a day starts, L-1...).
    assert any(b.endswith("push: messages") for b in seen["bodies"])
    assert Notification.objects.filter(game=game, kind__in=push.pushed_kinds()).count() > 5
    mailed = {b for b in seen["bodies"] if "e-mail: digest" in b}
    assert any("mafia" in b for b in mailed) and any("town" in b for b in mailed), mailed
    # After the end everything may show, and the archive shows every role to everyone.
    assert not scan(game, people, secrets, "over:")
    archive = Client().get(f"/api/v1/games/{game.pk}/archive/").json()
    everyone = Client().get(f"/api/v1/games/{game.pk}/whispers/").json()
    assert [w["body"] for w in everyone] == [f"psst {m}" for m, _, _ in secrets.whispers]
    assert {s["role"] for s in archive["slots"]} == set(game.slots.values_list("role", flat=True))
    # The open data has them all too: every kept thought (by seat: nobody here lets it name
    # them), every seat's role.
    exported = Client().get(f"/api/v1/games/{game.pk}/export/").json()
    assert {t["text"].removeprefix("I reckon ") for t in exported["thoughts"]} == kept
    # Every player's belief probes were searched for on everyone else's pages, the host's
    # included, and the end shows them: the open data has each seat's own probability.
    assert "a player's probes" in seen["host"] and "a player's probes" in seen["mafia"]
    probes = exported["parts"]["probes"]
    assert probes and all(p["probability"] == probe_value(p["seat"]) for p in probes)
    senders = {s.seat for s in game.slots.filter(pk__in=list(secrets.probes))}
    assert {p["seat"] for p in probes} == senders, senders
    assert {s["role"] for s in exported["seats"]} == {s["role"] for s in archive["slots"]}


def test_the_search_finds_a_russian_role_name_in_any_case_and_an_english_one_whole():
    """The scanner's own search: a Cyrillic token is found with its case ending ("Доктора",
    "Доктором"), an English one only as a whole word ("Don" is not "Don't"); and a role's
    title is searched in every language of the site."""
    tokens = ["Доктор", "Don"]
    pattern = tokens_pattern(tokens)
    found = tokens_found(pattern, tokens, "Проверка показала Доктора; Don't.")
    assert set(found) == {"Доктор"} and found["Доктор"].group(0) == "Доктора"
    assert set(tokens_found(pattern, tokens, "It was Don. Докторантура.")) == {"Don"}
    assert "Доктор" in in_every_language("Doctor") and "Doctor" in in_every_language("Doctor")
