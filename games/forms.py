"""Forms of the web pages. They check the shape of input; the rules are checked by the
services (and, through them, the resolver), whose errors are put back on these forms."""

from __future__ import annotations

import re
import unicodedata
from datetime import timedelta
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.forms import formset_factory

from resolver.days import get_day_script
from resolver.rulesets import get_ruleset
from resolver.rulesets.base import FlagSpec
from resolver.rulesets.base import Ruleset as ResolverRuleset

from . import display
from .confusables import confusable_with
from .errors import GameRuleError
from .models import (
    MAX_MIN_POSTS_PER_DAY,
    MAX_PHASE_LENGTH,
    MAX_PHASE_MINUTES,
    MAX_PLAYER_CAP,
    MIN_PHASE_LENGTH,
    InactivityAction,
    Openness,
    Ruleset,
    StartsWith,
    Thread,
    VoteRule,
)
from .plain_text import use_plain_text

UNITS = {"minutes": timedelta(minutes=1), "hours": timedelta(hours=1), "days": timedelta(days=1)}
UNIT_CHOICES = [(u, u) for u in UNITS]
# Flags the site sets from its own fields (vote rule, self-vote, skip vote): not shown twice.
SITE_FLAGS = {"dayVote", "selfVote", "noEliminationVote"}


class PlainTextForm:
    """Mixed into every form of the site: its text fields follow ``games.plain_text``, as
    the API's do. Applied when the form is cleaned, so fields added in ``__init__`` count."""

    fields: dict[str, forms.Field]

    def full_clean(self) -> None:
        use_plain_text(self.fields.values())
        super().full_clean()  # type: ignore[misc]


class SiteForm(PlainTextForm, forms.Form):
    """The base of the site's own forms."""


def form_message(form: forms.BaseForm) -> str:
    """A form's errors as one sentence for a page's message ("Note: ...")."""
    parts = []
    for name, errors in form.errors.items():
        field = form.fields.get(name)
        label = (field.label or name.replace("_", " ").capitalize()) if field else ""
        parts.append(f"{label}: {' '.join(errors)}" if label else " ".join(errors))
    return " ".join(parts)


# Letters and digits of any script, and . @ + - _, in words separated by single spaces.
USERNAME = re.compile(r"[\w.@+-]+(?: [\w.@+-]+)*")


class LoginForm(PlainTextForm, AuthenticationForm):
    """Django's login form (it reads the name as NFKC, e.g. full-width letters as ASCII)."""


class SignUpForm(PlainTextForm, UserCreationForm):
    """A new account. The name may have spaces and any script's letters, but must not look
    like an existing name (``games.confusables``): "\u0440l7" with a Cyrillic "\u0440" is refused
    beside "pl7", as is "Alice" beside "alice"."""

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields[
            "username"
        ].help_text = "Up to 150 characters: letters, digits, single spaces and . @ + - _"

    def clean_username(self) -> str:
        name = unicodedata.normalize("NFC", str(self.cleaned_data.get("username") or "").strip())
        if not USERNAME.fullmatch(name):
            raise forms.ValidationError(
                "Use letters, digits, single spaces between words and . @ + - _ only."
            )
        existing = list(get_user_model().objects.values_list("username", flat=True))
        other = confusable_with(name, existing)
        if other is not None:
            raise forms.ValidationError(
                f'"{name}" looks too much like the existing name "{other}"; choose another.'
            )
        return name

    def _get_validation_exclusions(self) -> set[str]:
        # The name is checked above (spaces allowed); the model's validator would refuse
        # spaces.
        return {*super()._get_validation_exclusions(), "username"}


def split_length(length: timedelta) -> tuple[int, str]:
    """The largest unit that expresses ``length`` exactly: (amount, unit)."""
    for unit in ("days", "hours", "minutes"):
        amount, rest = divmod(length, UNITS[unit])
        if not rest and amount:
            return int(amount), unit
    return max(int(length / UNITS["minutes"]), 1), "minutes"


def join_length(amount: int, unit: str) -> timedelta:
    """``amount`` units, or a ValidationError beyond a phase's longest (or a timedelta's)."""
    try:
        length = amount * UNITS[unit]
    except (OverflowError, KeyError):
        length = None
    if length is None or not MIN_PHASE_LENGTH <= length <= MAX_PHASE_LENGTH:
        raise forms.ValidationError("A phase lasts between one minute and fourteen days.")
    return length


def flag_field_name(name: str) -> str:
    return f"flag_{name}"


def _flag_field(spec: FlagSpec) -> forms.Field:
    label = spec.title or spec.name
    if set(spec.choices) == {True, False}:
        return forms.BooleanField(
            required=False, initial=spec.default, label=label, help_text=spec.help
        )
    return forms.ChoiceField(
        choices=[(str(c), str(c)) for c in spec.choices],
        initial=str(spec.default),
        label=label,
        help_text=spec.help,
    )


class TitledCheckboxes(forms.CheckboxSelectMultiple):
    """Checkboxes whose options carry their one-line explanation as a tooltip."""

    def __init__(self, *args: Any, texts: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.texts = texts or {}

    def create_option(self, name: str, value: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option = super().create_option(name, value, *args, **kwargs)
        if self.texts.get(str(value)):
            option["attrs"]["title"] = self.texts[str(value)]
        return option


def param_field_name(slug: str) -> str:
    """The number field of a parameterised modifier (``shots:N`` -> ``mod_shots``)."""
    return f"mod_{slug}"


def shown_flags(rules: ResolverRuleset) -> list[FlagSpec]:
    return [spec for name, spec in rules.flags.items() if name not in SITE_FLAGS]


# Power's open discussion: messages per living player on day 1, added each later day, and
# the day's floor and cap (resolver.days.power), starting at the day script's defaults.
DISCUSSION_FIELDS = (
    "discussion_open_allowance",
    "discussion_open_growth",
    "discussion_open_floor",
    "discussion_open_cap",
)
DAY_SETTING_FIELDS = ("word_limit", *DISCUSSION_FIELDS)
TABLE_FIELDS = ("turn_based", "turn_seconds", "vote_seconds", *DAY_SETTING_FIELDS)


def _discussion_field(name: str, what: str, most: int) -> forms.IntegerField:
    return forms.IntegerField(
        min_value=0,
        max_value=most,
        initial=get_day_script("power").defaults[name],
        required=False,
        label=f"Open discussion: {what}",
    )


class GameForm(SiteForm):
    """Everything about a new game except its role list (a formset beside it).

    Built for one rule set at a time, so the flag fields, methods and vote rules offered
    are exactly that rule set's.
    """

    title = forms.CharField(max_length=200)
    ruleset = forms.ChoiceField(choices=Ruleset.choices, widget=forms.HiddenInput)
    setup = forms.CharField(required=False, widget=forms.HiddenInput)
    method = forms.ChoiceField(label="Night resolution method")
    vote_rule = forms.ChoiceField(choices=VoteRule.choices)
    starts_with = forms.ChoiceField(choices=StartsWith.choices, label="The game starts with")
    no_night_posting = forms.BooleanField(
        required=False, initial=True, label="No posting in the game thread at night"
    )
    self_vote_allowed = forms.BooleanField(required=False, label="Players may vote for themselves")
    skip_vote_allowed = forms.BooleanField(
        required=False, initial=True, label='Players may vote "no elimination"'
    )
    day_length = forms.IntegerField(min_value=1, initial=24)
    day_unit = forms.ChoiceField(choices=UNIT_CHOICES, initial="hours", label="Day length unit")
    night_length = forms.IntegerField(min_value=1, initial=12)
    night_unit = forms.ChoiceField(choices=UNIT_CHOICES, initial="hours", label="Night length unit")
    player_cap = forms.IntegerField(
        min_value=3,
        max_value=MAX_PLAYER_CAP,
        required=False,
        help_text="Blank: as many players as there are roles.",
    )
    min_posts_per_day = forms.IntegerField(
        min_value=0,
        max_value=MAX_MIN_POSTS_PER_DAY,
        initial=0,
        label="Minimum posts per day",
        help_text="0 turns the check off.",
    )
    inactivity_action = forms.ChoiceField(
        choices=InactivityAction.choices, label="When a player is inactive"
    )
    turn_based = forms.BooleanField(
        required=False,
        initial=True,
        label="Play the day turn by turn (the rule set's day script)",
        help_text="Off: the day is a free forum thread.",
    )
    turn_seconds = forms.IntegerField(
        min_value=10, max_value=86_400, initial=120, required=False, label="Seconds per turn"
    )
    vote_seconds = forms.IntegerField(
        min_value=10,
        max_value=86_400,
        initial=120,
        required=False,
        label="Seconds for a table vote",
    )
    word_limit = forms.IntegerField(
        min_value=1, initial=150, required=False, label="Hard word limit of a speech"
    )
    discussion_open_allowance = _discussion_field(
        "discussion_open_allowance", "messages per living player on day 1", 100
    )
    discussion_open_growth = _discussion_field(
        "discussion_open_growth", "added to that allowance each later day", 100
    )
    discussion_open_floor = _discussion_field(
        "discussion_open_floor", "fewest messages a day", 10_000
    )
    discussion_open_cap = _discussion_field("discussion_open_cap", "most messages a day", 10_000)
    openness = forms.ChoiceField(
        required=False,
        choices=Openness.choices,
        initial="closed",
        label="Setup",
        help_text="Closed: the role list stays hidden until the end. Semi-open: the roles "
        "that may be in the game are public. Open: the whole role list is public.",
    )
    vote_count_every = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=336,
        label="Post a vote count every (hours)",
        help_text="The site posts a numbered vote count (Vote count 2.3) this often by day. "
        "Blank: only when you ask.",
    )
    save_as = forms.CharField(
        required=False,
        max_length=100,
        label="Save this setup as",
        help_text="Keep the setup (roles, rules, timing) to start another game from it.",
    )
    vote_modifiers_public = forms.BooleanField(
        required=False,
        label="Vote modifiers are public",
        help_text="The vote count names loved, hated and double voters and counts L-n with "
        "them; otherwise it shows each wagon's weight only and the plain L-n.",
    )
    lynch_proof_ends_day = forms.BooleanField(
        required=False,
        label="A lynch-proof wagon at the threshold ends the day",
        help_text="With a hammer: the day ends without an elimination. Unticked: the day goes on.",
    )

    def __init__(self, *args: Any, ruleset: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rules = get_ruleset(ruleset)
        self.ruleset_name = ruleset
        self.fields["method"].choices = [(m, m.upper()) for m in self.rules.methods]
        self.fields["method"].initial = self.rules.methods[0]
        if len(self.rules.methods) == 1:
            self.fields["method"].widget = forms.HiddenInput()
        self.fields["vote_rule"].choices = [
            (v, label) for v, label in VoteRule.choices if v in self.rules.vote_rules_allowed
        ]
        for spec in shown_flags(self.rules):
            self.fields[flag_field_name(spec.name)] = _flag_field(spec)
        if not self.rules.has_vote_modifiers:
            del self.fields["vote_modifiers_public"]
            del self.fields["lynch_proof_ends_day"]
        script = get_day_script(ruleset)
        if script is None:  # a free-thread day (forum) has no table at all
            for name in TABLE_FIELDS:
                del self.fields[name]
        else:  # only the day settings this rule set's script takes from the host
            for name in DAY_SETTING_FIELDS:
                if name not in script.host_settings:
                    del self.fields[name]

    def table_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in TABLE_FIELDS if name in self.fields]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for name in ("day", "night"):
            amount, unit = data.get(f"{name}_length"), data.get(f"{name}_unit")
            if amount is not None and unit is not None:
                try:
                    join_length(amount, unit)
                except forms.ValidationError as exc:
                    self.add_error(f"{name}_length", exc)
        return data

    def flag_fields(self) -> list[forms.BoundField]:
        return [self[flag_field_name(spec.name)] for spec in shown_flags(self.rules)]

    def clean_ruleset(self) -> str:
        if self.cleaned_data["ruleset"] != self.ruleset_name:
            raise forms.ValidationError("The rule set changed; reload the page.")
        return self.ruleset_name

    def flags(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for spec in shown_flags(self.rules):
            raw = self.cleaned_data[flag_field_name(spec.name)]
            if isinstance(raw, bool):
                values[spec.name] = raw
            else:  # choice values come back as text: map to the spec's own value
                values[spec.name] = next(c for c in spec.choices if str(c) == raw)
        return values

    def service_kwargs(self, role_list: list[dict[str, Any]]) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "title": data["title"],
            "ruleset": self.ruleset_name,
            "setup": data.get("setup") or "",
            "method": data["method"],
            "flags": self.flags(),
            "role_list": role_list,
            "vote_rule": data["vote_rule"],
            "starts_with": data["starts_with"],
            "no_night_posting": data["no_night_posting"],
            "self_vote_allowed": data["self_vote_allowed"],
            "skip_vote_allowed": data["skip_vote_allowed"],
            "day_length": join_length(data["day_length"], data["day_unit"]),
            "night_length": join_length(data["night_length"], data["night_unit"]),
            "player_cap": data.get("player_cap"),
            "min_posts_per_day": data["min_posts_per_day"],
            "inactivity_action": data["inactivity_action"],
            **self.table_kwargs(),
            "vote_modifiers_public": data.get("vote_modifiers_public", False),
            "lynch_proof_ends_day": data.get("lynch_proof_ends_day", False),
            "openness": data.get("openness") or Openness.CLOSED,
            "vote_count_every": timedelta(hours=data["vote_count_every"])
            if data.get("vote_count_every")
            else None,
        }

    def table_kwargs(self) -> dict[str, Any]:
        data = self.cleaned_data
        if not data.get("turn_based"):
            return {}
        kwargs: dict[str, Any] = {
            "turn_based": True,
            "turn_length": timedelta(seconds=data.get("turn_seconds") or 120),
            "vote_length": timedelta(seconds=data.get("vote_seconds") or 120),
        }
        settings = {
            name: data[name]
            for name in ("word_limit", *DISCUSSION_FIELDS)
            if data.get(name) is not None and name in self.fields
        }
        if settings:
            kwargs["day_settings"] = settings
        return kwargs


class BaseRoleFormSet(forms.BaseFormSet):
    def role_list(self) -> list[dict[str, Any]]:
        entries = []
        for form in self.forms:
            data = getattr(form, "cleaned_data", None) or {}
            if not data.get("role") or data.get("DELETE"):
                continue
            entry: dict[str, Any] = {"role": data["role"], "count": data["count"] or 1}
            modifiers = form.written_modifiers()
            if modifiers:
                entry["modifiers"] = modifiers
            if data.get("sanity"):
                entry["sanity"] = data["sanity"]
            entries.append(entry)
        return entries

    def clean(self) -> None:
        if any(self.errors):
            return
        if not self.role_list():
            raise forms.ValidationError("Add at least one role to the role list.")


def role_formset(ruleset: str) -> type[forms.BaseFormSet]:
    """A role list formset whose choices are the rule set's own role and modifier table."""
    rules = get_ruleset(ruleset)

    plain = [m for m in rules.modifier_specs.values() if m.param is None]
    numbered = [m for m in rules.modifier_specs.values() if m.param is not None]

    class RoleEntryForm(SiteForm):
        role = forms.ChoiceField(
            required=False,
            choices=[("", "—")]
            + [
                (slug, f"{spec.title or slug} ({display.alignment_title(rules, spec.alignment)})")
                for slug, spec in rules.roles.items()
            ],
        )
        count = forms.IntegerField(min_value=1, max_value=50, required=False, initial=1)

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            initial = dict(kwargs.get("initial") or {})
            # A setup's "shots:1" fills the 1-Shot number field, not a checkbox.
            written = list(initial.get("modifiers") or [])
            for spec in numbered:
                for text in list(written):
                    slug, _, arg = text.partition(":")
                    if slug == spec.slug and arg.isdigit():
                        initial[param_field_name(spec.slug)] = int(arg)
                        written.remove(text)
            if written or "modifiers" in initial:
                initial["modifiers"] = written
            kwargs["initial"] = initial
            super().__init__(*args, **kwargs)
            if plain:
                self.fields["modifiers"] = forms.MultipleChoiceField(
                    required=False,
                    choices=[(m.slug, m.title) for m in plain],
                    widget=TitledCheckboxes(texts={m.slug: m.description for m in plain}),
                    help_text="Point at a modifier for what it does; the full list is below.",
                )
            for spec in numbered:
                self.fields[param_field_name(spec.slug)] = forms.IntegerField(
                    required=False,
                    min_value=spec.least,
                    max_value=99,
                    label=spec.title.replace(spec.param or "N", "X"),
                    help_text=f"{spec.description} Blank: none.",
                )
            if len(rules.sanities) > 1:
                self.fields["sanity"] = forms.ChoiceField(
                    required=False,
                    choices=[("", "sane (default)")] + [(s, s) for s in rules.sanities[1:]],
                    help_text="Cops only.",
                )

        def written_modifiers(self) -> list[str]:
            """The entry's modifiers as the resolver writes them: ``ninja``, ``shots:2``."""
            data = self.cleaned_data
            mods = list(data.get("modifiers") or [])
            for spec in numbered:
                number = data.get(param_field_name(spec.slug))
                if number is not None:
                    mods.append(f"{spec.slug}:{number}")
            return mods

        def clean(self) -> dict[str, Any]:
            data = super().clean()
            role = data.get("role")
            if data.get("sanity") and role and not rules.roles[role].cop_like:
                self.add_error("sanity", "Only investigative roles have a sanity.")
            return data

    return formset_factory(RoleEntryForm, formset=BaseRoleFormSet, extra=3)


def apply_service_error(
    exc: GameRuleError, form: forms.Form, formset: forms.BaseFormSet | None = None
) -> None:
    """Put a service error on the field it names, else on the form as a whole."""
    field = exc.field or ""
    if formset is not None and field.startswith("role_list"):
        formset._non_form_errors = formset.error_class([exc.message])
        return
    aliases = {"min_posts": "min_posts_per_day"}
    field = aliases.get(field, field)
    form.add_error(field if field in form.fields else None, exc.message)


# -- in the game --------------------------------------------------------------------------
class PostForm(SiteForm):
    body = forms.CharField(
        label="Reply",
        max_length=20_000,
        widget=forms.Textarea(attrs={"id": "reply-body", "rows": 8}),
        help_text="Markdown or BBCode. Vote with a bold **Vote: Name**; withdraw with "
        "**Unvote**. Posts cannot be edited.",
    )
    # Power's question round: the player the question is for (a slot id; the page's own
    # select, not rendered from here). Which slot is legal is the service's to say.
    to = forms.IntegerField(required=False, label="Question for")


class TargetForm(SiteForm):
    """A vote or a nomination: a slot id, or "skip" (no elimination)."""

    target = forms.CharField(max_length=20, label="Player")

    def clean_target(self) -> int | None:
        raw = self.cleaned_data["target"]
        if raw == "skip":
            return None
        try:
            return int(raw)
        except ValueError:
            return -1  # no such slot: the service says so, as for any other unknown id


class DayActionForm(SiteForm):
    """The role PM's day action: a target now (the ability is the role's, if it has one)."""

    target = forms.IntegerField(label="Target", error_messages={"required": "Choose a target."})
    ability = forms.CharField(max_length=40, required=False)


class WithdrawForm(SiteForm):
    ability = forms.CharField(max_length=40)


class AwayForm(SiteForm):
    """V/LA: the first and last day away, and a note only the player sees."""

    starts = forms.DateField(label="First day away")
    ends = forms.DateField(label="Last day away")
    note = forms.CharField(max_length=200, required=False)


MAX_SIMULATED_GAMES = 5000


class SimulateForm(SiteForm):
    games = forms.IntegerField(
        min_value=1,
        max_value=MAX_SIMULATED_GAMES,
        error_messages={
            key: f"Simulate between 1 and {MAX_SIMULATED_GAMES} games."
            for key in ("required", "invalid", "min_value", "max_value")
        },
    )


class HostPostForm(SiteForm):
    thread = forms.ChoiceField(choices=Thread.choices, initial=Thread.PUBLIC)
    body = forms.CharField(max_length=20_000, widget=forms.Textarea(attrs={"rows": 5}))

    def __init__(
        self, *args: Any, threads: list[tuple[str, str]] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        if threads is not None:  # only the threads this game has (no masons' without masons)
            self.fields["thread"].choices = threads


class ExtendForm(SiteForm):
    amount = forms.IntegerField(min_value=1, max_value=MAX_PHASE_MINUTES, initial=1)
    unit = forms.ChoiceField(choices=UNIT_CHOICES, initial="hours")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("amount") is not None and data.get("unit") is not None:
            try:
                join_length(data["amount"], data["unit"])
            except forms.ValidationError:
                self.add_error("amount", "Extend by a positive time of at most fourteen days.")
        return data

    def length(self) -> timedelta:
        return join_length(self.cleaned_data["amount"], self.cleaned_data["unit"])


class SlotChoiceForm(SiteForm):
    """Pick a living player (modkill) or any player (replace) of the game."""

    slot = forms.TypedChoiceField(coerce=int, label="Player")

    def __init__(self, *args: Any, slots: list[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["slot"].choices = [(s.pk, f"{s.display_name} (seat {s.seat})") for s in slots]


class ModkillForm(SlotChoiceForm):
    reason = forms.CharField(max_length=200, required=False)


class ReplaceForm(SlotChoiceForm):
    username = forms.CharField(max_length=150, label="Replacement (username)")

    def clean_username(self) -> Any:
        name = self.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(username__iexact=name).first()
        if user is None:
            raise forms.ValidationError(f'There is no user called "{name}".')
        return user


class NightActionForm(SiteForm):
    """One ability tonight: its legal targets only, as the services compute them."""

    def __init__(
        self,
        *args: Any,
        option: dict[str, Any],
        names: dict[int, str],
        current: Any = None,
        role_choices: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("prefix", f"act-{option['ability']}")
        initial: dict[str, Any] = {}
        if current is not None:
            for i, target in enumerate(current.targets, start=1):
                initial[f"target_{i}"] = target
            initial.update({f"extra_{k}": v for k, v in (current.extra or {}).items()})
        kwargs.setdefault("initial", initial)
        super().__init__(*args, **kwargs)
        self.option = option
        self.current = current
        choices = [(pk, names.get(pk, str(pk))) for pk in option["choices"]]
        count = option["targets"]
        for i in range(1, count + 1):
            label = "Target" if count == 1 else f"Target {i}"
            self.fields[f"target_{i}"] = forms.TypedChoiceField(
                coerce=int, choices=[("", "— choose —"), *choices], label=label
            )
        for key in option["extra"]:
            if key == "role" and role_choices:  # the forger's shown role: a role of the game
                self.fields["extra_role"] = forms.ChoiceField(
                    choices=[(r, r) for r in role_choices], label="Role to show"
                )
            else:
                self.fields[f"extra_{key}"] = forms.CharField(max_length=40, label=key.capitalize())

    @property
    def ability(self) -> str:
        return self.option["ability"]

    def targets(self) -> list[int]:
        return [self.cleaned_data[f"target_{i}"] for i in range(1, self.option["targets"] + 1)]

    def extra(self) -> dict[str, str]:
        return {key: self.cleaned_data[f"extra_{key}"] for key in self.option["extra"]}
