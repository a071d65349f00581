"""Every role, modifier and setting name, through every place that shows it, reads as words
(issue 19, item 11): no slug (``vanilla_townie``, ``majority_hammer``), no bad plural ("1
times", "1 posts", "time(s)"), a role with its article ("They were a Goon.", "an Alien"),
no parenthesis inside a parenthesis. The names are enumerated from the resolver's rule sets
(roles, modifiers, flags, alignments) and ``games.game_settings``, never a hand list."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.template.loader import render_to_string

from games import display
from games.game_settings import SETTINGS
from games.setups import SETUPS
from games.templatetags import mafia_tags
from resolver import role_pm
from resolver.rulesets import NAMES, get_ruleset

SNAKE = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b")
BAD_PLURAL = re.compile(r"\b1 (times|posts|votes|shots|players|roles|days|nights)\b|\(s\)")
NO_ARTICLE = re.compile(r"\b(You are|They were) (?!a |an |dead|not )")
WRONG_ARTICLE = re.compile(r"\ba (?!One|Uni|Use|Eu)[AEIOU]|\ban (?![AEIOU])[A-Z]")
NESTED = re.compile(r"\([^()]*\(")

RULESETS = [get_ruleset(name) for name in NAMES]


def slugs() -> set[str]:
    """Every identifier a person must never read: role, modifier, flag, alignment slugs and
    the settings' stored values."""
    out: set[str] = set()
    for rules in RULESETS:
        out |= set(rules.roles) | set(rules.modifier_specs) | set(rules.flags)
        out |= set(rules.alignments)
    for setting in SETTINGS:
        out |= {str(value) for value, _ in setting.choices}
    return out


SLUGS = slugs()


def check(where: str, text: str, *, title: bool = False) -> None:
    """``text`` as a person reads it; ``title``: a name on its own (not prose), which must
    be no slug at all, even a one-word lowercase one ("goon")."""
    text = str(text)  # a setting's label is a lazy text, read in the active language
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", text)))
    assert not SNAKE.search(text), f"{where}: a slug in {text!r}"
    assert not BAD_PLURAL.search(text), f"{where}: a bad plural in {text!r}"
    assert not NO_ARTICLE.search(text), f"{where}: no article in {text!r}"
    assert not WRONG_ARTICLE.search(text), f"{where}: the wrong article in {text!r}"
    assert not NESTED.search(text), f"{where}: nested parentheses in {text!r}"
    if title:
        assert text.strip() and text.strip() not in SLUGS, f"{where}: a slug {text!r}"
        assert not text.strip()[0].islower(), f"{where}: a lowercase id {text!r}"


def modifier_texts(rules) -> list[str]:
    """Each modifier as written on a player: ``ninja``; ``shots:1`` and ``shots:2``."""
    out = []
    for spec in rules.modifier_specs.values():
        if spec.param:
            out += [f"{spec.slug}:{n}" for n in (spec.least, spec.least + 1)]
        else:
            out.append(spec.slug)
    return out


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.name)
def test_every_role_and_modifier_in_every_place(rules):
    for role in rules.roles:
        mods_list = [[], *([m] for m in modifier_texts(rules))]
        for mods in mods_list:
            where = f"{rules.name}/{role}/{mods}"
            for count in (1, 2):
                entry = {"role": role, "count": count, "modifiers": mods}
                # the role list (host page, sign-ups), the setup page, an open setup
                check(f"role list {where}", mafia_tags.role_entry(entry, rules.name))
                html = render_to_string(
                    "games/_role_list.html",
                    {"game": {"role_list": [entry], "role_count": count, "ruleset": rules.name}},
                )
                check(f"role list template {where}", html)
            pm = role_pm(rules, role, mods)
            # the role PM
            check(f"role PM {where}", f"You are {mafia_tags.with_article(pm['title'])}.")
            check(f"role PM title {where}", pm["title"], title=True)
            check(f"role PM role {where}", pm["role_title"], title=True)
            for line in [*pm["abilities"], pm["win_condition"] or ""]:
                check(f"role PM ability {where}", line)
            for m in pm["modifiers"]:
                check(f"role PM modifier {where}", m["title"], title=True)
                check(f"role PM modifier text {where}", f"{m['title']}: {m['description']}")
            # the host's table and the archive (alignment in its own column)
            check(
                f"host table {where}",
                display.full_title(rules, role, mods, with_alignment=False),
                title=True,
            )
        # a death announcement, as revealed
        check(f"death {rules.name}/{role}", display.death_line(rules, role))
        check(f"death md {rules.name}/{role}", display.death_line(rules, role, markdown=True))
        check(f"players panel {rules.name}/{role}", display.role_title(rules, role), title=True)
        assert display.role_title(rules, role) != role


@pytest.mark.parametrize("name", NAMES)
def test_the_api_reference_names_everything(name):
    ref = display.ruleset_reference(name)
    for role in ref["roles"]:
        check(f"api role {role['slug']}", role["title"], title=True)
        check(f"api role {role['slug']}", role["alignment_title"], title=True)
        for line in [role["description"], *(a["description"] for a in role["ability_texts"])]:
            check(f"api role text {role['slug']}", line)
    for m in ref["modifier_list"]:
        check(f"api modifier {m['slug']}", m["title"], title=True)
        check(f"api modifier text {m['slug']}", m["description"])
    for a in ref["alignments"]:
        check(f"api alignment {a['slug']}", a["title"], title=True)
        check(f"api alignment text {a['slug']}", a["win_condition"])
    for f in ref["flags"]:
        check(f"api flag {f['name']}", f["title"], title=True)
        check(f"api flag text {f['name']}", f["help"])


def test_every_setting_name():
    for setting in SETTINGS:
        if setting.label:
            check(f"setting {setting.name}", setting.label, title=True)
        check(f"setting help {setting.name}", setting.help)
        for _, label in setting.choices:
            check(f"setting choice {setting.name}", label, title=True)


@pytest.mark.django_db
@pytest.mark.parametrize("slug", list(SETUPS))
def test_every_setup_page(client, slug):
    """The setup page: its role list, rule set, vote rule and first phase in words."""
    page = client.get(f"/setups/{slug}/").content.decode()
    section = page.split('id="setup-roles"')[1].split("</section>")[0]
    check(f"setup page {slug}", section)
    assert "majority_hammer" not in page and "vanilla_townie" not in page


@pytest.mark.django_db
def test_the_create_page_names_every_setting(client_for, host):
    page = client_for(host).get("/games/new/?setup=forum-third-party-ten").content.decode()
    labels = re.findall(r"<label[^>]*>(.*?)</label>", page, flags=re.S)
    assert labels
    for label in labels:
        check("create page label", label)


@pytest.mark.django_db
def test_a_host_page_and_archive_name_roles_as_the_role_pm(make_game, client_for):
    game = make_game("forum-third-party-ten")
    page = client_for(game.host).get(f"/games/{game.pk}/host/").content.decode()
    for part in ("host-role-list", "host-roles"):
        section = page.split(f'id="{part}"')[1].split("</section>")[0]
        check(f"host page {part}", section)
    assert "1-Shot Day Vigilante" in page and "Day Vigilante 1-Shot" not in page


def test_plurals_of_parameterised_modifiers():
    forum = get_ruleset("forum")
    assert forum.describe_modifier("shots:1")[1].startswith("Can use their own abilities 1 time ")
    assert "2 times" in forum.describe_modifier("shots:2")[1]
    assert forum.describe_modifier("vote_weight:2")[1] == "Their vote counts 2 times."
