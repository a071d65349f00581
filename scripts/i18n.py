"""The translation catalogues (locale/<lang>/LC_MESSAGES/django.po and .mo).

    python scripts/i18n.py build      # extract every marked string, compile
    python scripts/i18n.py compile    # after translating in the .po file
    python scripts/i18n.py missing [--under PATH]   # what still has no translation

``build`` runs Django's makemessages (GNU gettext's xgettext and msgmerge) over the site's
code and templates: new strings arrive untranslated, changed ones fuzzy (never served), and
the translations already made are kept. Translate in the .po file, then ``compile`` (or
``build`` again) writes the .mo files with polib (no msgfmt needed). The .mo files are
committed, so a fresh machine serves every language without gettext installed;
tests/site/test_i18n.py fails while a string has no translation or a .mo is stale.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import subprocess
import sys
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "locale"
LANGUAGES = ["ru"]
# What is not the site: tests, benchmarks, the manual, the client library, build output.
IGNORE = [
    "tests",
    "benchmarks",
    "docs",
    "client",
    "var",
    "staticfiles",
    "node_modules",
    "scripts",
    "deploy",
    "locale",
    "*/migrations/*",
]
PLURAL_FORMS = {
    "ru": "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
    "(n%100<10 || n%100>=20) ? 1 : 2);",
}


def catalogue(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / "django.po"


def extract() -> None:
    args = [sys.executable, "manage.py", "makemessages", "--no-obsolete"]
    args += ["--add-location=file", "--no-wrap"]
    for language in LANGUAGES:
        args += ["-l", language]
    for pattern in IGNORE:
        args += ["--ignore", pattern]
    env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "true")}
    subprocess.run(args, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def key(entry: polib.POEntry) -> tuple[str, str, str]:
    """What names an entry: its context, its text and its plural."""
    return (entry.msgctxt or "", entry.msgid, entry.msgid_plural or "")


def translated(entry: polib.POEntry) -> bool:
    if "fuzzy" in entry.flags or entry.obsolete:
        return False
    if entry.msgid_plural:
        return bool(entry.msgstr_plural) and all(entry.msgstr_plural.values())
    return bool(entry.msgstr)


def set_header(language: str) -> None:
    """The catalogue's header: its language and plural rule (makemessages leaves them blank
    on a new catalogue)."""
    path = catalogue(language)
    if not path.exists():  # nothing marked yet: makemessages writes no file
        path.parent.mkdir(parents=True, exist_ok=True)
        polib.POFile().save(str(path))
    po = polib.pofile(str(path), wrapwidth=0)
    po.metadata["Language"] = language
    po.metadata["Plural-Forms"] = PLURAL_FORMS[language]
    po.metadata["Content-Type"] = "text/plain; charset=UTF-8"
    _save(po, path)


def _save(po: polib.POFile, path: Path, *, mo: bool = False) -> None:
    """Write ``path`` whole or not at all: a reader (the tests, ``missing``, the site)
    never sees half a catalogue."""
    part = path.with_name(path.name + ".part")
    if mo:
        po.save_as_mofile(str(part))
    else:
        po.save(str(part))
    os.replace(part, path)


def compile_mo(language: str) -> None:
    po = polib.pofile(str(catalogue(language)))
    # Fuzzy entries are guesses msgmerge made: never served.
    for entry in po:
        if "fuzzy" in entry.flags:
            entry.msgstr = ""
            entry.msgstr_plural = {k: "" for k in entry.msgstr_plural}
    _save(po, catalogue(language).with_suffix(".mo"), mo=True)


def missing(language: str, under: str | None) -> list[polib.POEntry]:
    po = polib.pofile(str(catalogue(language)))
    found = []
    for entry in po:
        if translated(entry):
            continue
        if under and not any(path.startswith(under) for path, _line in entry.occurrences):
            continue
        found.append(entry)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build")
    sub.add_parser("compile")
    gaps = sub.add_parser("missing")
    gaps.add_argument("--under", help="only strings used under this path (e.g. templates/games)")
    gaps.add_argument("--language", default="ru")
    args = parser.parse_args()
    LOCALE.mkdir(exist_ok=True)
    # One build at a time: two would write the same catalogue (``missing`` waits for one).
    with open(LOCALE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX if args.command != "missing" else fcntl.LOCK_SH)
        if args.command == "build":
            extract()
        if args.command in ("build", "compile"):
            for language in LANGUAGES:
                if args.command == "build":
                    set_header(language)
                compile_mo(language)
            return 0
        entries = missing(args.language, args.under)
    for entry in entries:
        where = ", ".join(sorted({path for path, _line in entry.occurrences}))
        plural = f"  |  plural: {entry.msgid_plural!r}" if entry.msgid_plural else ""
        print(f"{entry.msgid!r}{plural}  [{where}]")
    print(f"{len(entries)} without a translation", file=sys.stderr)
    return 1 if entries else 0


if __name__ == "__main__":
    sys.exit(main())
