"""The layers show in the folders: every module imports only its own layer and those below it.

Read from the source (every `import` and `from ... import`, also those inside functions), so a
lazy import that reaches upward is caught too.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "arena"
LAYERS = (
    "rules",
    "players",
    "protocol",
    "server",
    "sdk",
    "tournament",
    "spectate",
    "ladder",
    "cli",
)
"""Bottom up. The root modules (`ROOT`) sit below them all."""
ROOT = ("__init__", "errors", "lazy")
"""The package's own modules, beside the layers' folders: its error family and its lazy imports."""
ALSO = {"_proto": "protocol"}
"""Folders that belong to a layer of another name."""
EXCEPTIONS = {("sdk", "server")}
"""Pairs (layer, layer it may not import) beyond the order: the SDK is what a bot imports, and a
bot never loads the arena's server."""


def layer_of(module: str) -> int:
    """The rank of an `arena...` module's layer; -1 for the package's root modules."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1] in ROOT:
        return -1
    name = ALSO.get(parts[1], parts[1])
    return LAYERS.index(name)


def every_import(path: Path) -> set[str]:
    """Every module the source of `path` imports, the standard library's too, at any depth."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def imports(path: Path) -> set[str]:
    """Every arena module `path` imports."""
    return {name for name in every_import(path) if name == "arena" or name.startswith("arena.")}


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(relative.parts).removesuffix(".__init__")


def test_every_module_imports_only_its_layer_and_those_below() -> None:
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "_proto" in path.parts:
            continue
        here = module_name(path)
        rank = layer_of(here)
        for target in sorted(imports(path)):
            there = layer_of(target)
            pair = (LAYERS[rank] if rank >= 0 else "", LAYERS[there] if there >= 0 else "")
            if there > rank or pair in EXCEPTIONS:
                upward.append(f"{here} imports {target}")
    assert not upward, "imports that reach up a layer:\n" + "\n".join(upward)


def test_the_layer_map_knows_every_folder() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and not p.name.startswith("__")}
    modules = {p.stem for p in PACKAGE.glob("*.py")} - set(ROOT)
    assert folders | modules <= set(LAYERS) | set(ALSO)


LONGEST = 600
"""Lines a module may hold: past that it holds more than one idea, and a reader loses the one
they came for. The generated protocol modules (`_proto`) are the generator's, not ours."""


def test_no_module_is_longer_than_a_reader_keeps_in_mind() -> None:
    long = {
        module_name(path): lines
        for path in PACKAGE.rglob("*.py")
        if "_proto" not in path.parts and (lines := len(path.read_text().splitlines())) > LONGEST
    }
    assert not long, f"split these modules (over {LONGEST} lines): {long}"
