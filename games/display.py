"""Display names of roles, alignments, modifiers and flags, read from the resolver's rule
sets (the one place both the name and the one-line text live). Pages, the API and the live
layer show these, never the slugs ("Vanilla Townie", not ``vanilla_townie``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from resolver.errors import InvalidScenario
from resolver.rulesets import get_ruleset
from resolver.rulesets.base import Ruleset


def _rules(ruleset: str | Ruleset) -> Ruleset | None:
    if not isinstance(ruleset, str):
        return ruleset
    try:
        return get_ruleset(ruleset)
    except (ImportError, InvalidScenario):
        return None


def _words(slug: str) -> str:
    return slug.replace("_", " ").title()


def role_title(ruleset: str | Ruleset, role: str) -> str:
    """ "Vanilla Townie" for ``vanilla_townie``; "Unknown" for a cleaned role; "" for none."""
    if not role:
        return ""
    if role == "unknown":
        return "Unknown"
    rules = _rules(ruleset)
    spec = rules.roles.get(role) if rules else None
    return (spec.title or _words(role)) if spec else _words(role)


def role_description(ruleset: str | Ruleset, role: str) -> str:
    rules = _rules(ruleset)
    spec = rules.roles.get(role) if rules and role else None
    return spec.description if spec else ""


def alignment_title(ruleset: str | Ruleset, alignment: str) -> str:
    if not alignment:
        return ""
    rules = _rules(ruleset)
    titles = rules.alignment_titles if rules else {}
    return titles.get(alignment, _words(alignment))


def modifier_title(ruleset: str | Ruleset, text: str) -> str:
    """ "2-Shot" for ``shots:2``, "Ninja" for ``ninja``; an unknown one as written."""
    rules = _rules(ruleset)
    return rules.describe_modifier(text)[0] if rules else text


def modifiers(ruleset: str | Ruleset, texts: Iterable[str]) -> list[dict[str, str]]:
    """``[{"slug", "title", "description"}]`` of the modifiers as written on a player."""
    rules = _rules(ruleset)
    out = []
    for text in texts:
        title, description = rules.describe_modifier(text) if rules else (text, "")
        out.append({"slug": text, "title": title, "description": description})
    return out


def full_title(
    ruleset: str | Ruleset, role: str, mods: Iterable[str] = (), alignment: str = ""
) -> str:
    """The forum-style full name: "Town 1-Shot Day Vigilante", "Mafia Ninja Goon"."""
    if not role:
        return ""
    rules = _rules(ruleset)
    if rules is None or role not in rules.roles:
        return role_title(ruleset, role)
    from resolver import role_pm

    return role_pm(rules, role, list(mods), alignment or None)["title"]


def ruleset_reference(name: str) -> dict[str, Any]:
    """A rule set's roles, modifiers, flags and alignments with display names and one-line
    texts, as ``GET /api/v1/rulesets/`` and the create form's reference table show them."""
    rules = get_ruleset(name)
    return {
        "name": name,
        "methods": list(rules.methods),
        "roles": [
            {
                "slug": r.slug,
                "title": r.title or _words(r.slug),
                "alignment": r.alignment,
                "alignment_title": alignment_title(rules, r.alignment),
                "description": r.description,
                "abilities": [a.slug for a in r.abilities],
                "ability_texts": [
                    {"slug": a.slug, "phase": a.phase, "description": a.description}
                    for a in r.abilities
                ],
                "private_thread": r.private_thread,
            }
            for r in rules.roles.values()
        ],
        # slug -> one line: the plain shape clients have always read
        "modifiers": dict(rules.modifiers),
        "modifier_list": [
            {
                "slug": m.slug,
                "form": f"{m.slug}:{m.param}" if m.param else m.slug,
                "title": m.title,
                "description": m.description,
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
                "win_condition": rules.win_conditions.get(a, ""),
            }
            for a in rules.alignments
        ],
        "sanities": list(rules.sanities),
        "flags": [
            {
                "name": f.name,
                "title": getattr(f, "title", "") or _words(f.name),
                "default": f.default,
                "choices": list(f.choices),
                "help": f.help,
            }
            for f in rules.flags.values()
        ],
        "nominations": rules.uses_nominations,
    }


def public_setup(game: Any) -> list[str] | None:
    """What the public may know of the role list: every entry with its count (open), the
    roles that may be in the game without counts (semi-open), or None (closed)."""
    if game.openness == "open":
        return [
            f"{e.get('count', 1)}× "
            + full_title(game.ruleset, e["role"], e.get("modifiers", ()), e.get("alignment", ""))
            for e in game.role_list
        ]
    if game.openness == "semi-open":
        seen: list[str] = []
        for e in game.role_list:
            title = role_title(game.ruleset, e["role"])
            if title not in seen:
                seen.append(title)
        return sorted(seen)
    return None
