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
PACKAGES = (
    "games",
    "mafia_site",
    "agents",
    "analytics",
    "league",
    "notifications",
    "ratings",
    "webhooks",
)
# Side domains: they read the games core; the core never imports them.
SIDE_APPS = ("agents", "analytics", "league", "notifications", "ratings", "webhooks")


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
    """``games.reads.access`` -> ``games.reads``, ``games``: the packages it runs first."""
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
    # The template tags import fragments inside functions; fragments import reads.access:
    # the package ``games.reads`` runs first.
    assert "games.fragments" in graph["games.templatetags.mafia_tags"]
    assert "games.reads" in graph["games.fragments"]


def test_no_import_circles() -> None:
    circles = [c for c in strongly_connected_components(import_graph()) if len(c) > 1]
    assert circles == []


# The layers, lowest first: a module may import its own layer and the ones below, never
# one above. Every module has a layer (the longest matching prefix), so a new module is
# placed on purpose. Why this order: pages and the API read through ``reads``; HTML parts
# are drawn once in ``fragments`` for pages and live frames alike; ``live`` delivers what
# ``services`` commit; only the top (views, API, tasks, URL confs) knows about requests.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "base",
        (
            "games",
            "games.api_tokens",
            "games.bold_votes",
            "games.confusables",
            "games.display",
            "games.errors",
            "games.event_kinds",
            "games.game_settings",
            "games.hooks",
            "games.inactivity",
            "games.outcomes",
            "games.json_answers",
            "games.layer_config",
            "games.locks",
            "games.lru",
            "games.markup",
            "games.models",
            "games.naming",
            "games.outage",
            "games.plain_text",
            "games.presence",
            "games.ratelimit",
            "games.scheduling",
            "games.setups",
            "games.simulator",
            "games.socket_db",
            "mafia_site",
            "mafia_site.celery",
            "mafia_site.guards",
            "mafia_site.origin",
            "mafia_site.personal",
            "mafia_site.redis_broker",
            "mafia_site.serve",
            "mafia_site.settings",
            "mafia_site.socket_limits",
            "mafia_site.token_sockets",
            "mafia_site.wsgi",
        ),
    ),
    ("reads", ("games.reads",)),
    ("fragments", ("games.fragments", "games.templatetags")),
    ("live", ("games.live",)),
    (
        "services",
        (
            "games.services",
            "games.deadlines",
            "games.demo",
        ),
    ),
    (
        "top",
        (
            "games.admin",
            "games.api",
            # The app's start-up: it connects handlers of every layer (the services' too:
            # a password change revokes the person's API tokens).
            "games.apps",
            "games.forms",
            "games.management",
            "games.tasks",
            "games.templatetags.live_tags",
            "games.urls",
            "games.views",
            "mafia_site.asgi",
            "mafia_site.urls",
        ),
    ),
    # Above the whole core: a side domain may use any of it; nothing in the core imports
    # one (test_the_core_imports_no_side_domain), it reaches them only through URL confs
    # named by string and the signals they connect in their own AppConfig.ready.
    ("side domains", SIDE_APPS),
)


def layer_of(module: str) -> int | None:
    """The index in ``LAYERS`` of the longest prefix naming ``module``, or None."""
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module == prefix or module.startswith(prefix + ".")
            if matches and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def test_every_module_has_a_layer() -> None:
    assert [m for m in import_graph() if layer_of(m) is None] == []


def test_imports_only_go_down() -> None:
    upward = []
    for module, deps in import_graph().items():
        for dep in deps:
            here, there = layer_of(module), layer_of(dep)
            if here is not None and there is not None and there > here:
                upward.append(f"{module} ({LAYERS[here][0]}) imports {dep} ({LAYERS[there][0]})")
    assert sorted(upward) == []


def test_the_direction_check_sees_an_upward_import() -> None:
    # A read that imported a service would be refused: the check is not vacuous.
    assert layer_of("games.services.votes") > layer_of("games.reads.vote_count")
    assert layer_of("games.views.game") > layer_of("games.live.render")
    assert layer_of("games.templatetags.live_tags") > layer_of("games.templatetags.mafia_tags")


def test_the_api_and_the_pages_share_reads_not_each_other() -> None:
    # Both are the top layer; neither builds on the other: the API answers from the read
    # layer and the services, the pages likewise.
    graph = import_graph()
    crossing = sorted(
        f"{module} imports {dep}"
        for module, deps in graph.items()
        for dep in deps
        for here, there in (("games.api", "games.views"), ("games.views", "games.api"))
        if (module == here or module.startswith(here + "."))
        and (dep == there or dep.startswith(there + "."))
    )
    assert crossing == []


def test_the_core_imports_no_side_domain() -> None:
    graph = import_graph()
    reaching = {
        name: sorted(dep for dep in deps if dep.split(".")[0] in SIDE_APPS)
        for name, deps in graph.items()
        if name.split(".")[0] == "games"
    }
    assert {name: deps for name, deps in reaching.items() if deps} == {}
