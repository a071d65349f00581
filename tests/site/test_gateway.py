"""One gateway between the site and the resolver (issue 33): ``games.gateway`` is the only
module of the site that imports ``resolver``, and it answers in slots, translating the
resolver's ``P<seat>`` names once per call, so a replacement (a new person in the slot,
the same resolver name) is seen everywhere its answers go."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from games import gateway, services
from games.gateway import Death, NightOrder
from games.models import Slot
from tests.conftest import current_phase, slot_of, slots_of
from tests.factories import UserFactory

ROOT = Path(__file__).resolve().parents[2]
GATEWAY = "games/gateway.py"
# Not the site: the rules engine itself, the tests, the generated API client.
NOT_THE_SITE = {"resolver", "tests", "client"}


def site_packages(root: Path) -> list[Path]:
    """The site's top-level packages (``games``, ``mafia_site`` and any Django app added
    beside them): every top-level folder with an ``__init__.py`` but the ones above."""
    return sorted(
        path
        for path in root.iterdir()
        if path.is_dir() and (path / "__init__.py").exists() and path.name not in NOT_THE_SITE
    )


def imports_resolver(tree: ast.AST) -> bool:
    """Whether the module imports ``resolver`` or a submodule of it anywhere (inside a
    function too). Relative imports are the site's own."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        if any(name == "resolver" or name.startswith("resolver.") for name in names):
            return True
    return False


def resolver_importers(root: Path) -> list[str]:
    """Every module of the site, the gateway aside, that imports the resolver."""
    found = []
    for package in site_packages(root):
        for path in sorted(package.rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if relative != GATEWAY and imports_resolver(ast.parse(path.read_text())):
                found.append(relative)
    return found


def test_only_the_gateway_imports_the_resolver() -> None:
    assert {p.name for p in site_packages(ROOT)} >= {"games", "mafia_site"}
    assert imports_resolver(ast.parse((ROOT / GATEWAY).read_text()))
    assert resolver_importers(ROOT) == []


def test_the_check_sees_every_kind_of_import(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "__init__.py").write_text("")
    (app / "top.py").write_text("import resolver\n")
    (app / "sub.py").write_text("from resolver.rulesets import get_ruleset\n")
    (app / "lazy.py").write_text("def f():\n    from resolver import role_pm\n")
    (app / "own.py").write_text("from .resolver_notes import x\nresolver_name = 'P1'\n")
    (tmp_path / "resolver").mkdir()
    (tmp_path / "resolver" / "__init__.py").write_text("import resolver.model\n")
    assert resolver_importers(tmp_path) == ["app/lazy.py", "app/sub.py", "app/top.py"]


# -- the translation -----------------------------------------------------------------------
@pytest.fixture
def classic_night(make_game: Any, host: Any) -> Any:
    pytest.importorskip("resolver.rulesets.classic")
    game = make_game("classic-ten")
    services.cut_deadline_now(host, game.pk)  # day 1 ends with no votes
    assert current_phase(game).is_night
    return game


def _slots(game: Any) -> list[Slot]:
    return list(game.slots.select_related("user", "game").order_by("seat"))


@pytest.mark.django_db
def test_a_night_is_told_in_slots_after_a_replacement(classic_night: Any, host: Any) -> None:
    game = classic_night
    mafioso = slots_of(game, "mafia")[0]
    detective = slot_of(game, "detective")
    victim = slot_of(game, "town")
    # New people in the victim's and the detective's seats: their resolver names stay.
    services.replace_player(host, game.pk, victim.pk, UserFactory(username="Zoë Smith"))
    services.replace_player(host, game.pk, detective.pk, UserFactory(username="Ada"))
    game.refresh_from_db()
    slots = _slots(game)
    by_pk = {s.pk: s for s in slots}
    victim, detective = by_pk[victim.pk], by_pk[detective.pk]
    assert (victim.display_name, detective.display_name) == ("Zoë Smith", "Ada")

    night = gateway.resolve_night(
        game,
        slots,
        [
            NightOrder(by_pk[mafioso.pk], "kill", [victim]),
            NightOrder(detective, "investigate", [by_pk[mafioso.pk]]),
        ],
        number=current_phase(game).number,
    )

    shown = night.report["reveals"].get(victim.resolver_name, "")  # (classic: none)
    assert night.deaths == [Death(victim, shown)]
    assert night.deaths[0].slot.display_name == "Zoë Smith"
    [(owner, results)] = night.results
    assert owner is detective and owner.display_name == "Ada"
    assert results[0]["kind"] == "investigation"
    # Stored payloads and the report keep the resolver's names (a past phase is rendered
    # with whoever held the seat then); the gateway's translator gives the names now.
    assert results[0]["target"] == mafioso.resolver_name
    assert victim.resolver_name in night.report["dead"]
    assert gateway.Seats(slots).text(f"{victim.resolver_name} died") == "Zoë Smith died"
    assert night.notes == [] and night.report["site_notes"] == []
    assert not night.state.player(victim.resolver_name).alive


@pytest.mark.django_db
def test_an_order_turned_illegal_is_dropped_with_a_note(classic_night: Any, host: Any) -> None:
    game = classic_night
    mafioso = slots_of(game, "mafia")[0]
    target = slot_of(game, "town")
    services.modkill(host, game.pk, target.pk)
    game.refresh_from_db()
    slots = _slots(game)
    by_pk = {s.pk: s for s in slots}
    night = gateway.resolve_night(
        game, slots, [NightOrder(by_pk[mafioso.pk], "kill", [by_pk[target.pk]])], number=2
    )
    assert night.deaths == []
    assert len(night.notes) == 1 and night.notes[0].startswith(
        f"Dropped {mafioso.resolver_name}'s kill:"
    )
    assert night.report["site_notes"] == night.notes


@pytest.mark.django_db
def test_a_night_end_through_the_services_reaches_the_new_person(
    classic_night: Any, host: Any
) -> None:
    game = classic_night
    mafioso = slots_of(game, "mafia")[0]
    victim = slot_of(game, "town")
    services.replace_player(host, game.pk, victim.pk, UserFactory(username="Zoë Smith"))
    services.submit_night_action(mafioso.user, game.pk, ability="kill", targets=[victim.pk])
    services.cut_deadline_now(host, game.pk)
    victim.refresh_from_db()
    assert not victim.alive and victim.display_name == "Zoë Smith"
    ended = game.events.filter(kind="night_ended").latest("seq").payload
    assert [d["slot_id"] for d in ended["deaths"]] == [victim.pk]
    assert ended["deaths"][0]["name"] == "Zoë Smith"


@pytest.mark.django_db
def test_a_win_is_told_in_slots_and_current_names(classic_night: Any, host: Any) -> None:
    game = classic_night
    slots = _slots(game)
    first = slots[0]
    services.replace_player(host, game.pk, first.pk, UserFactory(username="Zoë Smith"))
    slots = _slots(game)
    win = gateway.winner(
        slots, "town", f"{first.resolver_name} won it", [first.resolver_name, "P99"]
    )
    assert win.reason == "Zoë Smith won it"
    assert [s.pk for s in win.co_winners] == [first.pk]
    assert gateway.win_of(game, slots) is None  # a running game's first night
