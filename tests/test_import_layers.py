"""The web app's modules import each other without circles.

Every import counts, including the ones inside functions (a lazy import only hides a circle
from the interpreter, not from a reader) and the package ``__init__`` that importing a
submodule runs first.
"""

from __future__ import annotations

import ast
from pathlib import Path

from resolver.graphs import strongly_connected_components

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("games", "mafia_site")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _parents(name: str) -> list[str]:
    """``games.views.partials`` -> ``games.views``, ``games``: the packages it runs first."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ""
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    targets.append(sub if sub in modules else source)
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            for target in targets:
                if target in modules:
                    for dep in (target, *_parents(target)):
                        # A module importing its own package's parents is no circle.
                        if dep in modules and dep != name and not name.startswith(dep + "."):
                            graph[name].add(dep)
    return graph


def test_the_graph_sees_imports_inside_functions() -> None:
    graph = import_graph()
    # The publisher imports the numbering inside a function.
    assert "games.live.numbering" in graph["games.live.publisher"]
    # Importing a submodule runs its package first: the services import the publisher.
    assert "games.live" in graph["games.services.common"]
    assert "games.views" in graph["games.live.render"]  # render imports views.partials


def test_no_import_circles() -> None:
    circles = [c for c in strongly_connected_components(import_graph()) if len(c) > 1]
    assert circles == []
