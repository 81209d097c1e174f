"""The ladder's pure modules import only the standard library, openskill, the rules, the root
errors and the declared settings (`arena.ladder`'s note): no HTTP, no database, no asyncio, so
they are tested alone and the bench plays them in process. Read from the source (every import,
also those inside functions, but for the one bridge `tournament_config` draws on when called),
and followed through what those import."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_layers import PACKAGE, every_import, imports

PURE = ("errors", "settings", "rating", "matchmaking", "versions", "sessions")
"""The pure modules of `arena.ladder`."""
ALLOWED = ("arena.rules", "arena.errors", "arena.server.declared", "arena.ladder", "openskill")
BRIDGE = {
    "settings": {"arena.server.isolation.sandbox", "arena.tournament.config", "arena.server.lobby"}
}
"""What a pure module imports inside a function that is its bridge upward, and only there."""
FORBIDDEN = ("asyncio", "sqlalchemy", "fastapi", "httpx", "grpc", "arena.tournament")


@pytest.mark.parametrize("name", PURE)
def test_a_pure_module_imports_only_what_it_may(name: str) -> None:
    found = imports(PACKAGE / "ladder" / f"{name}.py") - BRIDGE.get(name, set())
    assert {module for module in found if not module.startswith(ALLOWED)} == set()


def source_of(module: str) -> Path | None:
    """The file of an `arena...` module (a package's `__init__.py`); None for others."""
    if module.split(".")[0] != "arena":
        return None
    base = PACKAGE.parent.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def test_what_the_pure_modules_reach_loads_no_asyncio_database_or_http() -> None:
    """Followed through every arena module they import, and the packages on the way."""
    seen: set[str] = set()
    waiting = [f"arena.ladder.{name}" for name in PURE]
    while waiting:
        module = waiting.pop()
        if module in seen:
            continue
        seen.add(module)
        parts = module.split(".")
        waiting.extend(".".join(parts[:end]) for end in range(1, len(parts)))
        path = source_of(module)
        if path is not None:
            bridge = BRIDGE.get(parts[-1], set()) if parts[:2] == ["arena", "ladder"] else set()
            waiting.extend(every_import(path) - bridge)
    assert {module for module in seen if module.startswith(FORBIDDEN)} == set()
    assert "arena.rules" in seen and "arena.server.declared" in seen  # it did follow them
