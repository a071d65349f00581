"""The game's records: games, slots, phases, the thread, votes, night actions, the event log.

Models guard their own invariants (unique seats, one action per ability per night, post
numbers per thread) with database constraints; every state *change* goes through
``games.services``, which holds the row locks and writes the ``GameEvent`` log.

Posts are never edited once made (forum rule 3: "Editing a post you made in game, for any
reason will result in a mod kill"). There is no edit path anywhere: a post's ``body`` and
``html`` are written once by ``services.submit_post``; a correction is a new post.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from .event_kinds import KINDS
from .lru import ProcessLRU
from .naming import post_author, shown_name

# (phase id, its start) -> 2 (the phase's count among its kind): see Phase.label.
_PHASE_LABELS: ProcessLRU[int] = ProcessLRU(8192)


def new_seed() -> int:
    """A random 63-bit seed, stored with the game so the deal can be replayed."""
    return secrets.randbits(63)


def resolver_name(seat: int) -> str:
    """The stable name a slot has inside the resolver: replacements keep it."""
    return f"P{seat}"


# Bounds of what a host may ask for, checked by the forms, the API and the services alike
# (beyond them a timedelta overflows or a smallint column refuses the value).
MIN_PHASE_LENGTH = timedelta(minutes=1)
MAX_PHASE_LENGTH = timedelta(days=14)
MAX_PHASE_MINUTES = int(MAX_PHASE_LENGTH.total_seconds() // 60)
MAX_MIN_POSTS_PER_DAY = 1000
# Prods before the host's inactivity action applies ("repeated inactivity"): the services
# act on it, the host's dashboard and "my games" flag the slot.
PRODS_BEFORE_ACTION = 2


class Ruleset(models.TextChoices):
    CITY = "city", _("City mafia")
    CLASSIC = "classic", _("Classic ten-player")
    POWER = "power", _("Power roles")
    FORUM = "forum", _("Forum (mafiascum-style)")


class StartsWith(models.TextChoices):
    DAY = "day", _("Day")
    NIGHT = "night", _("Night")


class VoteRule(models.TextChoices):
    MAJORITY_HAMMER = "majority_hammer", _("Majority, hammer ends the day")
    MAJORITY_LOCK = "majority_lock", _("Majority, one more vote locks the wagon")
    PLURALITY = "plurality", _("Plurality at the deadline")


class InactivityAction(models.TextChoices):
    REPLACE = "replace", _("Replace the player")
    MODKILL = "modkill", _("Modkill the player")


class Openness(models.TextChoices):
    CLOSED = "closed", pgettext_lazy("openness", "Closed")
    SEMI_OPEN = "semi-open", pgettext_lazy("openness", "Semi-open")
    OPEN = "open", pgettext_lazy("openness", "Open")


class GameStatus(models.TextChoices):
    SIGNUPS = "signups", _("Sign-ups")
    RUNNING = "running", _("Running")
    FINISHED = "finished", _("Finished")
    # The host called it off during sign-ups: out of the lobby, its thread kept.
    CANCELLED = "cancelled", _("Cancelled")


class PhaseKind(models.TextChoices):
    DAY = "day", _("Day")
    NIGHT = "night", _("Night")


class DeathCause(models.TextChoices):
    NIGHT = "night", _("Killed at night")
    DAY = "day", _("Eliminated by the vote")
    MODKILL = "modkill", _("Modkilled")
    SHOT = "shot", _("Shot by day")


class Thread(models.TextChoices):
    PUBLIC = "public", _("Game thread")
    MAFIA = "mafia", _("Mafia chat")
    DEAD = "dead", _("Dead thread")
    MASONS = "masons", _("Masons' thread")
    NEIGHBORS = "neighbors", _("Neighbors' thread")


# Roles whose holders share a private thread from day 1 (the resolver's
# ``RoleSpec.private_thread``; a role's thread name is a ``Thread`` value).
ROLE_THREADS = {"mason": Thread.MASONS.value, "neighbor": Thread.NEIGHBORS.value}
TEAM_THREADS = tuple(ROLE_THREADS.values())


class Admits(models.TextChoices):
    """Who may take a seat in a game: people, agents (bots) or both."""

    BOTH = "both", _("People and agents")
    PEOPLE = "people", _("People only")
    AGENTS = "agents", _("Agents only")


class SecretVotes(models.TextChoices):
    """What the vote count shows by day (the host always sees it whole)."""

    OFF = "off", _("Open: the vote count names every voter")
    TOTALS = "totals", _("Secret: the vote count shows totals only until the day ends")
    HIDDEN = "hidden", _("Hidden: no vote count until the day ends")


class Whispers(models.TextChoices):
    """Whether living players may whisper to each other, and whether the thread says so."""

    OFF = "off", _("No whispers")
    PRIVATE = "private", _("Whispers, unseen by the others")
    ANNOUNCED = "announced", _('Whispers, with a public line "A whispered to B"')


class Game(models.Model):
    """One game, from sign-ups to the archive."""

    title = models.CharField(max_length=200)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_games"
    )
    # The language of the thread's automatic posts (announcements, vote counts, the role PMs'
    # texts), chosen by the host: games.i18n.in_game_language.
    language = models.CharField(max_length=8, choices=settings.LANGUAGES, default="en")
    setup = models.CharField(
        max_length=50, blank=True, help_text="Slug of the ready-made setup it started from."
    )
    ruleset = models.CharField(max_length=20, choices=Ruleset.choices)
    method = models.CharField(
        max_length=20, blank=True, help_text="Night resolution method; blank = the rule set's."
    )
    flags = models.JSONField(default=dict, blank=True)
    role_list = models.JSONField(
        default=list,
        help_text='[{"role": "cop", "count": 1, "modifiers": [], "alignment": "town"}, ...]',
    )
    day_length = models.DurationField(default=timedelta(hours=24))
    night_length = models.DurationField(default=timedelta(hours=12))
    player_cap = models.PositiveSmallIntegerField()
    starts_with = models.CharField(max_length=5, choices=StartsWith.choices, default="day")
    vote_rule = models.CharField(max_length=20, choices=VoteRule.choices, default="plurality")
    no_night_posting = models.BooleanField(default=True)
    self_vote_allowed = models.BooleanField(default=False)
    skip_vote_allowed = models.BooleanField(
        default=True, help_text='Players may vote "no elimination".'
    )
    vote_modifiers_public = models.BooleanField(
        default=False,
        help_text="The public vote count names vote modifiers (loved, hated, double voter).",
    )
    lynch_proof_ends_day = models.BooleanField(
        default=False,
        help_text="A lynch-proof player's wagon reaching the threshold ends the day without "
        "an elimination (otherwise the day goes on).",
    )
    openness = models.CharField(
        max_length=10,
        choices=Openness.choices,
        default="closed",
        help_text="Open: the role list is public; semi-open: the roles it may hold are.",
    )
    vote_count_every = models.DurationField(
        null=True, blank=True, help_text="The site posts a numbered vote count this often by day."
    )
    min_posts_per_day = models.PositiveSmallIntegerField(default=0, help_text="0 = off")
    inactivity_action = models.CharField(
        max_length=10, choices=InactivityAction.choices, default="replace"
    )
    # Table games (city, classic, power): the day is a sequence of turns run by the rule
    # set's day script (resolver.days), not a free thread.
    turn_based = models.BooleanField(
        default=False, help_text="Days run turn by turn (city, classic and power only)."
    )
    turn_length = models.DurationField(
        default=timedelta(minutes=2), help_text="Time for one turn (a speech, a question...)."
    )
    vote_length = models.DurationField(
        default=timedelta(minutes=2), help_text="Time for a table day's vote."
    )
    day_settings = models.JSONField(
        default=dict, blank=True, help_text="The day script's settings (word limit, budget...)."
    )
    seats_in_signup_order = models.BooleanField(
        default=False,
        help_text="Seats follow the sign-up order (forum games only); otherwise they are "
        "dealt at random when the game starts.",
    )
    admits = models.CharField(
        max_length=10,
        choices=Admits.choices,
        default="both",
        help_text="Who may take a seat: people, agents or both.",
    )
    # The variants (issue 33): each a setting of ``games.game_settings``.
    post_limit = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Posts per living player per day; blank: no limit."
    )
    post_limit_lifted = models.DurationField(
        null=True, blank=True, help_text="The post limit is lifted this long before the deadline."
    )
    secret_votes = models.CharField(
        max_length=9, choices=SecretVotes.choices, default=SecretVotes.OFF
    )
    last_wills = models.BooleanField(default=False, help_text="A player's will is posted at death.")
    whispers = models.CharField(max_length=9, choices=Whispers.choices, default=Whispers.OFF)
    anonymous_names = models.BooleanField(
        default=False, help_text="Players play under names from a deck, revealed at the end."
    )
    must_act = models.BooleanField(
        default=False, help_text="A night action not sent is taken at random."
    )
    # A blind game (``game_settings``' ``blind``): which seats are agents stays hidden from
    # everyone until the end (``reads.agents.agents_hidden``); then the players guess.
    blind = models.BooleanField(
        default=False, help_text="Agent badges are hidden until the game ends."
    )
    # A league game (the league app's queues): made by a matchmaking queue, no host to wait
    # for; a rated game's end updates its players' ratings once (the ratings app).
    league_setup = models.CharField(
        max_length=50, blank=True, help_text="The matchmaking queue that made it, if any."
    )
    rated = models.BooleanField(default=False)
    ratings_tried_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the sweep last failed to rate it (it tries the least recent first).",
    )
    status = models.CharField(max_length=10, choices=GameStatus.choices, default="signups")
    seed = models.BigIntegerField(default=new_seed)
    phase_number = models.PositiveIntegerField(default=0, help_text="The current phase; 0 before.")
    winner = models.CharField(max_length=30, blank=True)
    win_reason = models.TextField(blank=True)
    co_winners = models.JSONField(default=list, blank=True)
    resolver_state = models.JSONField(
        null=True, blank=True, help_text="resolver GameState.to_dict() after the last phase."
    )
    event_seq = models.PositiveBigIntegerField(default=0)
    # The seq of the last transaction that wrote more than plain posts: the slots, phases,
    # votes and V/LA change only then, so pages keep what they read of them per state_seq
    # (``games.reads.snapshot``) and a chatty thread's posts do not throw it away.
    state_seq = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "-created_at"])]

    def __str__(self) -> str:
        return self.title

    @property
    def is_signups(self) -> bool:
        return self.status == GameStatus.SIGNUPS

    @property
    def is_running(self) -> bool:
        return self.status == GameStatus.RUNNING

    @property
    def is_finished(self) -> bool:
        return self.status == GameStatus.FINISHED

    @property
    def is_cancelled(self) -> bool:
        return self.status == GameStatus.CANCELLED

    @property
    def uses_majority(self) -> bool:
        return self.vote_rule in (VoteRule.MAJORITY_HAMMER, VoteRule.MAJORITY_LOCK)

    @property
    def role_count(self) -> int:
        return sum(int(entry.get("count", 1)) for entry in self.role_list)

    def current_phase(self) -> Phase | None:
        if not self.phase_number:
            return None
        return self.phases.filter(number=self.phase_number).first()

    def phase_length(self, kind: str) -> timedelta:
        return self.day_length if kind == PhaseKind.DAY else self.night_length


class Slot(models.Model):
    """A seat in a game (the forum's "slot"): a replacement takes over the same slot.

    ``user`` is the current occupant. Role fields are blank during sign-ups and are dealt
    at the start; they are hidden information until the game ends.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="slots")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="slots"
    )
    role = models.CharField(max_length=40, blank=True)
    alignment = models.CharField(max_length=20, blank=True)
    modifiers = models.JSONField(default=list, blank=True)
    sanity = models.CharField(max_length=20, default="sane")
    immune = models.BooleanField(default=False, help_text="City: holds an immunity card.")
    executioner_target = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    alive = models.BooleanField(default=True)
    died_in_phase = models.PositiveIntegerField(null=True, blank=True)
    death_cause = models.CharField(max_length=10, choices=DeathCause.choices, blank=True)
    revealed_role = models.CharField(
        max_length=40,
        blank=True,
        help_text="The role shown publicly at death ('unknown' if cleaned).",
    )
    prods = models.PositiveSmallIntegerField(default=0, help_text="Inactivity prods received.")
    # The seat's API acts the rules refused (``games.api.errors``), kept as a count since a
    # refused act leaves nothing else on the record: an agent's refusal rate reads it once
    # the game is over (the agents app's ``provenance``), never before (a refusal at night
    # would tell that the seat has a night action).
    refusals = models.PositiveIntegerField(default=0)
    joined_at = models.DateTimeField(auto_now_add=True)
    # Variants: the last will (posted at death when the game has ``last_wills``) and the
    # masked name an anonymous game gives the seat (``anonymous_names``).
    will = models.TextField(blank=True, default="")
    will_updated_at = models.DateTimeField(null=True, blank=True)
    mask_name = models.CharField(max_length=40, blank=True, default="")

    class Meta:
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="slot_unique_seat"),
            models.UniqueConstraint(fields=["game", "user"], name="slot_unique_user"),
        ]

    def __str__(self) -> str:
        return f"{self.display_name} (seat {self.seat})"

    @property
    def resolver_name(self) -> str:
        return resolver_name(self.seat)

    @property
    def display_name(self) -> str:
        """The seat's name as everyone but the host sees it (``naming.shown_name``: the
        masked name while an anonymous game runs)."""
        if not self.mask_name:
            return self.user.get_username()
        return shown_name(self.game, self.mask_name, self.user.get_username())

    @property
    def real_name(self) -> str:
        """The occupant's own name, for the host (and the player) of an anonymous game."""
        return self.user.get_username()

    @property
    def host_name(self) -> str:
        """The name the host's pages show: "Mask (real)" under a mask, else the name."""
        if not self.mask_name:
            return self.user.get_username()
        return f"{self.mask_name} ({self.user.get_username()})"

    @property
    def is_mafia(self) -> bool:
        return self.alignment == "mafia"

    @property
    def is_mason(self) -> bool:
        return self.role == "mason"

    @property
    def private_thread(self) -> str | None:
        """The day-1 private thread the slot's role shares (masons, neighbors), or None."""
        return ROLE_THREADS.get(self.role)


class Replacement(models.Model):
    """History of who held a slot: the forum's "X replaces Y"."""

    slot = models.ForeignKey(Slot, on_delete=models.CASCADE, related_name="replacements")
    old_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    new_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    phase_number = models.PositiveIntegerField(null=True, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["at", "id"]


class Phase(models.Model):
    """A day or a night. ``report`` is the resolver's phase report, in resolver names."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="phases")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=5, choices=PhaseKind.choices)
    started_at = models.DateTimeField()
    deadline = models.DateTimeField(null=True, blank=True, help_text="None while paused.")
    paused_remaining = models.DurationField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    resolved = models.BooleanField(default=False)
    report = models.JSONField(null=True, blank=True)
    revote = models.JSONField(
        null=True,
        blank=True,
        help_text="Classic: slot ids of the tied players while the day is in its revote.",
    )
    final_count = models.JSONField(
        null=True,
        blank=True,
        help_text="The day's vote count as it stood when the day ended (vote_count() data).",
    )
    announcements = models.JSONField(
        default=list,
        blank=True,
        help_text="Numbers of the site's public posts the phase banner links to.",
    )
    # A table day: the day script's state (resolver DayState.to_dict(), resolver names);
    # ``deadline`` is then the current turn's (or vote's) deadline, and ``turn_seq``
    # counts the turns so a turn's timer fires exactly once.
    day_state = models.JSONField(null=True, blank=True)
    night_refusals = models.JSONField(
        default=dict,
        blank=True,
        help_text="Refused night actions per '<slot id>:<ability>' (the rules' night_attempts).",
    )
    turn_seq = models.PositiveIntegerField(default=0)
    night_zero = models.BooleanField(
        default=False, help_text="Classic night zero: the mafia talk, nobody acts."
    )

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="phase_unique_number"),
        ]
        indexes = [models.Index(fields=["resolved", "deadline"])]

    def __str__(self) -> str:
        return f"{self.label} of {self.game}"

    @property
    def is_day(self) -> bool:
        return self.kind == PhaseKind.DAY

    @property
    def is_night(self) -> bool:
        return self.kind == PhaseKind.NIGHT

    @property
    def is_paused(self) -> bool:
        return self.paused_remaining is not None

    @property
    def in_revote(self) -> bool:
        return self.revote is not None

    @property
    def is_table_day(self) -> bool:
        return self.day_state is not None

    @property
    def label(self) -> str:
        """Forum style: "Day 1", "Night 2" (counting days and nights separately). A classic
        game's first night is "Night 0" (its rules' night zero) and the count goes on from
        there, so its first night with actions is Night 1. In the active language (a page's
        reader's, or the game's in an announcement): only the count is kept."""
        count = self.kind_count
        if self.kind == PhaseKind.NIGHT:
            return gettext("Night %(number)s") % {"number": count}
        return gettext("Day %(number)s") % {"number": count}

    @cached_property  # a phase's kind and number never change; pages read it several times
    def kind_count(self) -> int:
        """This phase's number among the game's phases of its kind (see ``label``)."""
        # The phases before this one never change either: one count per process and phase.
        key = (self.pk, self.started_at)
        count = _PHASE_LABELS.get(key)
        if count is None:
            counted = self.game.phases.filter(kind=self.kind, number__lte=self.number).aggregate(
                same_kind=models.Count("id"),
                night_zero=models.Count("id", filter=models.Q(night_zero=True)),
            )
            count = counted["same_kind"] - counted["night_zero"]
            if self.pk is not None:
                _PHASE_LABELS.put(key, count)
        return count

    @classmethod
    def read_labels(cls, phases: list[Phase]) -> None:
        """Work out the ``label`` of phases of several games in one query (a list of games
        would otherwise count each game's phases on its own), by the same count."""
        wanted = [p for p in phases if p.pk is not None and "kind_count" not in p.__dict__]
        if not wanted:
            return
        rows = list(
            cls.objects.filter(game_id__in={p.game_id for p in wanted}).values_list(
                "game_id", "kind", "number", "night_zero"
            )
        )
        for phase in wanted:
            same = [
                r
                for r in rows
                if r[0] == phase.game_id and r[1] == phase.kind and r[2] <= phase.number
            ]
            counted = len(same) - sum(1 for r in same if r[3])
            _PHASE_LABELS.put((phase.pk, phase.started_at), counted)
            phase.__dict__["kind_count"] = counted


class Post(models.Model):
    """One post in a thread. Never edited (forum rule 3); see the module docstring."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="posts")
    thread = models.CharField(max_length=10, choices=Thread.choices, default="public")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="game_posts"
    )
    slot = models.ForeignKey(
        Slot, null=True, blank=True, on_delete=models.PROTECT, related_name="posts"
    )
    # SET_NULL, not PROTECT: a game's deletion cascades to its phases and its posts alike.
    phase = models.ForeignKey(
        Phase, null=True, blank=True, on_delete=models.SET_NULL, related_name="posts"
    )
    number = models.PositiveIntegerField()
    body = models.TextField()
    html = models.TextField()
    is_host = models.BooleanField(default=False)
    is_auto = models.BooleanField(
        default=False, help_text="Written by the site for the host (an announcement)."
    )
    vote_note = models.TextField(
        blank=True, help_text="Why the post's bold vote did not count (shown under the post)."
    )
    # A power question's addressee: the seat, and its player's name when asked (a later
    # replacement does not rewrite who was asked).
    to = models.ForeignKey(
        Slot, null=True, blank=True, on_delete=models.PROTECT, related_name="questions"
    )
    to_name = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    @property
    def author_name(self) -> str:
        """The name the post is signed with: its seat's (``naming.shown_name``), the host's
        or a sign-up's own. A page of posts has them given at once (``naming.sign_posts``)."""
        named = self.__dict__.get("_author_name")
        if named is None:
            real = self.author.get_username()
            slot = self.slot if self.slot_id else None
            if slot is not None and slot.mask_name:
                in_a_phase = self.phase_id is not None
                named = post_author(slot.game, slot.mask_name, real, in_a_phase=in_a_phase)
            else:
                named = real
        return str(named)

    @author_name.setter
    def author_name(self, value: str) -> None:
        self.__dict__["_author_name"] = value

    class Meta:
        ordering = ["game", "thread", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "thread", "number"], name="post_unique_number"),
        ]
        # One player's posts in order (the ISO view) are an index range; the per-player
        # counts read the same index.
        indexes = [
            models.Index(fields=["game", "thread", "slot", "number"], name="post_iso"),
        ]

    def __str__(self) -> str:
        return f"#{self.number} in {self.thread} of {self.game_id}"


class Whisper(models.Model):
    """A private message between two living players (the ``whispers`` variant): read by
    its two players and the host until the game ends, then by everyone."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="whisper_set")
    phase = models.ForeignKey(
        Phase, null=True, blank=True, on_delete=models.SET_NULL, related_name="whispers"
    )
    sender = models.ForeignKey(Slot, on_delete=models.PROTECT, related_name="whispers_sent")
    recipient = models.ForeignKey(Slot, on_delete=models.PROTECT, related_name="whispers_received")
    number = models.PositiveIntegerField(help_text="The whisper's number within its game.")
    body = models.TextField()
    html = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="whisper_unique_number"),
        ]

    def __str__(self) -> str:
        return f"whisper {self.number} of {self.game_id}"


class Bookmark(models.Model):
    """A post a person marked, with their private note ("My bookmarks")."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bookmarks"
    )
    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="bookmarks")
    note = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["user", "post"], name="bookmark_once"),
        ]


class CoHostKind(models.TextChoices):
    COHOST = "cohost", _("Co-host")
    BACKUP = "backup", _("Backup host")


class CoHost(models.Model):
    """A co-host or backup host: the host's powers in one game (the host adds them)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="cohosts")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="cohosted"
    )
    kind = models.CharField(max_length=6, choices=CoHostKind.choices, default=CoHostKind.COHOST)
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "added_at"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="cohost_once"),
        ]


class VoteKind(models.TextChoices):
    VOTE = "vote", pgettext_lazy("vote kind", "Vote")
    UNVOTE = "unvote", pgettext_lazy("vote kind", "Unvote")


class Vote(models.Model):
    """The vote log: a voter's current vote is their latest row of the day (or revote).

    ``target`` None on a ``vote`` row means "no elimination" (skip).
    """

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="votes")
    voter = models.ForeignKey(Slot, on_delete=models.CASCADE, related_name="votes_cast")
    target = models.ForeignKey(
        Slot, null=True, blank=True, on_delete=models.CASCADE, related_name="votes_received"
    )
    kind = models.CharField(max_length=6, choices=VoteKind.choices, default="vote")
    post = models.ForeignKey(
        Post, null=True, blank=True, on_delete=models.SET_NULL, related_name="votes"
    )
    revote = models.BooleanField(default=False, help_text="Cast in the classic revote.")
    locked = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["phase", "id"]
        indexes = [models.Index(fields=["phase", "voter", "id"])]

    @property
    def is_skip(self) -> bool:
        return self.kind == VoteKind.VOTE and self.target_id is None


class Nomination(models.Model):
    """Classic: a player puts another (or "skip") on the ballot; one per player per day."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="nominations")
    nominator = models.ForeignKey(Slot, on_delete=models.CASCADE, related_name="nominations")
    target = models.ForeignKey(
        Slot, null=True, blank=True, on_delete=models.CASCADE, related_name="nominated_in"
    )
    post = models.ForeignKey(
        Post, null=True, blank=True, on_delete=models.SET_NULL, related_name="nominations"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["phase", "id"]
        constraints = [
            models.UniqueConstraint(fields=["phase", "nominator"], name="nomination_once"),
        ]


class NightAction(models.Model):
    """A submitted night action; changeable until the deadline. Targets are slot ids."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="night_actions")
    actor = models.ForeignKey(Slot, on_delete=models.CASCADE, related_name="night_actions")
    ability = models.CharField(max_length=30)
    targets = models.JSONField(default=list)
    extra = models.JSONField(default=dict, blank=True)
    submitted_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # The resolver lets the last of several faction kills stand: keep submission order.
        ordering = ["phase", "updated_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["phase", "actor", "ability"], name="night_action_once"),
        ]


class DayAction(models.Model):
    """A day action used in the thread (a day vigilante's shot, a day investigation):
    resolved at once by the resolver; ``report`` is its ``DayActionOutcome.to_report()``
    in resolver names (the host and, after the game, the archive read it)."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="day_actions")
    actor = models.ForeignKey(Slot, on_delete=models.CASCADE, related_name="day_actions")
    ability = models.CharField(max_length=30)
    targets = models.JSONField(default=list, help_text="Slot ids.")
    report = models.JSONField(default=dict)
    post = models.ForeignKey(
        "Post", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["phase", "id"]


class PrivateResult(models.Model):
    """A player's own feedback from a night (an investigation, a track...)."""

    slot = models.ForeignKey(Slot, on_delete=models.CASCADE, related_name="private_results")
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="private_results")
    payload = models.JSONField(help_text="The resolver's result object (resolver names).")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["phase", "id"]


class ThoughtAct(models.TextChoices):
    """The acts that may carry a player's thoughts (through the API)."""

    POST = "post", _("A post")
    VOTE = "vote", _("A vote")
    NOMINATION = "nomination", _("A nomination")
    NIGHT_ACTION = "night_action", _("A night action")
    DAY_ACTION = "day_action", _("A day action")
    PASS = "pass", _("A pass")


MAX_THOUGHTS_LENGTH = 4_000


class Thought(models.Model):
    """A player's private reasoning, sent with one of their acts (``thoughts``): read by
    nobody, not the host nor the team, until the game ends; then by everyone, in the review
    and the export. Never an event: nothing of it travels live."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="thoughts")
    slot = models.ForeignKey(Slot, on_delete=models.CASCADE, related_name="thoughts")
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, null=True, related_name="+")
    act = models.CharField(max_length=20, choices=ThoughtAct.choices)
    # The post the act made, if it made one (a post, a vote by the button).
    post = models.ForeignKey(Post, on_delete=models.SET_NULL, null=True, related_name="+")
    text = models.TextField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]


class OpenDataConsent(models.Model):
    """A person lets the site's open data name them (``games.reads.export``): present, their
    name appears in exported games; absent, they are named by their seat only. Agents' names
    are always exported (an agent is a program, and its games are its record)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="open_data_consent"
    )
    agreed_at = models.DateTimeField()


# The declared kinds (``games.event_kinds``): adding one there changes only these choices.
KIND_CHOICES = [(name, name.replace("_", " ")) for name in sorted(KINDS)]


class GameEvent(models.Model):
    """The game's event log: every state change appends here in its own transaction.

    ``kind`` is declared in ``games.event_kinds`` (with its payload's schema and the
    audiences it may have). ``audience`` says who may see it: "public", "host",
    "slot:<id>", "mafia", "dead", "masons". The host may see every audience; after the
    game ends everyone may.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveBigIntegerField()
    kind = models.CharField(max_length=40, choices=KIND_CHOICES)
    audience = models.CharField(max_length=30, default="public")
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.kind} -> {self.audience}"


class DeadlineSweep(models.Model):
    """When each kind of deadline sweeper last looked for due phases.

    Every sweeper writes its row (the Celery scan, the web process's watchdog, the embedded
    scanner), so ``/healthz`` and the host dashboard can tell whether deadlines are being
    kept even when the broker, and so Redis, is down.
    """

    sweeper = models.CharField(max_length=40, primary_key=True)
    swept_at = models.DateTimeField()
    found = models.PositiveIntegerField(default=0)  # due phases it found that time

    def __str__(self) -> str:
        return f"{self.sweeper} at {self.swept_at:%Y-%m-%d %H:%M:%S}"


class VoteCountPost(models.Model):
    """A numbered vote count posted in the thread ("Vote count 2.3": day 2, third count),
    on the host's request or on the game's schedule. ``last_vote`` is the newest vote row
    it counted: the votes since the previous count are the ones that changed it."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="count_posts")
    number = models.PositiveIntegerField(help_text="The count's number within its day.")
    label = models.CharField(max_length=40)
    post = models.ForeignKey(Post, null=True, on_delete=models.SET_NULL, related_name="+")
    last_vote = models.ForeignKey(
        Vote, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    data = models.JSONField(help_text="The vote count as posted (vote_count.vote_count()).")
    created_at = models.DateTimeField(default=timezone.now)  # the service passes its now

    class Meta:
        ordering = ["phase", "number"]
        constraints = [
            models.UniqueConstraint(fields=["phase", "number"], name="count_post_unique_number"),
        ]


class Absence(models.Model):
    """V/LA: a player's dates away (inclusive). Prods skip them; counts show them."""

    slot = models.ForeignKey(Slot, on_delete=models.CASCADE, related_name="absences")
    starts = models.DateField()
    ends = models.DateField()
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slot", "starts"]


class ReplacementSignup(models.Model):
    """A user in a game's replacement queue, first come first served."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="replacement_queue")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="replacement_signup_once"),
        ]


class SavedSetup(models.Model):
    """A host's own setup, saved from the create form for reuse: ``data`` holds the
    ``create_game`` keyword arguments (lengths in seconds)."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_setups"
    )
    name = models.CharField(max_length=100)
    ruleset = models.CharField(max_length=20, choices=Ruleset.choices)
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]


class SimulationRun(models.Model):
    """A balance simulation of a setup (``games.simulator``), run by a Celery worker:
    ``done`` of ``games`` played so far and the wins per faction."""

    setup = models.CharField(max_length=50, help_text="A ready-made setup's slug.")
    saved_setup = models.ForeignKey(SavedSetup, null=True, blank=True, on_delete=models.CASCADE)
    games = models.PositiveIntegerField()
    done = models.PositiveIntegerField(default=0)
    wins = models.JSONField(default=dict)
    status = models.CharField(max_length=10, default="queued")  # queued, running, done, failed
    error = models.TextField(blank=True)
    seed = models.BigIntegerField(default=new_seed)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]


# -- reading progress (thread visits) and presence ----------------------------------------
class ThreadVisit(models.Model):
    """How far a person has read a thread of a game: the newest post number they were
    shown and when. Written when they open the thread (``services.visits``), read by
    "my games" for the unread counts."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="thread_visits"
    )
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    thread = models.CharField(max_length=10, choices=Thread.choices)
    last_post_number = models.PositiveIntegerField(default=0)
    visited_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game", "thread"], name="thread_visit_once"),
        ]


class GamePresence(models.Model):
    """A signed-in person has a game's page open: written by the game socket on connect,
    on each ping (every 30 s) and on disconnect. Time-based, so a crashed web process
    leaves nothing stuck: "open" means ``open`` and seen within ``OPEN_WINDOW`` (see
    ``games.presence``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    last_seen = models.DateTimeField(default=timezone.now)
    open = models.BooleanField(default=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="presence_one_per_user_game")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on game {self.game_id} at {self.last_seen}"


class Agent(models.Model):
    """A bot account: a user of its own (it holds seats, posts and votes like anyone), owned
    by the person who registered it. It signs in only with its tokens (``AgentToken``)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agent"
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="agents"
    )
    description = models.TextField(blank=True, max_length=2000)
    code_url = models.URLField(blank=True, help_text="Where its code can be read.")
    # Provenance, as its owner states it: what plays ("gpt-5", "reference bot") and which
    # version of it. Free text the site does not check against anything.
    model_name = models.CharField(max_length=80, blank=True, help_text="The model that plays.")
    model_version = models.CharField(max_length=40, blank=True, help_text="Its version.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"agent {self.user_id} of {self.owner_id}"


class ApiToken(models.Model):
    """What every API token keeps, an agent's or a person's: only the SHA-256 of the key
    (the key is shown once, when it is made), its first characters to tell it by, and its
    times. A revoked token stays listed (with its time) and signs in no one."""

    name = models.CharField(max_length=80, blank=True)
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12, help_text="The key's first characters, to tell it.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


class AgentToken(ApiToken):
    """One API token of an agent (several per agent, each revocable)."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="tokens")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"token {self.prefix}… of agent {self.agent_id}"

    @property
    def revoke_url(self) -> str:
        return reverse("agents:token_revoke", args=[self.agent.user.get_username(), self.pk])


class PersonToken(ApiToken):
    """One API token of a person (``POST /api/v1/auth/token/`` makes one each time). A
    password change or reset revokes them all."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="person_tokens"
    )

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"token {self.prefix}… of person {self.user_id}"

    @property
    def revoke_url(self) -> str:
        return reverse("person_token_revoke", args=[self.pk])


# -- moderation (games.services.moderation) -----------------------------------------------
class ReportReason(models.TextChoices):
    """Why someone reports a post or a player, and why a moderator acts: one fixed list."""

    SPAM = "spam", _("Spam or advertising")
    ABUSE = "abuse", _("Harassment or personal attacks")
    HATE = "hate", _("Hate speech or slurs")
    CHEATING = "cheating", _("Cheating: sharing the game outside its threads")
    ALT = "alt", _("An undeclared second account")
    THROWING = "throwing", _("Throwing the game or playing against their win condition")
    INACTIVITY = "inactivity", _("Abandoning games")
    OTHER = "other", _("Something else (say what)")


class ReportStatus(models.TextChoices):
    OPEN = "open", pgettext_lazy("report status", "Open")
    DISMISSED = "dismissed", pgettext_lazy("report status", "Dismissed")
    ACTIONED = "actioned", pgettext_lazy("report status", "Acted on")


class Report(models.Model):
    """A report of one post or one player, for the site's moderators (not the game's host).
    ``game`` is the game it is about (the post's, or where the player was reported from):
    while that game runs, moderators who hold a seat in it never see the report."""

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made"
    )
    post = models.ForeignKey(
        Post, null=True, blank=True, on_delete=models.CASCADE, related_name="reports"
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="reports_about",
        help_text="The person reported (a post's author for a post).",
    )
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="reports"
    )
    reason = models.CharField(max_length=20, choices=ReportReason.choices)
    text = models.TextField(max_length=2000, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(
        max_length=10, choices=ReportStatus.choices, default=ReportStatus.OPEN
    )
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reports_handled",
    )
    handled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["status", "created_at"], name="report_queue")]
        # The site moderator's permission (a group "Moderators" holds it: ``manage.py
        # moderators``); separate from hosting a game.
        permissions = [("moderate", "Can moderate the site: reports, sanctions, appeals")]

    def __str__(self) -> str:
        return f"report {self.pk} ({self.reason}, {self.status})"


class SanctionKind(models.TextChoices):
    WARN = "warn", _("Warning")
    MUTE = "mute", _("Mute (no posting)")
    SUSPEND = "suspend", _("Suspension")
    BAN = "ban", _("Ban")


# Sanctions that take the account (and its agents) off the site while in force.
REMOVALS = (SanctionKind.SUSPEND, SanctionKind.BAN)


class SanctionQuerySet(models.QuerySet["Sanction"]):
    def in_force(self, now: object = None) -> SanctionQuerySet:
        """Mutes, suspensions and bans not lifted and not over (a warning is never in
        force: it is only told)."""
        at = now or timezone.now()
        return self.exclude(kind=SanctionKind.WARN).filter(
            models.Q(ends_at__isnull=True) | models.Q(ends_at__gt=at), lifted_at__isnull=True
        )

    def removals(self) -> SanctionQuerySet:
        """Suspensions and bans: they take the account off the site."""
        return self.filter(kind__in=REMOVALS)


class Sanction(models.Model):
    """A moderator's action on a person: a warning, a mute or suspension for some days, or
    a ban. A suspension or ban deactivates the account (and its agents) until it is lifted:
    at its end (the sweep), on appeal, or by a moderator."""

    objects = SanctionQuerySet.as_manager()

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sanctions"
    )
    kind = models.CharField(max_length=10, choices=SanctionKind.choices)
    reason = models.CharField(max_length=20, choices=ReportReason.choices)
    note = models.TextField(max_length=2000, blank=True, help_text="What the person is told.")
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="sanctions_given"
    )
    report = models.ForeignKey(
        Report, null=True, blank=True, on_delete=models.SET_NULL, related_name="sanctions"
    )
    created_at = models.DateTimeField(default=timezone.now)
    ends_at = models.DateTimeField(null=True, blank=True, help_text="Blank: for good.")
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="sanctions_lifted",
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(
                fields=["ends_at"],
                condition=models.Q(lifted_at__isnull=True, ends_at__isnull=False),
                name="sanction_to_lift",
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} of {self.user_id}"


class Appeal(models.Model):
    """The one appeal a person may make against a sanction, answered by another moderator
    than the one who acted."""

    sanction = models.OneToOneField(Sanction, on_delete=models.CASCADE, related_name="appeal")
    text = models.TextField(max_length=4000)
    created_at = models.DateTimeField(default=timezone.now)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="appeals_answered",
    )
    answered_at = models.DateTimeField(null=True, blank=True)
    granted = models.BooleanField(null=True, blank=True)
    answer = models.TextField(max_length=2000, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"appeal of sanction {self.sanction_id}"


class ModerationAction(models.TextChoices):
    DISMISSED = "dismissed", _("Dismissed a report")
    WARNED = "warned", _("Warned")
    MUTED = "muted", _("Muted")
    SUSPENDED = "suspended", _("Suspended")
    BANNED = "banned", _("Banned")
    LIFTED = "lifted", _("Lifted a sanction")
    EXPIRED = "expired", _("A sanction ended")
    APPEAL_GRANTED = "appeal_granted", _("Granted an appeal")
    APPEAL_REFUSED = "appeal_refused", _("Refused an appeal")
    ALT_APPROVED = "alt_approved", _("Approved an alternate account")
    ALT_REFUSED = "alt_refused", _("Refused an alternate account")


class ModerationLogEntry(models.Model):
    """The audit log: every moderator's action (and every sanction's end), for anyone with
    the permission. Written in the same transaction as the action."""

    at = models.DateTimeField(default=timezone.now)
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Blank: the site (a sanction that ran out).",
    )
    action = models.CharField(max_length=20, choices=ModerationAction.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The person acted on.",
    )
    report = models.ForeignKey(Report, null=True, blank=True, on_delete=models.SET_NULL)
    sanction = models.ForeignKey(Sanction, null=True, blank=True, on_delete=models.SET_NULL)
    reason = models.CharField(max_length=20, choices=ReportReason.choices, blank=True)
    note = models.TextField(max_length=2000, blank=True)

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.action} at {self.at:%Y-%m-%d %H:%M}"


class AltStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for a moderator")
    APPROVED = "approved", pgettext_lazy("alternate account", "Approved")
    REFUSED = "refused", pgettext_lazy("alternate account", "Refused")


class AltAccount(models.Model):
    """A declared alternate account: ``alt`` says it belongs to the same person as ``main``.
    Once a moderator approves it, the two never hold seats in the same game."""

    alt = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="alt_declaration"
    )
    main = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="declared_alts"
    )
    note = models.TextField(max_length=1000, blank=True)
    declared_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=10, choices=AltStatus.choices, default=AltStatus.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.alt_id} is an alt of {self.main_id} ({self.status})"


class AccountSettings(models.Model):
    """What a person chose for their account that is not a notification setting: the language
    of their pages, mails and notifications (blank: the browser's, as LocaleMiddleware reads
    it). Sign-up sets it from the browser (games.i18n)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="account_settings",
    )
    language = models.CharField(max_length=8, choices=settings.LANGUAGES, blank=True)

    def __str__(self) -> str:
        return f"account settings of {self.user_id}"
