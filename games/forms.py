"""Forms of the web pages. They check the shape of input; the rules are checked by the
services (and, through them, the resolver), whose errors are put back on these forms."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from datetime import timedelta
from typing import Any, cast

from allauth.account import forms as allauth_forms
from allauth.account.forms import LoginForm as AllauthLoginForm
from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.conf import settings as django_settings
from django.forms import formset_factory
from django.forms.forms import DeclarativeFieldsMetaclass
from django.utils.functional import lazy
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from . import display, game_settings, hooks
from .accounts import USERNAME_HELP
from .errors import GameRuleError
from .game_settings import MAX_PLAYERS, SETTINGS, UNITS, Kind, Setting, split_length
from .gateway import FlagSpec, Rules, day_script, rules_named
from .models import (
    MAX_PHASE_LENGTH,
    MAX_PHASE_MINUTES,
    MIN_PHASE_LENGTH,
    CoHostKind,
    Phase,
    Ruleset,
    Thread,
    VoteRule,
)
from .plain_text import use_plain_text
from .reads.people import user_called

# The units' words as the choices show them (the values stay the units' names).
UNIT_WORDS = {
    "minutes": pgettext_lazy("unit", "minutes"),
    "hours": pgettext_lazy("unit", "hours"),
    "days": pgettext_lazy("unit", "days"),
}
UNIT_CHOICES = [(u, UNIT_WORDS.get(u, u)) for u in UNITS]
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


def _interpolated(message: Any, **values: Any) -> Any:
    """A lazily translated ``message`` whose %(name)s placeholders are filled when it is
    shown (a class attribute: the reader's language is known only then)."""
    return lazy(lambda: str(message) % values, str)()


def form_message(form: forms.BaseForm) -> str:
    """A form's errors as one sentence for a page's message ("Note: ...")."""
    parts = []
    for name, errors in form.errors.items():
        field = form.fields.get(name)
        label = (field.label or name.replace("_", " ").capitalize()) if field else ""
        # (a form's errors are message strings: map(str) only types them)
        said = " ".join(map(str, errors))
        parts.append(
            gettext("%(field)s: %(errors)s") % {"field": label, "errors": said} if label else said
        )
    return " ".join(parts)


class LoginForm(PlainTextForm, AllauthLoginForm):
    """allauth's login by name or e-mail address. Its field keeps the name ``username``
    (the form's old name, which scripts and browser tests fill) and reads the name as NFKC
    (full-width letters as ASCII), as Django's login did."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields.pop("login")
        field.label = gettext("Name or e-mail address")
        field.widget.attrs.pop("placeholder", None)
        field.widget.attrs["autocomplete"] = "username"
        self.fields = {"username": field, **self.fields}
        self.fields["password"].widget.attrs.pop("placeholder", None)
        self.fields["password"].help_text = ""

    def clean_username(self) -> str:
        return unicodedata.normalize("NFKC", str(self.cleaned_data.get("username") or "")).strip()

    def clean(self) -> dict[str, Any]:
        if "username" in self.cleaned_data:
            self.cleaned_data["login"] = self.cleaned_data["username"]
        return super().clean()


class SignUpForm(PlainTextForm, AllauthSignupForm):
    """A new account: a name (``games.accounts.clean_name``: any script, no look-alikes), an
    optional e-mail address (verified by a link when given) and a password twice."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].help_text = USERNAME_HELP
        self.fields["email"].label = gettext("E-mail address (optional)")
        self.fields["email"].help_text = gettext(
            "For password resets and, later, notifications; we send a link to verify it."
        )
        for field in self.fields.values():
            field.widget.attrs.pop("placeholder", None)


class AccountForm(PlainTextForm):
    """Mixed into allauth's forms of the account pages: the site's text rule, labels in the
    site's words, and no placeholders (the labels say it)."""

    email_label = _("E-mail address")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, field in self.fields.items():
            field.widget.attrs.pop("placeholder", None)
            if name == "email":
                field.label = self.email_label


class AddEmailForm(AccountForm, allauth_forms.AddEmailForm):
    email_label = _("New e-mail address")


class ChangePasswordForm(AccountForm, allauth_forms.ChangePasswordForm):
    pass


class SetPasswordForm(AccountForm, allauth_forms.SetPasswordForm):
    pass


class ResetPasswordForm(AccountForm, allauth_forms.ResetPasswordForm):
    pass


class ResetPasswordKeyForm(AccountForm, allauth_forms.ResetPasswordKeyForm):
    pass


class LanguageForm(SiteForm):
    """The account's language (``games.i18n``): one of the site's, or blank for the
    browser's. Each language is named in itself ("Русский"), so anyone can find theirs."""

    language = forms.ChoiceField(
        choices=[("", _("The browser's language")), *django_settings.LANGUAGES],
        required=False,
        label=_("Language"),
        help_text=_("The site's pages, your notifications and mails are in this language."),
    )


def join_length(amount: int, unit: str) -> timedelta:
    """``amount`` units, or a ValidationError beyond a phase's longest (or a timedelta's)."""
    try:
        length = amount * UNITS[unit]
    except (OverflowError, KeyError):
        length = None
    if length is None or not MIN_PHASE_LENGTH <= length <= MAX_PHASE_LENGTH:
        raise forms.ValidationError(gettext("A phase lasts between one minute and fourteen days."))
    return length


def flag_field_name(name: str) -> str:
    return f"flag_{name}"


# The words shown for the resolver's values (the values stay as they are): a flag's choices,
# a cop's sanity. The English is the value itself, as the form always showed it.
VALUE_WORDS = {
    "anyTarget": pgettext_lazy("flag choice", "anyTarget"),
    "selfOnly": pgettext_lazy("flag choice", "selfOnly"),
    "majority": pgettext_lazy("flag choice", "majority"),
    "plurality": pgettext_lazy("flag choice", "plurality"),
    "compose": pgettext_lazy("flag choice", "compose"),
    "cancel": pgettext_lazy("flag choice", "cancel"),
    "insane": pgettext_lazy("sanity", "insane"),
    "paranoid": pgettext_lazy("sanity", "paranoid"),
    "naive": pgettext_lazy("sanity", "naive"),
}


def value_words(value: Any) -> Any:
    return VALUE_WORDS.get(str(value), str(value))


def _flag_field(spec: FlagSpec) -> forms.Field:
    # (the resolver's words, in the reader's language: games.display.tr)
    label = display.tr(spec.title) if spec.title else spec.name
    help_text = display.tr(spec.help)
    if set(spec.choices) == {True, False}:
        return forms.BooleanField(
            required=False, initial=spec.default, label=label, help_text=help_text
        )
    return forms.ChoiceField(
        choices=[(str(c), value_words(c)) for c in spec.choices],
        initial=str(spec.default),
        label=label,
        help_text=help_text,
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


def shown_flags(rules: Rules) -> list[FlagSpec]:
    return [spec for name, spec in rules.flags.items() if name not in SITE_FLAGS]


def field_names(setting: Setting) -> tuple[str, ...]:
    """The create form's field names of one setting (none: not on the form)."""
    name = setting.form.name
    if name is None:
        return ()
    if setting.kind is Kind.DAY_SETTINGS:
        return tuple(game_settings.DAY_SETTING_FIELDS)
    if setting.kind is Kind.DURATION and setting.form.unit is None:
        return (name, f"{name.removesuffix('_length')}_unit")
    return (name,)


LENGTH_UNIT_LABELS = {"day": _("Day length unit"), "night": _("Night length unit")}
# The settings whose label was Django's, from the field's name: the same words, translated.
FIELD_LABELS = {
    "vote_rule": _("Vote rule"),
    "day_length": _("Day length"),
    "night_length": _("Night length"),
    "player_cap": _("Player cap"),
}


def _setting_fields(setting: Setting) -> dict[str, forms.Field]:
    """The create form's field(s) of one game setting, from its spec entry."""
    entry = setting.form
    if entry.name is None:
        return {}
    label = setting.label or FIELD_LABELS.get(entry.name) or None
    help_text = setting.help
    initial = setting.default if entry.initial is None else entry.initial
    least, most = game_settings.bounds(setting, entry)
    if setting.kind is Kind.BOOL:
        field: forms.Field = forms.BooleanField(
            required=False, initial=initial, label=label, help_text=help_text
        )
    elif setting.kind is Kind.CHOICE:
        field = forms.ChoiceField(
            choices=list(setting.choices),
            required=entry.required,
            initial=entry.initial,
            label=label,
            help_text=help_text,
        )
    elif setting.kind is Kind.DAY_SETTINGS:
        return {
            name: forms.IntegerField(
                min_value=day.least,
                max_value=day.most,
                initial=day.default,
                required=False,
                label=lazy(display.tr, str)(day.label),
            )
            for name, day in game_settings.DAY_SETTING_FIELDS.items()
        }
    else:
        field = forms.IntegerField(
            min_value=least,
            max_value=most,
            initial=entry.initial,
            required=entry.required,
            label=label,
            help_text=help_text,
        )
    fields = {entry.name: field}
    if setting.kind is Kind.DURATION and entry.unit is None:  # a number and a unit
        unit = entry.name.removesuffix("_length")
        fields[f"{unit}_unit"] = forms.ChoiceField(
            choices=UNIT_CHOICES, initial="hours", label=LENGTH_UNIT_LABELS.get(unit)
        )
    return fields


def _form_value(setting: Setting, data: Mapping[str, Any]) -> Any:
    """A setting's value from the form's cleaned data; None: not given (the default)."""
    entry = setting.form
    assert entry.name is not None
    if setting.kind is Kind.DAY_SETTINGS:
        values = {
            name: data[name]
            for name in game_settings.DAY_SETTING_FIELDS
            if data.get(name) is not None
        }
        return values or None
    value = data.get(entry.name)
    if setting.kind is Kind.BOOL:
        return bool(value)
    if value is None or value == "":
        return None
    if setting.kind is Kind.DURATION:
        if entry.unit is None:
            return join_length(value, data[f"{entry.name.removesuffix('_length')}_unit"])
        return value * entry.unit
    return value


def form_initial(rules: Rules, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The create form's initial values of a setup's settings (``create_game`` keyword
    arguments; a missing one is its default)."""
    initial: dict[str, Any] = {}
    for setting in SETTINGS:
        entry = setting.form
        value = kwargs.get(setting.name, setting.default_for(rules))
        if entry.name is None or value is None:
            continue
        if setting.kind is Kind.DAY_SETTINGS:
            initial.update(value)  # a word limit or discussion budget: fields of their own
        elif setting.kind is Kind.DURATION and entry.unit is None:
            amount, unit = split_length(value)
            initial[entry.name] = amount
            initial[f"{entry.name.removesuffix('_length')}_unit"] = unit
        elif setting.kind is Kind.DURATION:
            initial[entry.name] = int(value / entry.unit) or 1
        else:
            initial[entry.name] = value
    return initial


# Every setting's field(s), in the spec's order: GameForm's base.
_SettingFields = DeclarativeFieldsMetaclass(
    "_SettingFields",
    (forms.Form,),
    {name: field for setting in SETTINGS for name, field in _setting_fields(setting).items()},
)


# _SettingFields is built at import from SETTINGS: mypy cannot type a class made by a call.
class GameForm(SiteForm, _SettingFields):  # type: ignore[misc, valid-type]
    """Everything about a new game except its role list (a formset beside it).

    Built for one rule set at a time, so the flag fields, methods, vote rules and table
    settings offered are exactly that rule set's. The settings' fields come from
    ``games.game_settings`` (one field per setting; a phase length with its unit, the
    day script's settings one by one).
    """

    field_order = ("title", "ruleset", "setup", "method")  # then the settings, save_as

    title = forms.CharField(max_length=200, label=_("Title"))
    ruleset = forms.ChoiceField(choices=Ruleset.choices, widget=forms.HiddenInput)
    setup = forms.CharField(required=False, widget=forms.HiddenInput)
    method = forms.ChoiceField(label=_("Night resolution method"))
    save_as = forms.CharField(
        required=False,
        max_length=100,
        label=_("Save this setup as"),
        help_text=_("Keep the setup (roles, rules, timing) to start another game from it."),
    )

    def __init__(self, *args: Any, ruleset: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rules = rules_named(ruleset)
        self.ruleset_name = ruleset
        # (fields are typed as Field; these are ChoiceFields: the casts only say so)
        cast(forms.ChoiceField, self.fields["method"]).choices = [
            (m, m.upper()) for m in self.rules.methods
        ]
        self.fields["method"].initial = self.rules.methods[0]
        if len(self.rules.methods) == 1:
            self.fields["method"].widget = forms.HiddenInput()
        cast(forms.ChoiceField, self.fields["vote_rule"]).choices = [
            (v, label) for v, label in VoteRule.choices if v in self.rules.vote_rules_allowed
        ]
        for spec in shown_flags(self.rules):
            self.fields[flag_field_name(spec.name)] = _flag_field(spec)
        for setting in SETTINGS:  # the settings this rule set has no use for
            if not setting.applies(self.rules):
                for name in field_names(setting):
                    del self.fields[name]
        script = day_script(ruleset)
        for name in game_settings.DAY_SETTING_FIELDS:
            # (a thread day has no script and none of these fields: they went above)
            if name in self.fields and (script is None or name not in script.host_settings):
                del self.fields[name]
        for extra in hooks.create_fields():  # the side domains' (e.g. the chat webhook)
            self.fields[extra.name] = extra.make()

    def side_fields(self) -> list[forms.BoundField]:
        """The fields the side domains add (``hooks.register_create_field``)."""
        return [self[extra.name] for extra in hooks.create_fields()]

    def apply_side_fields(self, user: Any, game_id: int) -> None:
        """Hand each side domain's field its value, for the game just created (in the same
        transaction: a refusal there creates no game)."""
        for extra in hooks.create_fields():
            if value := self.cleaned_data.get(extra.name):
                extra.apply(user, game_id, value)

    def table_fields(self) -> list[forms.BoundField]:
        """The table's own fields (turns, votes, the day script's settings), if any."""
        return [
            self[name]
            for setting in SETTINGS
            if setting.name == "turn_based" or setting.only_with == "turn_based"
            for name in field_names(setting)
            if name in self.fields
        ]

    def more_fields(self) -> list[forms.BoundField]:
        """The settings the page does not place by name (``Entry.laid_out``), in order."""
        return [
            self[name]
            for setting in SETTINGS
            if not setting.form.laid_out
            for name in field_names(setting)
            if name in self.fields
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        assert data is not None  # Form.clean gives cleaned_data
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
            raise forms.ValidationError(gettext("The rule set changed; reload the page."))
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
        """``create_game``'s keyword arguments: the settings on this form, by name."""
        data = self.cleaned_data
        settings = {}
        for setting in SETTINGS:
            if any(name in self.fields for name in field_names(setting)):
                value = _form_value(setting, data)
                if value is not None:
                    settings[setting.name] = value
        return {
            "title": data["title"],
            "ruleset": self.ruleset_name,
            "setup": data.get("setup") or "",
            "method": data["method"],
            "flags": self.flags(),
            "role_list": role_list,
            **game_settings.given_settings(settings),
        }


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
            raise forms.ValidationError(gettext("Add at least one role to the role list."))


def role_formset(ruleset: str) -> type[BaseRoleFormSet]:
    """A role list formset whose choices are the rule set's own role and modifier table."""
    rules = rules_named(ruleset)

    plain = [m for m in rules.modifier_specs.values() if m.param is None]
    numbered = [m for m in rules.modifier_specs.values() if m.param is not None]

    class RoleEntryForm(SiteForm):
        role = forms.ChoiceField(
            required=False,
            label=_("Role"),
            choices=[("", "—")]
            + [
                (
                    slug,
                    gettext("%(role)s (%(alignment)s)")
                    % {
                        "role": display.role_title(rules, slug),
                        "alignment": display.alignment_title(rules, spec.alignment),
                    },
                )
                for slug, spec in rules.roles.items()
            ],
        )
        count = forms.IntegerField(
            min_value=1, max_value=MAX_PLAYERS, required=False, initial=1, label=_("Count")
        )

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
                    label=gettext("Modifiers"),
                    choices=[(m.slug, display.tr(m.title)) for m in plain],
                    widget=TitledCheckboxes(
                        texts={m.slug: display.tr(m.description) for m in plain}
                    ),
                    help_text=gettext(
                        "Point at a modifier for what it does; the full list is below."
                    ),
                )
            for spec in numbered:
                self.fields[param_field_name(spec.slug)] = forms.IntegerField(
                    required=False,
                    min_value=spec.least,
                    max_value=99,
                    label=display.tr(spec.title).replace(spec.param or "N", "X"),
                    help_text=gettext("%(description)s Blank: none.")
                    % {"description": display.tr(spec.description)},
                )
            if len(rules.sanities) > 1:
                self.fields["sanity"] = forms.ChoiceField(
                    required=False,
                    choices=[("", gettext("sane (default)"))]
                    + [(s, value_words(s)) for s in rules.sanities[1:]],
                    label=gettext("Sanity"),
                    help_text=gettext("Cops only."),
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
            assert data is not None  # Form.clean gives cleaned_data
            role = data.get("role")
            if data.get("sanity") and role and not rules.roles[role].cop_like:
                self.add_error("sanity", gettext("Only investigative roles have a sanity."))
            return data

    # A subclass of BaseRoleFormSet; django-stubs types formset_factory as BaseFormSet's.
    return formset_factory(  # type: ignore[return-value]
        RoleEntryForm, formset=BaseRoleFormSet, extra=3
    )


def apply_service_error(
    exc: GameRuleError, form: forms.Form, formset: forms.BaseFormSet | None = None
) -> None:
    """Put a service error on the field it names, else on the form as a whole."""
    field = exc.field or ""
    if formset is not None and field.startswith("role_list"):
        # Django's own store of non-form errors, which django-stubs leaves out.
        formset._non_form_errors = formset.error_class([exc.message])  # type: ignore[attr-defined]
        return
    aliases = {"min_posts": "min_posts_per_day"}
    field = aliases.get(field, field)
    form.add_error(field if field in form.fields else None, exc.message)


# -- in the game --------------------------------------------------------------------------
BOLD_VOTE_HINT = _("Vote with a bold **Vote: Name**; withdraw with **Unvote**.")
PRIVATE_THREAD_HINT = _("A vote posted here does not count: the day's vote is in the game thread.")
HOST_HINT = _("The host's posts never vote.")


def reply_hint(game: Any, thread: str, *, is_host: bool = False) -> str:
    """What the reply box says under it: how this thread's posts count. Bold votes count
    only in the game thread of a day played as a thread; a table's day has its own hint
    (its day script's); a private thread's posts never vote."""
    says: Any
    if thread != "public":
        says = PRIVATE_THREAD_HINT
    elif is_host:
        says = HOST_HINT
    elif game.turn_based:
        script = day_script(game.ruleset)
        assert script is not None  # a turn-based game has a day script
        says = gettext(script.reply_hint)  # i18n: marked at its source
    else:
        says = BOLD_VOTE_HINT
    return gettext("Markdown or BBCode. %(hint)s Posts cannot be edited.") % {"hint": says}


class PostForm(SiteForm):
    body = forms.CharField(
        label=_("Reply"),
        max_length=20_000,
        widget=forms.Textarea(attrs={"id": "reply-body", "rows": 8}),
        help_text=_interpolated(
            _("Markdown or BBCode. %(hint)s Posts cannot be edited."), hint=BOLD_VOTE_HINT
        ),
    )

    def __init__(self, *args: Any, hint: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if hint:
            self.fields["body"].help_text = hint

    # Power's question round: the player the question is for (a slot id; the page's own
    # select, not rendered from here). Which slot is legal is the service's to say.
    to = forms.IntegerField(required=False, label=_("Question for"))


class TargetForm(SiteForm):
    """A vote or a nomination: a slot id, or "skip" (no elimination)."""

    target = forms.CharField(max_length=20, label=_("Player"))

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

    target = forms.IntegerField(
        label=_("Target"), error_messages={"required": _("Choose a target.")}
    )
    ability = forms.CharField(max_length=40, required=False)


class WithdrawForm(SiteForm):
    ability = forms.CharField(max_length=40)


class WillForm(SiteForm):
    """The role PM's last will (its length is the service's rule: its message says it)."""

    text = forms.CharField(required=False, strip=False, widget=forms.Textarea, label=_("Text"))


class AwayForm(SiteForm):
    """V/LA: the first and last day away, and a note only the player sees."""

    starts = forms.DateField(label=_("First day away"))
    ends = forms.DateField(label=_("Last day away"))
    note = forms.CharField(max_length=200, required=False, label=_("Note"))


MAX_SIMULATED_GAMES = 5000


class SimulateForm(SiteForm):
    games = forms.IntegerField(
        min_value=1,
        max_value=MAX_SIMULATED_GAMES,
        label=_("Games"),
        error_messages={
            key: _interpolated(
                _("Simulate between 1 and %(most)s games."), most=MAX_SIMULATED_GAMES
            )
            for key in ("required", "invalid", "min_value", "max_value")
        },
    )


class HostPostForm(SiteForm):
    thread = forms.ChoiceField(choices=Thread.choices, initial=Thread.PUBLIC, label=_("Thread"))
    body = forms.CharField(
        max_length=20_000, widget=forms.Textarea(attrs={"rows": 5}), label=_("Body")
    )

    def __init__(
        self, *args: Any, threads: list[tuple[str, str]] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        if threads is not None:  # only the threads this game has (no masons' without masons)
            cast(forms.ChoiceField, self.fields["thread"]).choices = threads


class ExtendForm(SiteForm):
    """The host pushes the deadline back by an amount in a unit of their choice."""

    amount = forms.IntegerField(
        min_value=1,
        max_value=MAX_PHASE_MINUTES,
        initial=1,
        label=_("Extend by"),
        help_text=_("The new deadline is announced in the game thread."),
    )
    unit = forms.ChoiceField(choices=UNIT_CHOICES, initial="hours", label=_("Unit"))

    def __init__(self, *args: Any, phase: Phase | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A table day's deadline is its current turn's, a minute or two long: an hour
        # would give the speaker a whole day's worth. A forum phase is counted in hours.
        if phase is not None and phase.is_table_day:
            self.fields["unit"].initial = "minutes"

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        assert data is not None  # Form.clean gives cleaned_data
        if data.get("amount") is not None and data.get("unit") is not None:
            try:
                join_length(data["amount"], data["unit"])
            except forms.ValidationError:
                self.add_error(
                    "amount", gettext("Extend by a positive time of at most fourteen days.")
                )
        return data

    def length(self) -> timedelta:
        return join_length(self.cleaned_data["amount"], self.cleaned_data["unit"])


class SlotChoiceForm(SiteForm):
    """Pick a living player (modkill) or any player (replace) of the game."""

    slot = forms.TypedChoiceField(coerce=int, label=_("Player"))

    def __init__(self, *args: Any, slots: list[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["slot"]).choices = [
            (s.pk, gettext("%(name)s (seat %(seat)s)") % {"name": s.display_name, "seat": s.seat})
            for s in slots
        ]


class ModkillForm(SlotChoiceForm):
    reason = forms.CharField(max_length=200, required=False, label=_("Reason"))


class CancelForm(SiteForm):
    reason = forms.CharField(max_length=200, required=False, label=_("Why"))


class ReplaceForm(SlotChoiceForm):
    username = forms.CharField(
        max_length=150,
        label=_("Replacement"),
        help_text=_("Their user name; accents, case and spaces do not matter."),
    )

    def clean_username(self) -> Any:
        name = self.cleaned_data["username"].strip()
        user = user_called(name)
        if user is None:
            raise forms.ValidationError(
                gettext('There is no user called "%(name)s".') % {"name": name}
            )
        return user


class CoHostForm(SiteForm):
    """The host names a co-host or a backup host (``services.add_cohost``)."""

    username = forms.CharField(
        max_length=150,
        label=_("User name"),
        help_text=_("Not a player of this game; accents, case and spaces do not matter."),
    )
    kind = forms.ChoiceField(
        choices=CoHostKind.choices,
        initial=CoHostKind.COHOST,
        label=_("As"),
        help_text=_("A backup host takes over if you leave; both have your powers here."),
    )


class HandOverForm(SiteForm):
    """The host hands the game over (``services.hand_over``)."""

    username = forms.CharField(
        max_length=150,
        label=_("New host"),
        help_text=_("They own the game from now on; you stay on as a co-host."),
    )


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
            label = (
                gettext("Target") if count == 1 else gettext("Target %(number)s") % {"number": i}
            )
            self.fields[f"target_{i}"] = forms.TypedChoiceField(
                coerce=int, choices=[("", gettext("— choose —")), *choices], label=label
            )
        for key in option["extra"]:
            if key == "role" and role_choices:  # the forger's shown role: a role of the game
                self.fields["extra_role"] = forms.ChoiceField(
                    choices=[(r, r) for r in role_choices], label=gettext("Role to show")
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


class WhisperForm(SiteForm):
    """A whisper (the ``whispers`` variant): to a living player (a slot id; which one is
    legal is the service's to say), in the posts' markup."""

    to = forms.IntegerField(label=_("To"))
    body = forms.CharField(
        label=_("Whisper"),
        max_length=2_000,
        widget=forms.Textarea(attrs={"id": "whisper-body", "rows": 4}),
        help_text=_(
            "Markdown or BBCode. Only the two of you and the host read it until the game ends."
        ),
    )
