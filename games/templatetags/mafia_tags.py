"""Template filters of the game pages."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django import template
from django.utils import translation
from django.utils.dateparse import parse_datetime

# Django has it (the template engine's own localtime); django-stubs leaves it out.
from django.utils.timezone import template_localtime  # type: ignore[attr-defined]
from django.utils.translation import gettext

from .. import game_settings
from ..game_settings import length_words
from ..gateway import ability_title as rules_ability_title
from ..reads.access import cohosts as cohosts_of

register = template.Library()


@register.filter
def cohosts(game: Any) -> tuple[Any, ...]:
    """The game's co-hosts and backup hosts (``reads.access.cohosts``: read once a state)."""
    return cohosts_of(game)


@register.filter
def duration(value: timedelta | None) -> str:
    """A phase length in the host's words: "24 hours", "3 days", "90 minutes"."""
    return length_words(value)


@register.filter
def post_href(number: int | None, game_id: int) -> str:
    """The thread page and anchor of public post ``number`` ("" for none)."""
    if not number:
        return ""
    from ..fragments import post_url

    return post_url(game_id, int(number))


# Language -> (the day names, the month names, the pattern), looked up once per language.
_NAMES: dict[str | None, tuple[tuple[str, ...], tuple[str, ...], str]] = {}


def _names() -> tuple[tuple[str, ...], tuple[str, ...], str]:
    language = translation.get_language()
    names = _NAMES.get(language)
    if names is None:
        from .. import display

        names = _NAMES[language] = (
            tuple(str(d) for d in display.WEEKDAYS),
            tuple(str(m) for m in display.MONTHS),
            gettext("%(weekday)s %(day)s %(month)s %(year)s, %(time)s"),
        )
    return names


@register.filter
def post_time(value: datetime | None) -> str:
    """``value|date:"D j M Y, H:i"`` in the reader's language, without the translation
    look-ups ``date`` makes for each name: a page shows 25 posts, and those look-ups were a
    third of a post's render (the names are looked up once per language)."""
    if value is None:
        return ""
    value = template_localtime(value)
    days, months, pattern = _names()
    return pattern % {
        "weekday": days[value.weekday()],
        "day": value.day,
        "month": months[value.month - 1],
        "year": value.year,
        "time": f"{value.hour:02d}:{value.minute:02d}",
    }


@register.filter
def as_datetime(value: Any) -> datetime | None:
    """An ISO 8601 string (as in the vote count's JSON) as a datetime for ``|date``."""
    if isinstance(value, datetime) or value is None:
        return value
    return parse_datetime(str(value))


@register.filter
def count_is_final(vc: dict[str, Any] | None, game: Any) -> bool:
    """A vote count is final once its day is over (by night, or after the game)."""
    if not vc:
        return False
    return bool(vc.get("resolved")) or game.phase_number != vc.get("phase")


@register.inclusion_tag("games/_players_panel.html")
def players_panel(game: Any, viewer: Any = None) -> dict[str, Any]:
    """The players list with the viewer's vote buttons (for callers with only a game)."""
    from ..fragments import players_context

    if viewer is None:
        return players_context(game, None)
    return players_context(game, viewer=viewer)


@register.inclusion_tag("games/_phase_banner.html", takes_context=True)
def phase_banner(context: Any, game: Any) -> dict[str, Any]:
    """The phase banner of any game page (its context does not depend on the page's); a
    view that has read the current phase already passes its ``banner`` context."""
    from ..fragments import phase_banner_context

    return context.get("banner") or phase_banner_context(game)


@register.simple_tag(takes_context=True)
def vote_count_data(context: Any) -> dict[str, Any] | None:
    """The vote count in the context, as ``vc`` (the pages) or ``count`` (the live layer)."""
    return context.get("vc") or context.get("count")


# -- display names (the resolver's, never the slugs) ----------------------------------------
@register.filter
def role_name(slot: Any, ruleset: str = "") -> str:
    """A slot's full role name, forum style ("Town 1-Shot Vigilante"); "" before the deal."""
    from .. import display

    return display.full_title(
        ruleset or slot.game.ruleset, slot.role, slot.modifiers or (), slot.alignment
    )


@register.filter
def role_without_alignment(slot: Any, ruleset: str = "") -> str:
    """A slot's role name where the alignment has its own column: "1-Shot Vigilante"."""
    from .. import display

    return display.full_title(
        ruleset or slot.game.ruleset,
        slot.role,
        slot.modifiers or (),
        slot.alignment,
        with_alignment=False,
    )


@register.filter
def role_entry(entry: dict[str, Any], ruleset: str) -> str:
    """A role-list row with its count, named as its player's role PM names it:
    "1x Town 1-Shot Vigilante" (a multiplication sign)."""
    from .. import display

    return display.entry_line(ruleset, entry)


@register.filter
def role_title(role: str, ruleset: str) -> str:
    """The display name of a role slug ("Vanilla Townie"); "Unknown" for a cleaned role."""
    from .. import display

    return display.role_title(ruleset, role or "")


@register.filter
def alignment_title(alignment: str, ruleset: str) -> str:
    from .. import display

    return display.alignment_title(ruleset, alignment or "")


@register.filter
def modifier_title(text: str, ruleset: str) -> str:
    from .. import display

    return display.modifier_title(ruleset, text)


@register.filter
def ability_title(slug: str) -> str:
    """ "Day kill" for ``day_kill``, in the reader's language."""
    return rules_ability_title(slug)


@register.filter
def thought_act(act: str) -> str:
    """ "a night action" for ``night_action``: the act some thoughts came with."""
    from ..models import ThoughtAct

    label = str(dict(ThoughtAct.choices).get(act, act))
    return label[:1].lower() + label[1:]


@register.filter
def with_article(title: str) -> str:
    """ "a Town Goon", "an Alien": a role name after "You are" or "They were" (English
    only: a language without articles gets the name as it is)."""
    from .. import display

    if not (translation.get_language() or "en").startswith("en"):
        return title or ""
    return display.with_article(title or "")


@register.filter
def day_label(day: Any) -> str:
    """A V/LA day as every page writes it: "Fri 3 May"."""
    from .. import display

    return display.day_label(day) if day else ""


# -- agents: the badge after an agent's name, everywhere a name is shown ---------------------
_AGENTS_MEMO = "_agent_names"


def _agents_here(context: Any) -> frozenset[str]:
    """The agents' names, read once per page (kept on the request) or, without a request
    (a live fragment), once per render (kept at the bottom of the render context, which
    every include and inclusion tag of one render shares)."""
    request = context.get("request")
    memo = request.__dict__ if request is not None else context.render_context.dicts[0]
    names = memo.get(_AGENTS_MEMO)
    if names is None:
        from ..reads.agents import current_agent_names

        names = memo[_AGENTS_MEMO] = current_agent_names()
    return names


@register.simple_tag(takes_context=True)
def agent_badge(context: Any, name: Any) -> str:
    """``games/_agent_badge.html`` after ``name`` if it is an agent's (a user name), else
    nothing: ``{{ p.name }}{% agent_badge p.name %}``. Whether an account is an agent
    never changes, so the cached parts (posts, the vote count, the players list) keep it
    right. A game that hides its agents (a blind game before its end:
    ``reads.agents.agents_hidden``) shows none: the page's ``game``, or a post's own
    (asked only when the name is an agent's, so a page costs no query)."""
    if not name or str(name) not in _agents_here(context):
        return ""
    from ..reads.agents import agents_hidden

    game = context.get("game")
    if game is None and (post := context.get("post")) is not None:
        game = getattr(post, "game", None)
    if game is not None and agents_hidden(game):
        return ""
    from django.template.loader import get_template
    from django.utils.safestring import mark_safe

    # The template's one line, without the file's closing newline (it sits after a name).
    return mark_safe(get_template("games/_agent_badge.html").render().rstrip("\n"))


@register.filter
def joined_of(count: int, cap: int | None = None) -> str:
    """``{{ count|joined_of:cap }}``: "1 of 7 players has joined" (``display.joined_line``)."""
    from .. import display

    return display.joined_line(int(count), None if cap is None else int(cap))


@register.filter
def first_phase(starts_with: str) -> str:
    """``{{ game.starts_with|first_phase }}``: "The game starts with a day." (one sentence,
    ``display.first_phase_line``)."""
    from .. import display

    return display.first_phase_line(str(starts_with))


@register.simple_tag
def house_rules(game: Any) -> list[str]:
    """``{% house_rules game as rules %}``: what the game's settings change from the usual
    game, a sentence each (``game_settings.house_rules``)."""
    return game_settings.house_rules(game)
