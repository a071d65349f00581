"""The manual (docs/, mkdocs.yml): it builds with ``mkdocs build --strict`` (a broken link, a
missing anchor, a page the nav forgets or a docstring the client reference cannot read is a
warning, and any warning fails), every page the nav lists exists, the README stays a front
page (at most 250 lines, its links into the manual resolve), and the site serves the built
manual at /help/ and links it from every page's footer."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import Client, override_settings
from markdown.extensions.toc import slugify

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README_MAX_LINES = 250


def nav_pages(nav: Any) -> Iterator[str]:
    """Every file named in mkdocs.yml's nav, however deep."""
    if isinstance(nav, str):
        yield nav
    elif isinstance(nav, list):
        for item in nav:
            yield from nav_pages(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from nav_pages(value)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The manual, built strictly into a directory of its own (never the checkout's)."""
    out = tmp_path_factory.mktemp("manual")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "NO_MKDOCS_2_WARNING": "1", "HOME": str(out)},
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert not re.search(r"^(WARNING|ERROR)\b", log, re.MULTILINE), log
    return out


def test_the_manual_builds_strictly(built: Path) -> None:
    assert (built / "index.html").is_file()
    # The client reference is generated from the library's docstrings.
    reference = (built / "agents" / "client-reference" / "index.html").read_text()
    assert "join_queue" in reference and "Strategy" in reference


def test_every_page_the_nav_lists_exists_and_is_built(built: Path) -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    pages = list(nav_pages(config["nav"]))
    assert len(pages) == len(set(pages)) > 20
    for page in pages:
        assert (DOCS / page).is_file(), page
        html = page.removesuffix(".md").removesuffix("index").rstrip("/")
        assert (built / html / "index.html").is_file(), page
    # and every page is in the nav (the strict build says so too, with its own words)
    on_disk = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert on_disk == set(pages), on_disk ^ set(pages)


def test_the_readme_is_a_front_page_linking_into_the_manual() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= README_MAX_LINES
    assert "bash scripts/run.sh\nbash scripts/test.sh\n" in readme  # the Quick start
    assert "/help/" in readme
    links = re.findall(r"\]\((docs/[^)#]+\.md)(?:#[^)]*)?\)", readme)
    assert len(links) > 20
    for link in links:
        assert (ROOT / link).is_file(), link
    # every guide's front page is linked
    for guide in ("players", "hosts", "agents", "rules", "operators", "developers"):
        assert f"docs/{guide}/index.md" in links, guide


def test_the_rules_reference_has_a_page_per_rule_set() -> None:
    for ruleset in ("forum", "city", "classic", "power"):
        page = (DOCS / "rules" / f"{ruleset}.md").read_text()
        assert f"ruleset `{ruleset}`" in page.splitlines()[0], ruleset
    assert "Natural Action Resolution" in (DOCS / "rules" / "forum-nar.md").read_text()


def test_every_help_link_in_the_templates_names_a_page_of_the_manual() -> None:
    links = set()
    for template in (ROOT / "templates").rglob("*.html"):
        text = template.read_text()
        for page, name, anchor in re.findall(
            r"\{% url 'help_page' '([^']*)'(?: as (\w+))? %\}(?:#([\w-]+))?", text
        ):
            # ``{% url ... as guide_url %}`` beside a translated sentence: the anchors are
            # where the sentence uses it (``{{ guide_url }}#the-dashboard``).
            anchors = re.findall(r"\{\{ " + name + r" \}\}#([\w-]+)", text) if name else []
            for each in anchors or [anchor]:
                links.add((template.relative_to(ROOT), page, each))
    named = {str(template) for template, _, _ in links}
    for form in ("games/create.html", "games/host.html", "notifications/settings.html"):
        assert f"templates/{form}" in named, form
    assert "templates/account/tokens.html" in named and "templates/agents/agent.html" in named
    for template, page, anchor in links:
        assert page.endswith("/"), (template, page)  # the pages' relative links need it
        source = DOCS / page.removesuffix("/")
        source = source.with_suffix(".md") if source.with_suffix(".md").is_file() else source
        source = source / "index.md" if source.is_dir() else source
        assert source.is_file(), (template, page)
        if anchor:  # a heading of that page, as MkDocs names its anchor
            headings = re.findall(r"^#+ (.+)$", source.read_text(), re.MULTILINE)
            assert anchor in {slugify(h, "-") for h in headings}, (template, page, anchor)


# -- /help/ --------------------------------------------------------------------------------


@pytest.fixture
def help_client(built: Path) -> Iterator[Client]:
    with override_settings(HELP_DIR=built):
        yield Client()


@pytest.mark.django_db
def test_help_serves_the_built_index_and_a_nested_page(help_client: Client, built: Path) -> None:
    index = help_client.get("/help/")
    assert index.status_code == 200
    assert b"".join(index.streaming_content) == (built / "index.html").read_bytes()
    page = help_client.get("/help/hosts/hosting/")
    assert page.status_code == 200
    assert b'<h1 id="hosting-a-game">Hosting a game' in b"".join(page.streaming_content)
    # a directory without its slash would break the pages' relative links: redirected
    bare = help_client.get("/help/hosts/hosting")
    assert (bare.status_code, bare["Location"]) == (302, "/help/hosts/hosting/")
    asset = help_client.get("/help/search/search_index.json")
    assert asset.status_code == 200 and asset["Content-Type"] == "application/json"


@pytest.mark.django_db
def test_help_never_leaves_the_built_directory(help_client: Client) -> None:
    assert (ROOT / "README.md").is_file() and (ROOT / "mafia_site" / "settings.py").is_file()
    for path in (
        "/help/../README.md",
        "/help/%2e%2e/README.md",
        "/help/..%2fREADME.md",
        "/help/../../mafia_site/settings.py",
        "/help/hosts/../../README.md",
        "/help//etc/passwd",
        "/help/%00",
    ):
        answer = help_client.get(path)
        assert answer.status_code in (400, 404), path
        assert b"SECRET_KEY" not in answer.content and b"Quick start" not in answer.content
    assert help_client.get("/help/no-such-page/").status_code == 404
    assert help_client.post("/help/").status_code == 405


@pytest.mark.django_db
def test_help_when_the_manual_is_not_built_says_how_to_build_it(tmp_path: Path) -> None:
    with override_settings(HELP_DIR=tmp_path / "never-built"):
        answer = Client().get("/help/hosts/hosting/")
    assert answer.status_code == 200
    text = answer.content.decode()
    assert "The manual is not built" in text and "mkdocs build -d" in text


@pytest.mark.django_db
def test_every_page_links_help_in_its_footer(client: Client) -> None:
    for url in ("/", "/accounts/login/", "/league/"):
        page = client.get(url).content.decode()
        footer = page[page.index('<footer class="site-footer">') :]
        assert '<a href="/help/">Help</a>' in footer, url


@pytest.mark.django_db
def test_only_the_manual_may_run_inline_scripts(help_client: Client) -> None:
    # The theme's few inline scripts: allowed under /help/ alone (tests/test_safe_defaults.py
    # holds every other page to 'self').
    policy = help_client.get("/help/")["Content-Security-Policy"]
    assert "script-src 'self' 'unsafe-inline'" in policy and "frame-ancestors 'none'" in policy
