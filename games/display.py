"""Display names of roles, alignments, modifiers and flags, read from the resolver's rule
sets (the one place both the name and the one-line text live). Pages, the API and the live
layer show these, never the slugs ("Vanilla Townie", not ``vanilla_townie``)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext, pgettext_lazy

from .gateway import InvalidScenario, Rules, role_card, rules_named
from .shapes import Ruleset as RulesetReference


def _rules(ruleset: str | Rules) -> Rules | None:
    if not isinstance(ruleset, str):
        return ruleset
    try:
        return rules_named(ruleset)
    except (ImportError, InvalidScenario):
        return None


def _words(slug: str) -> str:
    return slug.replace("_", " ").title()


def tr(text: str) -> str:
    """A text of the resolver's (a role's name or description, a flag's title) in the
    reader's language: the resolver marks them for extraction, the site translates them
    where it shows them."""
    return _(text) if text else ""


def with_article(title: str) -> str:
    """ "a Goon", "an Alien", "an Unknown", "a One-Shot Doctor" (a role name with its
    article, as a forum host writes "They were a Goon.")."""
    if not title:
        return ""
    word = title.split()[0].lower()
    vowel = word[0] in "aeiou" and not word.startswith(("one", "uni", "use", "eu"))
    return f"{'an' if vowel else 'a'} {title}"


def day_label(day: date | str) -> str:
    """A calendar day as every page writes it: "Fri 3 May" (V/LA dates, from a ``date`` or
    its ISO text)."""
    if isinstance(day, str):
        day = date.fromisoformat(day[:10])
    return _("%(weekday)s %(day)s %(month)s") % {
        "weekday": _DAY_NAMES[day.weekday()],
        "day": day.day,
        "month": _MONTH_NAMES[day.month - 1],
    }


def moment_label(moment: datetime | str) -> str:
    """A deadline in words that leave the site (notifications, e-mail): "Fri 3 May, 18:00
    UTC" (the pages show local time; a mail or a chat message cannot)."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    moment = moment.astimezone(UTC)
    return _("%(day)s, %(time)s UTC") % {"day": day_label(moment.date()), "time": f"{moment:%H:%M}"}


def dated_moment(moment: datetime) -> str:
    """A moment with its year, to the minute: "Mon 3 May 2027, 18:00 UTC" (a sanction's or a
    cooldown's end)."""
    moment = moment.astimezone(UTC)
    return _("%(weekday)s %(day)s %(month)s %(year)s, %(time)s UTC") % {
        "weekday": _DAY_NAMES[moment.weekday()],
        "day": moment.day,
        "month": _MONTH_NAMES[moment.month - 1],
        "year": moment.year,
        "time": f"{moment:%H:%M}",
    }


_DAY_NAMES = (
    pgettext_lazy("weekday, short", "Mon"),
    pgettext_lazy("weekday, short", "Tue"),
    pgettext_lazy("weekday, short", "Wed"),
    pgettext_lazy("weekday, short", "Thu"),
    pgettext_lazy("weekday, short", "Fri"),
    pgettext_lazy("weekday, short", "Sat"),
    pgettext_lazy("weekday, short", "Sun"),
)
# The month after a day's number ("3 May"; Russian: the genitive, "3 мая").
_MONTH_NAMES = (
    pgettext_lazy("month after a day, short", "Jan"),
    pgettext_lazy("month after a day, short", "Feb"),
    pgettext_lazy("month after a day, short", "Mar"),
    pgettext_lazy("month after a day, short", "Apr"),
    pgettext_lazy("month after a day, short", "May"),
    pgettext_lazy("month after a day, short", "Jun"),
    pgettext_lazy("month after a day, short", "Jul"),
    pgettext_lazy("month after a day, short", "Aug"),
    pgettext_lazy("month after a day, short", "Sep"),
    pgettext_lazy("month after a day, short", "Oct"),
    pgettext_lazy("month after a day, short", "Nov"),
    pgettext_lazy("month after a day, short", "Dec"),
)


def plural(count: int, word: str, many: str = "") -> str:
    """ "1 post", "2 posts", "1 time"; ``many`` for an irregular plural."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def posts_count(count: int) -> str:
    """ "1 post", "5 posts", in the reader's language."""
    return ngettext("%(count)s post", "%(count)s posts", count) % {"count": count}


_UNITS = {
    "second": lambda n: ngettext("%(n)s second", "%(n)s seconds", n) % {"n": n},
    "day": lambda n: ngettext("%(n)s day", "%(n)s days", n) % {"n": n},
    "hour": lambda n: ngettext("%(n)s hour", "%(n)s hours", n) % {"n": n},
    "minute": lambda n: ngettext("%(n)s minute", "%(n)s minutes", n) % {"n": n},
}


def time_span(length: timedelta) -> str:
    """A stretch of time as the thread says it: "2 hours", "1 day 6 hours", "5 hours 12
    minutes", "30 seconds". Seconds only under a minute: a forum clock is read in minutes,
    while a table's turn is seconds long."""
    seconds = max(int(length.total_seconds()), 0)
    if seconds < 60:
        return _UNITS["second"](seconds)
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes = rest // 60
    parts = [(days, "day"), (hours, "hour"), (minutes, "minute")]
    return " ".join(_UNITS[word](n) for n, word in parts if n)


def role_title(ruleset: str | Rules, role: str) -> str:
    """ "Vanilla Townie" for ``vanilla_townie``; "Unknown" for a cleaned role; "" for none."""
    if not role:
        return ""
    if role == "unknown":
        return pgettext("role", "Unknown")
    return tr(_english_role_title(ruleset, role))


def role_description(ruleset: str | Rules, role: str) -> str:
    rules = _rules(ruleset)
    spec = rules.roles.get(role) if rules and role else None
    return tr(spec.description) if spec else ""


def alignment_title(ruleset: str | Rules, alignment: str) -> str:
    if not alignment:
        return ""
    rules = _rules(ruleset)
    titles = rules.alignment_titles if rules else {}
    return tr(titles.get(alignment, _words(alignment)))


def modifier_title(ruleset: str | Rules, text: str) -> str:
    """ "2-Shot" for ``shots:2``, "Ninja" for ``ninja``; an unknown one as written."""
    rules = _rules(ruleset)
    return tr(rules.describe_modifier(text)[0]) if rules else text


def modifiers(ruleset: str | Rules, texts: Iterable[str]) -> list[dict[str, str]]:
    """``[{"slug", "title", "description"}]`` of the modifiers as written on a player."""
    rules = _rules(ruleset)
    out = []
    for text in texts:
        title, description = rules.describe_modifier(text) if rules else (text, "")
        out.append({"slug": text, "title": tr(title), "description": tr(description)})
    return out


def full_title(
    ruleset: str | Rules,
    role: str,
    mods: Iterable[str] = (),
    alignment: str = "",
    *,
    with_alignment: bool = True,
) -> str:
    """The forum-style full name: "Town 1-Shot Day Vigilante", "Mafia Ninja Goon" (the one
    role name of every page: the role PM, the role list, the host's and the archive's
    tables). ``with_alignment=False`` where the alignment has a column of its own:
    "1-Shot Day Vigilante"."""
    if not role:
        return ""
    rules = _rules(ruleset)
    if rules is None or role not in rules.roles:
        return role_title(ruleset, role)
    pm = role_card(rules, role, list(mods), alignment or None)  # in the reader's language
    if with_alignment:
        return pm["title"]
    return " ".join([*(m["title"] for m in pm["modifiers"]), pm["role_title"]])


def entry_title(ruleset: str | Rules, entry: Any) -> str:
    """A role-list row's name, the same as its player's role PM says it: "Town 1-Shot
    Vigilante" for ``{"role": "vigilante", "modifiers": ["shots:1"]}``."""
    return full_title(
        ruleset, entry["role"], entry.get("modifiers") or (), entry.get("alignment") or ""
    )


def entry_line(ruleset: str | Rules, entry: Any) -> str:
    """A role-list row with its count: "2x Town Vanilla Townie" (with a multiplication sign)."""
    return _("%(count)s× %(role)s") % {
        "count": entry.get("count", 1),
        "role": entry_title(ruleset, entry),
    }


def death_line(ruleset: str | Rules, revealed_role: str, *, markdown: bool = False) -> str:
    """What the thread says of a dead player's role, true to the rule set: the role as the
    resolver revealed it ("They were a Goon."); a cleaned one ("unknown") could not be
    determined; where the rules reveal no role on death (city, classic), it is not revealed
    until the game ends; otherwise (a modkill) it is not revealed. ``markdown``: the role
    in bold, as the host's posts write it."""
    rules = _rules(ruleset)
    if rules is not None and not rules.reveals_roles_on_death:
        return _("Their role is not revealed until the game ends.")
    if not revealed_role:
        return _("Their role is not revealed.")
    if revealed_role == "unknown":
        return _("Their role could not be determined.")
    # The article agrees with the English name ("an Alien"); other languages have none.
    an = with_article(_english_role_title(ruleset, revealed_role)).startswith("an ")
    title = role_title(ruleset, revealed_role)
    if markdown:
        from .markup import escape_markdown

        if an:
            return _("They were an **%(role)s**.") % {"role": escape_markdown(title)}
        return _("They were a **%(role)s**.") % {"role": escape_markdown(title)}
    if an:
        return _("They were an %(role)s.") % {"role": title}
    return _("They were a %(role)s.") % {"role": title}


def _english_role_title(ruleset: str | Rules, role: str) -> str:
    """The role's name as the resolver writes it (English)."""
    rules = _rules(ruleset)
    spec = rules.roles.get(role) if rules else None
    return (spec.title or _words(role)) if spec else _words(role)


def ruleset_reference(name: str) -> RulesetReference:
    """A rule set's roles, modifiers, flags and alignments with display names and one-line
    texts, as ``GET /api/v1/rulesets/`` and the create form's reference table show them."""
    rules = rules_named(name)
    return {
        "name": name,
        "methods": list(rules.methods),
        "roles": [
            {
                "slug": r.slug,
                "title": tr(r.title or _words(r.slug)),
                "alignment": r.alignment,
                "alignment_title": alignment_title(rules, r.alignment),
                "description": tr(r.description),
                "abilities": [a.slug for a in r.abilities],
                "ability_texts": [
                    {"slug": a.slug, "phase": a.phase, "description": tr(a.description)}
                    for a in r.abilities
                ],
                "private_thread": r.private_thread,
            }
            for r in rules.roles.values()
        ],
        # slug -> one line: the plain shape clients have always read
        "modifiers": {slug: tr(text) for slug, text in dict(rules.modifiers).items()},
        "modifier_list": [
            {
                "slug": m.slug,
                "form": f"{m.slug}:{m.param}" if m.param else m.slug,
                "title": tr(m.title),
                "description": tr(m.description),
                "param": m.param,
                "least": m.least if m.param else None,
                "kind": m.kind,
            }
            for m in rules.modifier_specs.values()
        ],
        "alignments": [
            {
                "slug": a,
                "title": alignment_title(rules, a),
                "win_condition": tr(rules.win_conditions.get(a, "")),
            }
            for a in rules.alignments
        ],
        "sanities": list(rules.sanities),
        "flags": [
            {
                "name": f.name,
                "title": tr(getattr(f, "title", "") or _words(f.name)),
                "default": f.default,
                "choices": list(f.choices),
                "help": tr(f.help),
            }
            for f in rules.flags.values()
        ],
        "nominations": rules.uses_nominations,
    }


def public_setup(game: Any) -> list[str] | None:
    """What the public may know of the role list: every entry with its count (open), the
    roles that may be in the game without counts (semi-open), or None (closed)."""
    if game.openness == "open":
        return [entry_line(game.ruleset, e) for e in game.role_list]
    if game.openness == "semi-open":
        seen: list[str] = []
        for e in game.role_list:
            title = role_title(game.ruleset, e["role"])
            if title not in seen:
                seen.append(title)
        return sorted(seen)
    return None


# -- sentences the site says in more than one place (issue 33: each said once) --------------
def joined_line(count: int, cap: int | None = None) -> str:
    """How many have signed up, the verb agreeing with the number: "1 has joined", "6 have
    joined", "1 of 7 players has joined" (``cap``: out of how many)."""
    if cap is not None:
        return ngettext(
            "%(count)s of %(cap)s players has joined",
            "%(count)s of %(cap)s players have joined",
            count,
        ) % {"count": count, "cap": cap}
    return ngettext("%(count)s has joined", "%(count)s have joined", count) % {"count": count}


def first_phase_line(starts_with: str) -> str:
    """What a game's first phase is, as a sentence: "The game starts with a night." (the
    setting's value, "day" or "night", read as a noun needs its article)."""
    if starts_with == "night":
        return _("The game starts with a night.")
    return _("The game starts with a day.")


def prod_line(posts: int, required: int, title: str = "") -> str:
    """What a prodded player is told, on their open pages and in their inbox (``title``: the
    game's, where the inbox needs it). Every prod is the site's own, at a day's end, never
    the host's (a league game has none): so no "the host prodded you" or "the host asks"."""
    values = {"title": title, "posts": posts, "required": required}
    if title:
        return (
            ngettext(
                "You were prodded for inactivity in %(title)s: %(posts)s of the %(required)s post "
                "a day this game asks for. Post more to stay in the game.",
                "You were prodded for inactivity in %(title)s: %(posts)s of the %(required)s posts "
                "a day this game asks for. Post more to stay in the game.",
                required,
            )
            % values
        )
    return (
        ngettext(
            "You were prodded for inactivity: %(posts)s of the %(required)s post "
            "a day this game asks for. Post more to stay in the game.",
            "You were prodded for inactivity: %(posts)s of the %(required)s posts "
            "a day this game asks for. Post more to stay in the game.",
            required,
        )
        % values
    )


WEEKDAYS = _DAY_NAMES  # "Mon".."Sun" in the reader's language
MONTHS = _MONTH_NAMES  # "Jan".."Dec", as after a day's number
