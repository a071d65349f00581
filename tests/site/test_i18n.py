"""Issue 35, part 4: every player-facing string goes through Django's translation machinery,
and Russian is complete. The guard, in five parts:

a. templates: no human text outside {% translate %} / {% blocktranslate %} (Django's own
   template lexer; text nodes and the attributes a reader meets: aria-label, title,
   placeholder, alt, a button's value);
b. Python: every gettext call takes literal strings, and no translated string is glued
   into a sentence with ``+``, an f-string or ``.format()``;
c. the catalogue (locale/ru/LC_MESSAGES/django.po): complete, its placeholders kept, its
   .mo compiled from it, and every string marked in the code is in it;
d. the pages, rendered in Russian for every kind of viewer over every rule set's games,
   carry no English word; a notification, the mails and the thread's automatic posts
   written for a Russian person or game are Russian;
e. the Russian wording says what the English tests check (the sign-up count's plurals).

Each check's failure message lists everything still left, file by file or page by page.
The checkers themselves are tested on planted bad input (``test_the_*_checker_*``).
"""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polib  # type: ignore[import-untyped]
import pytest
from django.core import mail
from django.core.management import call_command
from django.template.base import Lexer, TokenType
from django.test import Client, override_settings
from django.utils import translation

from tests.factories import UserFactory

ROOT = Path(__file__).resolve().parent.parent.parent
TEMPLATES = ROOT / "templates"
CATALOGUE = ROOT / "locale" / "ru" / "LC_MESSAGES" / "django.po"
# The site's Python: what a player or host may read is made here.
PACKAGES = (
    "games",
    "notifications",
    "league",
    "agents",
    "analytics",
    "ratings",
    "webhooks",
    "mafia_site",
    "resolver",
)

# Latin tokens that are not English words: abbreviations and syntax a Russian page keeps
# (CONVENTIONS.md), a language's own name in the language switcher, the bold vote's
# keywords (the vote parser reads them in any game) and the site's name.
ALLOWED_WORDS = frozenset(
    {
        "ISO",
        "RAR",
        "NAR",
        "API",
        "URL",
        "UTC",
        "JSON",
        "PM",
        "PMs",
        "CSV",
        "HTML",
        "Markdown",
        "BBCode",
        "English",  # the language switcher names each language in itself
        "Vote",  # **Vote: Name** / **Unvote**: what the vote parser reads
        "Unvote",
        "e-mail",  # as Russian writes it ("адрес e-mail")
        "Push",  # "Push-уведомления"
        "mafiascum",  # a forum's name ("в стиле mafiascum")
        "http",  # "адрес http(s)"
        "Slack",  # chat services a host may connect
        "Discord",
        "SVG",
        "PNG",
        "ELO",
        "Elo",
        "TrueSkill",
        "OpenAPI",
        "Swagger",
        "ReDoc",
        "HTTP",
        "HTTPS",
        "SSE",
        "WebSocket",
        "Token",  # the Authorization header's scheme ("Authorization: Token ...")
        "Authorization",
        "Bearer",
    }
)
# Names of rule sets' methods and of the game's own markers shown as is ("L-1", "V/LA").
ALLOWED_PATTERNS = (re.compile(r"^L-\d+$"), re.compile(r"^V/LA$"))
# Names of more than one word, kept as they are: the site's, a program's.
ALLOWED_PHRASES = ("Forum Mafia", "Celery beat")


def allowed(word: str) -> bool:
    """A Latin token a Russian text may keep: an allowed word or marker, an identifier with
    a digit in it ("gpt-5", "P3"), or allowed words joined by a hyphen ("API-токены")."""
    if word in ALLOWED_WORDS or any(p.match(word) for p in ALLOWED_PATTERNS):
        return True
    if any(c.isdigit() for c in word):
        return True
    parts = [p for p in word.split("-") if p]
    joined = len(parts) > 1 or word.endswith("-")
    return joined and bool(parts) and all(p in ALLOWED_WORDS for p in parts)


# -- a. the templates -----------------------------------------------------------------------
# Attributes a reader meets (screen readers, tooltips, empty fields, images).
READ_ATTRIBUTES = ("aria-label", "title", "placeholder", "alt")
# Elements whose text is not prose: code, scripts, styles, preformatted samples.
NOT_PROSE = {"script", "style", "code", "kbd", "samp", "pre"}
# A human word: two letters or more (a single letter is a variable or a list marker).
WORD = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z'’]+(?:-[A-Za-z]+)*")
# Stands for a template tag or variable in the text handed to the HTML parser.
HOLE = "\x00"


# A block filling a tag's attributes ({% block body_attrs %}data-thread="role"{% endblock %}):
# attributes, not text.
ATTRIBUTE_TEXT = re.compile(r"""[\w:.-]+=(?:"[^"]*"|'[^']*')""")


def template_skeleton(source: str) -> str:
    """The template's text as the HTML parser should read it: each variable or tag a hole,
    the text of {% blocktranslate %} and {% comment %} blocks left out (newlines kept,
    so line numbers still point into the template)."""
    out: list[str] = []
    skipping: str | None = None  # the end tag of the block being skipped
    for token in Lexer(source).tokenize():
        content = token.contents
        if token.token_type == TokenType.BLOCK:
            name = content.split(" ", 1)[0] if content else ""
            if skipping is not None:
                if name == skipping:
                    skipping = None
                out.append(HOLE)
                continue
            if name in ("blocktranslate", "blocktrans"):
                skipping = "end" + name
            elif name == "comment":
                skipping = "endcomment"
            elif name == "verbatim":
                skipping = "endverbatim"
            out.append(HOLE)
        elif token.token_type == TokenType.VAR:
            out.append(HOLE)
        elif token.token_type == TokenType.COMMENT:
            continue
        else:  # text
            out.append("\n" * content.count("\n") if skipping is not None else content)
    return "".join(out)


def english_words(text: str) -> list[str]:
    """The words of ``text`` that are English prose (not allowed tokens)."""
    text = text.replace(HOLE, " ")
    for phrase in ALLOWED_PHRASES:
        text = text.replace(phrase, " ")
    text = re.sub(r"https?://\S+|\S+@\S+\.\w+", " ", text)  # URLs and addresses
    return [w for w in WORD.findall(text) if not allowed(w)]


class _TemplateText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.found: list[tuple[int, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name in READ_ATTRIBUTES:
            self._check(values.get(name))
        kind = (values.get("type") or "").lower()
        if tag == "input" and kind in ("submit", "button", "reset"):  # (a button's is data)
            self._check(values.get("value"))
        if tag not in ("br", "hr", "img", "input", "meta", "link", "source", "wbr", "col"):
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if self.open and self.open[-1] == tag:
            self.open.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            while self.open and self.open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if not NOT_PROSE.intersection(self.open):
            # (the line of the text's first word, not of the newline before it)
            self._check(data, data[: len(data) - len(data.lstrip())].count("\n"))

    def _check(self, text: str | None, lines_before: int = 0) -> None:
        if text and english_words(re.sub(ATTRIBUTE_TEXT, " ", text)):
            line = self.getpos()[0] + lines_before
            self.found.append((line, " ".join(text.replace(HOLE, " ").split())))


def untranslated_template_text(source: str) -> list[tuple[int, str]]:
    """(line, text) of every piece of human text outside the translation tags."""
    parser = _TemplateText()
    parser.feed(template_skeleton(source))
    parser.close()
    return parser.found


def test_the_template_checker_finds_text_outside_the_translation_tags() -> None:
    bad = (
        '{% load i18n %}<h1>{% translate "Games" %}</h1>\n'
        "<p>Sign-ups are open.</p>\n"
        '<button type="submit" title="Vote now">{% translate "Vote" %}</button>\n'
        '<input type="submit" value="Send">\n'
        '<input type="text" placeholder="Your name">\n'
        '<img src="x.png" alt="A bell">\n'
        '<nav aria-label="Pages"></nav>\n'
        "{{ game.title }} hosted by {{ host }}\n"
    )
    found = untranslated_template_text(bad)
    assert [line for line, _text in found] == [2, 3, 4, 5, 6, 7, 8], found
    good = (
        '{% load i18n %}<h1>{% translate "Games" %}</h1>{# a comment in English #}\n'
        "{% comment %}Anything at all here.{% endcomment %}\n"
        "{% blocktranslate trimmed with n=count %}{{ n }} players{% endblocktranslate %}\n"
        '<nav aria-label="{% translate "Pages" %}">{{ page }} · ISO · L-1 · 3/7</nav>\n'
        "<script>const words = 'not prose';</script><code>Vote: Name</code>\n"
        '<input type="hidden" value="something"><a href="/help/">→</a> UTC\n'
    )
    assert untranslated_template_text(good) == []


def template_files() -> Iterator[Path]:
    yield from sorted(p for p in TEMPLATES.rglob("*") if p.suffix in (".html", ".txt"))


def test_no_template_has_text_outside_the_translation_tags() -> None:
    left = [
        f"{path.relative_to(ROOT)}:{line}: {text[:100]}"
        for path in template_files()
        for line, text in untranslated_template_text(path.read_text())
    ]
    assert not left, f"{len(left)} pieces of template text not translated:\n" + "\n".join(left)


# -- b. the Python ------------------------------------------------------------------------------
# The translation functions, and which of their arguments are texts (context first).
TEXT_ARGUMENTS = {
    "_": (0,),
    "gettext": (0,),
    "gettext_lazy": (0,),
    "gettext_noop": (0,),
    "ngettext": (0, 1),
    "ngettext_lazy": (0, 1),
    "pgettext": (0, 1),
    "pgettext_lazy": (0, 1),
    "npgettext": (0, 1, 2),
    "npgettext_lazy": (0, 1, 2),
}


def _function_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in ("translation", "django_translation")
    ):
        return node.attr
    return None


def _is_translation(node: ast.AST) -> bool:
    """A call of a translation function, or one %-formatted: ``_("...") % {...}``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _is_translation(node.left)
    return isinstance(node, ast.Call) and _function_name(node.func) in TEXT_ARGUMENTS


def _is_fragment(node: ast.AST) -> bool:
    """A translated piece that is not a whole sentence or line (its English does not end
    with . ! ? … or :, markup and quotes aside): glued to anything, it is half a sentence."""
    while isinstance(node, ast.BinOp):
        node = node.left
    assert isinstance(node, ast.Call)
    name = _function_name(node.func) or ""
    texts = [node.args[i] for i in TEXT_ARGUMENTS[name] if i < len(node.args)]
    last = texts[-1] if texts else None
    if not (isinstance(last, ast.Constant) and isinstance(last.value, str)):
        return True
    return not re.search(r"[.!?…:]$", last.value.rstrip(" *_»\"')\n"))


def _words(text: str) -> bool:
    """Literal text glued to a translation: words of a sentence (letters and a space), or
    layout ("\\n\\n", "**", a markup token such as "author")."""
    return bool(re.search(r"[^\W\d_]{2}", text) and re.search(r"\s", text))


def _glued(pieces: Sequence[ast.AST], literal: str) -> bool:
    """Whether pieces joined around a translation make a sentence no translator sees whole:
    literal words beside it, or a translated fragment beside anything that is not layout."""
    translated = [p for p in pieces if _is_translation(p)]
    if not translated:
        return False
    if _words(literal):
        return True
    # (layout: a literal without letters, "- " or "\\n\\n")
    others = [
        p
        for p in pieces
        if not _is_translation(p)
        and not (isinstance(p, ast.Constant | ast.JoinedStr) and not _letters(_literal(p)))
    ]
    return any(_is_fragment(t) for t in translated) and (bool(others) or len(translated) > 1)


def _letters(text: str) -> bool:
    return bool(re.search(r"[^\W\d_]", text))


def _sum_terms(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _sum_terms(node.left) + _sum_terms(node.right)
    return [node]


def _literal(node: ast.AST) -> str:
    """The literal text of a piece (a string constant, an f-string's constant parts)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_literal(v) for v in node.values)
    return ""


# A translation of a text made elsewhere (a resolver's role description marked there with
# gettext_noop, a constant marked where it is defined) says so on its line.
MARKED_AT_SOURCE = "# i18n: marked at its source"


def translation_misuse(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """(line, what) of every translation call that cannot be translated as written.

    Refused: a translation function given anything but literal strings (an f-string, a
    sum, a variable), unless it is a wrapper passing on its own parameter (``def _(text):
    return gettext_lazy(text)``: its callers' literals are what xgettext reads) or the line
    says ``# i18n: marked at its source``; a translated text filled by ``.format()``; and
    a translated text glued with ``+`` or an f-string to words, or a translated fragment
    glued to anything but layout."""
    found: list[tuple[int, str]] = []
    lines = source.splitlines()
    tree = ast.parse(source, filename)
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node

    def parameters_around(node: ast.AST) -> set[str]:
        while node in parents:
            node = parents[node]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                args = node.args
                return {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
        return set()

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _function_name(node.func)
            if name in TEXT_ARGUMENTS:
                for i in TEXT_ARGUMENTS[name]:
                    if i >= len(node.args):
                        continue
                    arg = node.args[i]
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        continue
                    if isinstance(arg, ast.Name) and arg.id in parameters_around(node):
                        continue  # a wrapper: its callers give the literals
                    said = lines[node.lineno - 1 : (node.end_lineno or node.lineno)]
                    above = lines[node.lineno - 2] if node.lineno > 1 else ""
                    if above.strip().startswith("#"):  # (or a comment line of its own above)
                        said = [above, *said]
                    if any(MARKED_AT_SOURCE in line for line in said):
                        continue
                    what = type(arg).__name__
                    if isinstance(arg, ast.JoinedStr):
                        what = "an f-string"
                    elif isinstance(arg, ast.BinOp):
                        what = "a computed text"
                    elif isinstance(arg, ast.Name):
                        what = f"the variable {arg.id}"
                    found.append((node.lineno, f"{name}() of {what}, not a literal"))
            # _("...").format(...): placeholders are %(name)s, filled with %
            if (
                isinstance(node.func, ast.Attribute)
                and node.func.attr == "format"
                and _is_translation(node.func.value)
            ):
                found.append((node.lineno, "a translated text filled by .format()"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            parent = parents.get(node)
            if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add):
                continue  # the outermost sum is checked whole
            terms = _sum_terms(node)
            if _glued(terms, "".join(_literal(t) for t in terms)):
                found.append((node.lineno, "a translated text joined with + into a sentence"))
        elif isinstance(node, ast.JoinedStr):
            inside = [v.value for v in node.values if isinstance(v, ast.FormattedValue)]
            if _glued(inside, _literal(node)):
                found.append((node.lineno, "a translated text put into an f-string"))
    return sorted(found)


def test_the_python_checker_finds_texts_that_cannot_be_translated() -> None:
    bad = """
from django.utils.translation import gettext as _, ngettext, pgettext
a = _(f"{name} voted")
b = _("You ") + name
c = "You " + _("voted")
d = _("Day") + " " + _("ends")
e = f"{_('Day')} {n} begins"
f = ngettext("%(n)s vote", message, n)
g = _("%s voted" % name)
h = _("{name} voted").format(name=name)
i = pgettext("button", "Vote " + "now" + suffix)
j = _(message)
k = _(reason)  # i18n: marked at its source
l = _("%(kill)s was stopped by %(action)s") % {"kill": k, "action": a} + why
"""
    found = translation_misuse(bad)
    assert [line for line, _what in found] == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14], found
    good = """
from django.utils.translation import gettext as _, ngettext, pgettext_lazy
a = _("%(name)s voted for %(target)s.") % {"name": name, "target": target}
b = ngettext("%(n)s vote", "%(n)s votes", n) % {"n": n}
c = _("One sentence, " "written in two literals.")
d = "\\n\\n" + _("A paragraph.")
e = f"**{_('Day %(n)s') % {'n': n}}**"
f = ", ".join(names) + "."
g = pgettext_lazy("button", "Vote")
h = f"{_OPEN}author{_CLOSE}" + _("%(name)s wrote:") % {"name": name} + f"{_END}"
i = text + " " + _("Open this to appeal.")
j = _("**%(name)s's last will:**") % {"name": name} + f"\\n\\n{quoted}"


def _(text):
    return gettext_lazy(text)
"""
    assert translation_misuse(good) == []


def python_files() -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts and "tests" not in path.parts:
                yield path


def test_every_translated_text_in_the_python_can_be_translated() -> None:
    left = [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for path in python_files()
        for line, what in translation_misuse(path.read_text(), str(path))
    ]
    assert not left, (
        f"{len(left)} texts that cannot be translated (a literal per call, %(name)s "
        "placeholders, whole sentences; a text marked with gettext_noop where it is made "
        f"says {MARKED_AT_SOURCE!r} on the line that translates it):\n" + "\n".join(left)
    )


# -- c. the catalogue ----------------------------------------------------------------------------
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdifr]|%[sdif]")


def placeholders(text: str) -> list[str]:
    return sorted(m.group(0) for m in PLACEHOLDER.finditer(text.replace("%%", "")))


def _entry_name(entry: polib.POEntry) -> str:
    context = f"[{entry.msgctxt}] " if entry.msgctxt else ""
    return f"{context}{entry.msgid!r}"


def catalogue_problems(po: polib.POFile) -> list[str]:
    """Entries without a translation, fuzzy ones, and translations that lose, add or
    change a placeholder (a plural form: each form has every placeholder of both English
    forms, since Russian's "one" form also serves 21, 31...)."""
    problems = []
    for entry in po:
        if entry.obsolete:
            continue
        name = _entry_name(entry)
        if "fuzzy" in entry.flags:
            problems.append(f"fuzzy: {name}")
            continue
        if entry.msgid_plural:
            forms = [entry.msgstr_plural.get(i, "") for i in range(3)]
            wanted = set(placeholders(entry.msgid)) | set(placeholders(entry.msgid_plural))
            if not all(forms):
                problems.append(f"untranslated (a plural form is empty): {name}")
                continue
            for i, form in enumerate(forms):
                have = set(placeholders(form))
                if have != wanted:
                    problems.append(
                        f"placeholders of plural form {i} are {sorted(have)}, "
                        f"not {sorted(wanted)}: {name}"
                    )
        else:
            if not entry.msgstr:
                problems.append(f"untranslated: {name}")
                continue
            if set(placeholders(entry.msgstr)) != set(placeholders(entry.msgid)):
                problems.append(
                    f"placeholders {placeholders(entry.msgstr)} instead of "
                    f"{placeholders(entry.msgid)}: {name}"
                )
    return problems


def test_the_catalogue_checker_finds_gaps_and_lost_placeholders() -> None:
    po = polib.POFile()
    po.append(polib.POEntry(msgid="Games", msgstr="Игры"))
    po.append(polib.POEntry(msgid="Day %(n)s", msgstr="День"))
    po.append(polib.POEntry(msgid="Night", msgstr=""))
    po.append(polib.POEntry(msgid="Host", msgstr="Ведущий", flags=["fuzzy"]))
    po.append(
        polib.POEntry(
            msgid="%(n)s player",
            msgid_plural="%(n)s players",
            msgstr_plural={0: "%(n)s игрок", 1: "%(n)s игрока", 2: "игроков"},
        )
    )
    po.append(
        polib.POEntry(
            msgid="One vote",
            msgid_plural="%(n)s votes",
            msgstr_plural={0: "%(n)s голос", 1: "%(n)s голоса", 2: "%(n)s голосов"},
        )
    )
    problems = catalogue_problems(po)
    assert len(problems) == 4, problems
    assert [p.split(":")[0] for p in problems] == [
        "placeholders [] instead of ['%(n)s']",
        "untranslated",
        "fuzzy",
        "placeholders of plural form 2 are [], not ['%(n)s']",
    ]


def test_the_russian_catalogue_is_complete_and_keeps_its_placeholders() -> None:
    po = polib.pofile(str(CATALOGUE))
    problems = catalogue_problems(po)
    assert not problems, (
        f"{len(problems)} problems in {CATALOGUE.relative_to(ROOT)} "
        "(translate in locale/ru/LC_MESSAGES/django.po, then python scripts/i18n.py compile):\n"
        + "\n".join(problems)
    )


def _served(entries: Iterable[polib.POEntry | polib.MOEntry]) -> dict[tuple[str, str], Any]:
    served: dict[tuple[str, str], Any] = {}
    for entry in entries:
        if not entry.msgid or "fuzzy" in getattr(entry, "flags", []) or entry.obsolete:
            continue
        if entry.msgid_plural:
            forms = {int(k): v for k, v in entry.msgstr_plural.items()}
            if all(forms.values()):
                served[(entry.msgctxt or "", entry.msgid)] = forms
        elif entry.msgstr:
            served[(entry.msgctxt or "", entry.msgid)] = entry.msgstr
    return served


def test_the_compiled_catalogue_is_the_catalogue() -> None:
    po = _served(polib.pofile(str(CATALOGUE)))
    mo = _served(polib.mofile(str(CATALOGUE.with_suffix(".mo"))))
    stale = sorted(k for k in po.keys() | mo.keys() if po.get(k) != mo.get(k))
    assert not stale, (
        f"django.mo differs from django.po in {len(stale)} entries "
        "(python scripts/i18n.py compile):\n" + "\n".join(repr(k[1]) for k in stale)
    )


def _scripts_i18n() -> Any:
    spec = importlib.util.spec_from_file_location("scripts_i18n", ROOT / "scripts" / "i18n.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_marked_string_is_in_the_catalogue(tmp_path: Path, monkeypatch) -> None:
    """The extraction (scripts/i18n.py's, into a copy of the catalogue) finds nothing the
    catalogue lacks: a string marked since the last build has no Russian yet."""
    if not shutil.which("xgettext") or not shutil.which("msgmerge"):
        pytest.fail("GNU gettext (xgettext, msgmerge) is needed to extract the strings")
    script = _scripts_i18n()
    copy = tmp_path / "ru" / "LC_MESSAGES" / "django.po"
    copy.parent.mkdir(parents=True)
    shutil.copy(CATALOGUE, copy)
    monkeypatch.chdir(ROOT)
    with override_settings(LOCALE_PATHS=[tmp_path]):
        call_command(
            "makemessages",
            locale=["ru"],
            ignore_patterns=list(script.IGNORE),
            no_obsolete=True,
            add_location="file",
            no_wrap=True,
            verbosity=0,
        )
    extracted = polib.pofile(str(copy))
    known = {script.key(e) for e in polib.pofile(str(CATALOGUE)) if script.translated(e)}
    left = [
        f"{_entry_name(e)}  [{', '.join(sorted({p for p, _line in e.occurrences}))}]"
        for e in extracted
        if not e.obsolete and script.key(e) not in known
    ]
    assert not left, (
        f"{len(left)} marked strings have no Russian in the catalogue "
        "(python scripts/i18n.py build; translate in locale/ru/LC_MESSAGES/django.po):\n"
        + "\n".join(left)
    )


# -- d. the pages in Russian ----------------------------------------------------------------------
@pytest.fixture
def host(db: Any) -> Any:
    """Every person of these tests has a Cyrillic name: a Latin word left on a page is
    the site's, never a name."""
    return UserFactory(username="Ведущий")


@pytest.fixture
def make_users(db: Any) -> Any:
    def make(n: int, prefix: str = "Игрок") -> list[Any]:
        return [UserFactory(username=f"{prefix}{i}") for i in range(1, n + 1)]

    return make


def russian(*users: Any) -> None:
    from games.models import AccountSettings

    for user in users:
        AccountSettings.objects.update_or_create(user=user, defaults={"language": "ru"})


def client_in_russian(user: Any = None) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="ru")
    if user is not None:
        russian(user)
        client.force_login(user)
    return client


class _ReadText(HTMLParser):
    """What a reader of a page meets: its text and the attributes read aloud or shown."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.parts += [values.get(name) or "" for name in READ_ATTRIBUTES]
        kind = (values.get("type") or "").lower()
        if tag == "input" and kind in ("submit", "button", "reset"):
            self.parts.append(values.get("value") or "")
        if tag not in ("br", "hr", "img", "input", "meta", "link", "source", "wbr", "col"):
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            while self.open and self.open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if not NOT_PROSE.intersection(self.open):
            self.parts.append(data)


def shown_text(html: str) -> str:
    parser = _ReadText()
    parser.feed(html)
    parser.close()
    return " ".join(" ".join(parser.parts).split())


def without_names(text: str, names: Iterable[str]) -> str:
    """``text`` without the people's names, game titles and other data (longest first)."""
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", text)
    return text


def latin_words(text: str) -> list[str]:
    """English left in a Russian text: Latin words of three letters or more."""
    for phrase in ALLOWED_PHRASES:
        text = text.replace(phrase, " ")
    text = re.sub(r"https?://\S*|\S+@\S+\.\w+|/[\w/.?=&-]+", " ", unescape(text))
    words = re.findall(r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9/-]*", text)
    return [w for w in words if sum(c.isalpha() for c in w) >= 3 and not allowed(w)]


def test_the_page_checker_finds_english_in_a_russian_page() -> None:
    page = (
        '<html><head><title>Игры</title><script>var x = "script text"</script></head>'
        '<body><nav aria-label="Main menu">Игры</nav><p>Day 2 begins. Голосуйте: '
        "<code>Vote: Name</code>, ISO, L-1, UTC.</p>"
        '<button title="Проголосовать" value="yes">ok</button><input type="submit" value="Send">'
        "<p>Игрок1 и Alice Smith, https://example.com/x, игра «Town Test»</p></body></html>"
    )
    text = without_names(shown_text(page), ["Alice Smith", "Town Test"])
    assert latin_words(text) == ["Main", "menu", "Day", "begins", "Send"]


@dataclass
class Seen:
    """Every English word found, and the pages it was found on."""

    words: dict[str, set[str]]
    broken: list[str]

    def report(self) -> str:
        by_page: dict[str, list[str]] = defaultdict(list)
        for word, pages in self.words.items():
            for page in pages:
                by_page[page].append(word)
        lines = [f"{page}: {', '.join(sorted(set(ws)))}" for page, ws in sorted(by_page.items())]
        return "\n".join(self.broken + lines)

    def __bool__(self) -> bool:
        return bool(self.words or self.broken)


def _names() -> list[str]:
    from django.contrib.auth import get_user_model

    from games.models import Game

    names = list(get_user_model().objects.values_list("username", flat=True))
    names += list(Game.objects.values_list("title", flat=True))
    names += ["demo", "-bot"]  # the demo's accounts, which the sign-up page says are taken
    # (a ready-made setup's name is translated where it is shown: not a name here)
    return [str(n) for n in names]


def read_pages(pages: Iterable[tuple[str, Client, str]], *, must_answer: bool = False) -> Seen:
    """Render each (label, client, URL) and gather the English words left."""
    seen = Seen(defaultdict(set), [])
    names = _names()
    for label, client, url in pages:
        response = client.get(url)
        if response.status_code in (301, 302):
            seen.broken.append(f"{label} ({url}): answered {response.status_code}")
            continue
        if response.status_code != 200 and must_answer:
            seen.broken.append(f"{label} ({url}): answered {response.status_code}")
            continue
        if "html" not in response.get("Content-Type", ""):
            continue
        text = without_names(shown_text(response.content.decode()), names)
        for word in latin_words(text):
            seen.words[word].add(f"{label} ({url})")
    return seen


# Pages of a game, by the kind of viewer: (page, URL inside the game).
GAME_PAGES: dict[str, tuple[tuple[str, str], ...]] = {
    "anonymous": (
        ("thread", ""),
        ("votes", "votes/"),
        ("activity", "activity/"),
        ("ISO", "?iso=1"),
    ),
    "non-player": (("thread", ""), ("votes", "votes/")),
    "town": (("thread", ""), ("role PM", "role/"), ("votes", "votes/"), ("activity", "activity/")),
    "mafia": (("thread", ""), ("role PM", "role/"), ("mafia thread", "t/mafia/")),
    "dead": (("thread", ""), ("role PM", "role/"), ("dead thread", "t/dead/")),
    "host": (("thread", ""), ("host dashboard", "host/"), ("mafia thread", "t/mafia/")),
}


def _viewers(game: Any, outsider: Any) -> dict[str, Client]:
    from games import services

    slots = list(game.slots.select_related("user").order_by("seat"))
    town = [s for s in slots if s.alignment == "town" and s.alive]
    mafia = [s for s in slots if s.alignment == "mafia" and s.alive]
    viewers = {
        "anonymous": Client(HTTP_ACCEPT_LANGUAGE="ru"),
        "non-player": client_in_russian(outsider),
        "host": client_in_russian(game.host),
    }
    if game.status == "running" and len(town) > 2:
        # One townie modkilled: a dead player's view.
        dead = town.pop()
        services.modkill(game.host, game.pk, dead.pk, reason="тест")
        viewers["dead"] = client_in_russian(dead.user)
    if town:
        viewers["town"] = client_in_russian(town[0].user)
    if mafia:
        viewers["mafia"] = client_in_russian(mafia[0].user)
    return viewers


RULE_SET_GAMES = (
    pytest.param("forum-cop-nine", {}, id="forum"),
    pytest.param("classic-ten", {"table": True}, id="classic-table"),
    pytest.param("city-ten", {"table": True}, id="city-table"),
    pytest.param("power-nine", {}, id="power"),
)


@pytest.mark.django_db
@pytest.mark.parametrize(("setup", "options"), RULE_SET_GAMES)
def test_a_russian_games_pages_are_russian_for_every_viewer(make_game, setup, options) -> None:
    from games.models import Post

    game = make_game(setup, language="ru", **options)
    outsider = UserFactory(username="Зритель")
    viewers = _viewers(game, outsider)
    pages = [
        (f"{setup}, {viewer}, {page}", viewers[viewer], f"/games/{game.pk}/{suffix}")
        for viewer, listed in GAME_PAGES.items()
        if viewer in viewers
        for page, suffix in listed
    ]
    seen = read_pages(pages)
    # The thread's automatic posts are in the game's language, whoever reads them.
    names = _names()
    for post in Post.objects.filter(game=game, is_auto=True):
        for word in latin_words(without_names(shown_text(post.html), names)):
            seen.words[word].add(f"{setup}, automatic post #{post.number} ({post.thread})")
    assert not seen, f"English left in the Russian pages of a {setup} game:\n{seen.report()}"


@pytest.mark.django_db
def test_a_russian_games_sign_ups_and_end_are_russian(make_game, make_users) -> None:
    from games import services

    signups = make_game("forum-vanilla", start=False, language="ru")
    outsider = UserFactory(username="Зритель")
    player = signups.slots.select_related("user").first().user
    pages = [
        (f"sign-ups, {who}", client, f"/games/{signups.pk}/{suffix}")
        for who, client, suffixes in (
            ("anonymous", Client(HTTP_ACCEPT_LANGUAGE="ru"), ("",)),
            ("non-player", client_in_russian(outsider), ("",)),
            ("player", client_in_russian(player), ("",)),
            ("host", client_in_russian(signups.host), ("", "host/")),
        )
        for suffix in suffixes
    ]
    ended = make_game("forum-vanilla", language="ru")
    for slot in ended.slots.filter(alignment="mafia"):
        services.modkill(ended.host, ended.pk, slot.pk, reason="тест")
    ended.refresh_from_db()
    assert ended.status == "finished"
    anonymous, host = Client(HTTP_ACCEPT_LANGUAGE="ru"), client_in_russian(ended.host)
    for suffix in ("", "archive/", "review/", "votes/", "activity/"):
        pages.append(
            (f"ended, anonymous, {suffix or 'thread'}", anonymous, f"/games/{ended.pk}/{suffix}")
        )
    pages.append(("ended, host, thread", host, f"/games/{ended.pk}/"))
    seen = read_pages(pages)
    assert not seen, f"English left in Russian sign-ups and ended games:\n{seen.report()}"


# Pages outside a game (tests/e2e/test_accessibility.py's SITE_PAGES): (page, URL, viewers).
SITE_PAGES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("lobby", "/", ("anonymous", "person")),
    ("my games", "/my-games/", ("person",)),
    ("my agents", "/agents/", ("person",)),
    ("league", "/league/", ("anonymous",)),
    ("log in", "/accounts/login/", ("anonymous",)),
    ("sign up", "/accounts/signup/", ("anonymous",)),
    ("e-mail addresses", "/accounts/email/", ("person",)),
    ("change password", "/accounts/password/change/", ("person",)),
    ("language", "/accounts/language/", ("person",)),
    ("API tokens", "/accounts/tokens/", ("person",)),
    ("open data", "/accounts/open-data/", ("person",)),
    ("declare an alternate", "/accounts/alt/", ("person",)),
    ("reset password", "/accounts/password/reset/", ("anonymous",)),
    ("reset mail sent", "/accounts/password/reset/done/", ("anonymous",)),
    ("reset link not valid", "/accounts/password/reset/key/1-bad/", ("anonymous",)),
    ("verification link not valid", "/accounts/confirm-email/bad-key/", ("anonymous",)),
    ("new game", "/games/new/", ("person",)),
    ("new forum game form", "/games/new/?setup=forum-cop-nine", ("person",)),
    ("new table game form", "/games/new/?setup=classic-ten", ("person",)),
    ("new city game form", "/games/new/?setup=city-ten", ("person",)),
    ("new power game form", "/games/new/?setup=power-nine", ("person",)),
    ("setup", "/setups/forum-cop-nine/", ("anonymous",)),
    ("not found", "/games/999999/", ("anonymous",)),
    ("notifications", "/notifications/", ("person",)),
    ("notification settings", "/notifications/settings/", ("person",)),
    ("my bookmarks", "/bookmarks/", ("person",)),
    ("leaderboard", "/leaderboard/forum/", ("anonymous",)),
    ("player's page", "/players/Ведущий/", ("anonymous",)),
    ("setup statistics", "/setups/forum-cop-nine/stats/", ("anonymous",)),
    ("player statistics", "/players/Ведущий/stats/", ("anonymous",)),
    ("behaviour leaderboard", "/leaderboard/forum/behaviour/?sort=survival", ("anonymous",)),
    ("duplicate series", "/league/series/", ("anonymous",)),
    ("offline page", "/offline/", ("anonymous",)),
)


@pytest.mark.django_db
def test_the_sites_pages_are_russian(host) -> None:
    viewers = {"anonymous": Client(HTTP_ACCEPT_LANGUAGE="ru"), "person": client_in_russian(host)}
    seen = read_pages(
        (f"{page}, {viewer}", viewers[viewer], url)
        for page, url, who in SITE_PAGES
        for viewer in who
    )
    assert not seen, f"English left in the site's Russian pages:\n{seen.report()}"


@pytest.mark.django_db
def test_what_is_written_for_a_russian_person_is_russian(make_game, settings) -> None:
    """A notification, the digest mail and an account mail, each written for a person who
    chose Russian (the digest and notification while they are away)."""
    from allauth.account.models import EmailAddress

    from games import services
    from notifications import mail as digests
    from notifications.models import Notification

    game = make_game("forum-vanilla", start=False, language="ru")
    players = [s.user for s in game.slots.select_related("user")]
    russian(*players)
    services.start_game(game.host, game.pk)
    names = [*_names(), "testserver", "example.com"]  # (the test's site and mail domain)
    found: dict[str, set[str]] = defaultdict(set)
    notes = list(Notification.objects.filter(user__in=players))
    assert notes, "starting a game notifies its players"
    for note in notes:
        for word in latin_words(without_names(note.text, names)):
            found[word].add(f"notification {note.kind}")
    subject, text, html = digests.render(players[0], notes[:3])
    for part, body in (("subject", subject), ("text", text), ("html", shown_text(html))):
        for word in latin_words(without_names(body, names)):
            found[word].add(f"digest mail, {part}")
    # An account mail: the password reset, asked for from a Russian browser.
    person = players[0]
    person.email = "igrok@example.com"
    person.save()
    EmailAddress.objects.create(user=person, email=person.email, verified=True, primary=True)
    mail.outbox.clear()
    Client(HTTP_ACCEPT_LANGUAGE="ru").post("/accounts/password/reset/", {"email": person.email})
    assert mail.outbox, "the reset mail was sent"
    message = mail.outbox[-1]
    for part, body in (("subject", str(message.subject)), ("text", str(message.body))):
        for word in latin_words(without_names(body, names)):
            found[word].add(f"password reset mail, {part}")
    report = "\n".join(f"{w}: {', '.join(sorted(p))}" for w, p in sorted(found.items()))
    assert not found, f"English in what was written for a Russian person:\n{report}"


# -- e. the Russian wording says what the English tests check -----------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("joined", "words"),
    [(1, "1 игрок"), (2, "2 игрока"), (5, "5 игроков"), (21, "21 игрок")],
)
def test_the_sign_up_count_has_russian_plural_forms(make_game, joined, words) -> None:
    """English: "1 of 7 players has joined." (tests/site/test_documents.py); Russian counts
    the players in the form the number wants: 1 игрок, 2 игрока, 5 игроков, 21 игрок."""
    from games import services
    from games.display import joined_line

    with translation.override("ru"):
        line = joined_line(joined, 30)
    assert re.search(rf"(?<!\d){words}(?!\w)", line), line
    assert not latin_words(line), line
    if joined <= 5:
        game = make_game("forum-vanilla", start=False, language="ru")
        for slot in list(game.slots.select_related("user"))[joined:]:
            services.leave_game(slot.user, game.pk)
        page = shown_text(
            Client(HTTP_ACCEPT_LANGUAGE="ru").get(f"/games/{game.pk}/").content.decode()
        )
        assert re.search(rf"(?<!\d){words}(?!\w)", page), page[:2000]


# -- the language a person and a game are in ----------------------------------------------------
@pytest.mark.django_db
def test_a_person_chooses_their_language_on_their_account(host) -> None:
    from games.models import AccountSettings

    client = Client()
    client.force_login(host)
    page = client.get("/accounts/language/")
    assert page.status_code == 200 and 'id="language-form"' in page.content.decode()
    answer = client.post("/accounts/language/", {"language": "ru"})
    assert answer.status_code == 302
    assert AccountSettings.objects.get(user=host).language == "ru"
    russian_page = client.get("/accounts/language/").content.decode()
    assert '<html lang="ru"' in russian_page or "Язык" in russian_page
    # Back to the browser's: blank.
    client.post("/accounts/language/", {"language": "", "next": "/"})
    assert AccountSettings.objects.get(user=host).language == ""
    english = client.get("/accounts/language/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Language" in english
    # A language the site does not have is refused.
    assert client.post("/accounts/language/", {"language": "xx"}).status_code == 200
    assert AccountSettings.objects.get(user=host).language == ""


@pytest.mark.django_db
def test_the_footers_switcher_goes_back_to_the_page_and_never_elsewhere(host) -> None:
    client = Client()
    client.force_login(host)
    back = client.post("/accounts/language/", {"language": "ru", "next": "/my-games/"})
    assert back["Location"] == "/my-games/"
    away = client.post("/accounts/language/", {"language": "ru", "next": "https://evil.example/"})
    assert away["Location"] == "/accounts/language/"
    # A visitor: a footer link sets a cookie (no form: a visitor's page has no CSRF token).
    visitor = Client()
    page = visitor.get("/").content.decode()
    assert 'href="/language/ru/?next=/"' in page and "csrfmiddlewaretoken" not in page
    answer = visitor.get("/language/ru/", {"next": "/my-games/"})
    assert answer.status_code == 302 and answer["Location"] == "/my-games/"
    assert visitor.get("/language/ru/", {"next": "https://evil.example/"})["Location"] == "/"
    assert visitor.get("/language/xx/").status_code == 404
    page = visitor.get("/").content.decode()
    assert 'lang="ru" hreflang="ru" aria-current="true"' in page
    assert '<html lang="ru"' in page


@pytest.mark.django_db
def test_the_account_language_costs_one_query_per_session(host, django_assert_num_queries) -> None:
    """AccountLanguageMiddleware reads the choice from the session once it is known."""
    from django.http import HttpResponse
    from django.test import RequestFactory

    from games.i18n import SESSION_KEY, AccountLanguageMiddleware

    client = Client()
    client.force_login(host)
    client.post("/accounts/language/", {"language": "ru"})
    assert client.session[SESSION_KEY] == "ru"
    request = RequestFactory().get("/")
    request.session = client.session
    assert request.session[SESSION_KEY] == "ru"  # (the session's own load)
    request.user = host
    middleware = AccountLanguageMiddleware(lambda r: HttpResponse(translation.get_language()))
    with django_assert_num_queries(0):
        assert middleware(request).content == b"ru"
    translation.activate("en")
    # A session that does not know it yet asks once, then keeps it.
    del request.session[SESSION_KEY]
    with django_assert_num_queries(1):
        middleware(request)
    assert request.session[SESSION_KEY] == "ru"
    translation.activate("en")


@pytest.mark.django_db
def test_sign_up_keeps_the_browsers_language(client) -> None:
    from django.contrib.auth import get_user_model

    from games.models import AccountSettings

    answer = client.post(
        "/accounts/signup/",
        {
            "username": "Новичок",
            "password1": "Long-enough-pass-99",
            "password2": "Long-enough-pass-99",
        },
        HTTP_ACCEPT_LANGUAGE="ru-RU,ru;q=0.9,en;q=0.5",
    )
    assert answer.status_code == 302, answer.content.decode()[:3000]
    person = get_user_model().objects.get(username="Новичок")
    assert AccountSettings.objects.get(user=person).language == "ru"


@pytest.mark.django_db
def test_the_host_chooses_the_games_language(host) -> None:
    from rest_framework.test import APIClient

    from games import services
    from games.models import Game

    role_list = [{"role": "goon", "count": 1}, {"role": "vanilla_townie", "count": 2}]
    # Default: the host's language as they create it.
    with translation.override("ru"):
        assert (
            services.create_game(host, title="А", ruleset="forum", role_list=role_list).language
            == "ru"
        )
    with translation.override("en"):
        assert (
            services.create_game(host, title="Б", ruleset="forum", role_list=role_list).language
            == "en"
        )
    chosen = services.create_game(
        host, title="В", ruleset="forum", role_list=role_list, language="ru"
    )
    assert chosen.language == "ru"
    # The form offers it (preset to the page's language) and the page shows it.
    client = client_in_russian(host)
    form = client.get("/games/new/?setup=forum-vanilla").content.decode()
    assert 'name="language"' in form and '<option value="ru" selected' in form
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/games/{chosen.pk}/").content.decode()
    assert 'class="game-language"' in page and "Russian" in page
    # The API: given, shown, refused when unknown.
    api = APIClient()
    assert api.get(f"/api/v1/games/{chosen.pk}/").json()["language"] == "ru"
    api.force_authenticate(host)
    body = {"title": "Г", "ruleset": "forum", "role_list": role_list, "language": "xx"}
    refused = api.post("/api/v1/games/", body, format="json")
    assert refused.status_code == 400, refused.content
    body["language"] = "ru"
    made = api.post("/api/v1/games/", body, format="json")
    assert made.status_code == 201, made.content
    assert Game.objects.get(pk=made.json()["id"]).language == "ru"
