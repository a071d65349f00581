"""What a role PM says, as plain data: names, abilities, modifiers and the win condition.

A forum moderator sends each player a role PM ("You are a Town 2-Shot Vigilante...").
``role_pm`` builds its content from the rule set's tables, so the site only lays it out;
``player_role_pm`` does the same for a seat of a running game (with shots left).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .model import GameState, Player
from .rulesets import get_ruleset
from .rulesets.base import Ruleset, split_modifier
from .text import _


def role_pm(
    ruleset: str | Ruleset,
    role: str,
    modifiers: Iterable[str] = (),
    alignment: str | None = None,
    *,
    shots_left: int | None = None,
) -> dict[str, Any]:
    """The role PM of ``role`` with ``modifiers`` in ``alignment`` (default: the role's).

    Returns ``{"role", "role_title", "title", "alignment", "alignment_title",
    "description", "abilities": [line, ...], "modifiers": [{"slug", "title",
    "description"}, ...], "win_condition", "private_thread", "shots_left"}``.
    ``title`` is the full mafiascum-style name ("Town 2-Shot Vigilante"). ``shots_left``
    is None unless the role has ``shots:N`` (then N unless told how many are left).
    Raises KeyError for a role the rule set does not have.
    """
    rules = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    spec = rules.roles[role]
    alignment = alignment or spec.alignment
    mods = list(modifiers)
    # i18n: marked at its source
    abilities = [_(a.description or spec.description) for a in spec.abilities]
    player = Player("", role, alignment, tuple(mods))
    probe = GameState(rules.name, rules.methods[0], {}, (player,))
    if rules.factional_kill is not None and rules.may_use_factional_kill(probe, player):
        shared = rules.factional_kill.description
        # i18n: marked at its source
        abilities.append(_(shared) if shared else _("You share your faction's kill."))
    listed = []
    for text in mods:
        title, description = rules.describe_modifier(text)
        listed.append({"slug": text, "title": title, "description": description})
        slug, arg = split_modifier(text)
        if slug == "shots" and shots_left is None and arg is not None and arg.isdigit():
            shots_left = int(arg)
    if not any(split_modifier(m)[0] == "shots" for m in mods):
        shots_left = None
    english_alignment = rules.alignment_titles.get(alignment, "")
    english_alignment = english_alignment or alignment.replace("_", " ").title()
    english_role = spec.title or spec.slug.replace("_", " ").title()
    # i18n: marked at its source
    alignment_title, role_title = _(english_alignment), _(english_role)
    shown = " ".join([*(m["title"] for m in listed), role_title])
    title = _("%(alignment)s %(role)s") % {"alignment": alignment_title, "role": shown}
    # A role whose name already says its faction is not named twice: a third party's
    # title is its role ("Serial Killer", not "Serial Killer Serial Killer") and the mafia's
    # roleblocker is a "Mafia Roleblocker", not a "Mafia Mafia Roleblocker" (issue 33).
    if english_role == english_alignment or english_role.startswith(english_alignment + " "):
        title = shown
    return {
        "role": role,
        "role_title": role_title,
        "title": title,
        "alignment": alignment,
        "alignment_title": alignment_title,
        "description": _(spec.description),  # i18n: marked at its source
        "abilities": abilities,
        "modifiers": listed,
        "win_condition": _(rules.win_conditions.get(alignment, "")),  # i18n: marked at its source
        "private_thread": spec.private_thread,
        "shots_left": shots_left,
    }


def player_role_pm(state: GameState, name: str) -> dict[str, Any]:
    """The role PM of the player called ``name`` in a running game (shots left counted)."""
    rules = get_ruleset(state.ruleset)
    player = state.player(name)
    return role_pm(
        rules,
        player.role,
        player.modifiers,
        player.alignment,
        shots_left=rules.shots_left(state, player),
    )
