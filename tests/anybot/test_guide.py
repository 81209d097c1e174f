"""The guide leaves nothing to guess: its reference of the SDK's `View`, `Settings` and `Bot` is
the code's, field by field and type by type, and its one list of the environment a bot gets (and
a build gets) is what the arena sets (`bot_environment` here; a real bot process and build in
test_bot_environment.py), and the only copy in the docs."""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

from arena.rules import Placement, Settings, TurnRecord, View
from arena.sdk import Bot
from arena.server.isolation.process import bot_environment
from tests.anybot.conftest import ROOT

GUIDE = (ROOT / "docs" / "writing-a-bot.md").read_text()
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
"""Every page of the docs, the README first."""
ALIASES = {"Rows": "tuple[tuple[int, ...], ...]"}
"""Type names the code uses that the guide spells out."""
SEALED_ONLY = {"HOME", "TMPDIR", "PWD"}
"""Variables a bot gets only when it runs sealed (the sandbox's own)."""
IF_SET = {"LANG", "LC_ALL", "TZ", "NODE_PATH", "SYSTEMROOT"}
"""Variables a bot gets only where the arena has them."""


def table(text: str, marker: str) -> list[list[str]]:
    """The rows (cells, stripped) of the Markdown table after `<!-- marker -->`."""
    start = text.index(f"<!-- {marker} -->\n")
    lines = text[start:].splitlines()[1:]
    rows = []
    for line in lines[2:]:  # after the header and its rule
        if not line.startswith("|"):
            break
        cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
        rows.append([cell.strip().replace("\\|", "|") for cell in cells])
    return rows


def code(cell: str) -> list[str]:
    """The `code` spans of a cell."""
    return re.findall(r"`([^`]+)`", cell)


def annotation(cls: type, name: str) -> str:
    hint = {f.name: f.type for f in dataclasses.fields(cls)}[name]
    text = hint if isinstance(hint, str) else inspect.formatannotation(hint)
    text = re.sub(r"\b(?:[a-z_]+\.)+(?=[A-Z])", "", text)  # arena.rules.settings.Settings
    return ALIASES.get(text, text)


@pytest.mark.parametrize(("cls", "marker"), [(View, "View"), (Settings, "Settings")])
def test_the_reference_lists_every_field_with_its_python_type(cls: type, marker: str) -> None:
    rows = table(GUIDE, f"reference: {marker}")
    documented = {code(name)[0]: code(kind)[0] for name, kind, _ in rows}
    assert list(documented) == [f.name for f in dataclasses.fields(cls)]
    for name, kind in documented.items():
        assert kind == annotation(cls, name), name


def test_the_reference_shows_every_method_of_bot_with_its_signature() -> None:
    rows = table(GUIDE, "reference: Bot")
    public = [n for n, v in vars(Bot).items() if callable(v) and not n.startswith("_")]
    public.remove("decide")  # the SDK's own dispatch, not for a bot to override
    documented = [code(cell)[0] for cell, _, _ in rows]
    assert [d.split("(")[0] for d in documented] == public
    for shown in documented:
        name, _, rest = shown.partition("(")
        params = inspect.signature(getattr(Bot, name)).parameters.values()
        written = ", ".join(
            p.name if p.name == "self" else f"{p.name}: {p.annotation}" for p in params
        )
        assert rest.startswith(written + ")"), shown


def test_the_guide_names_every_field_of_a_turn_record_and_a_placement() -> None:
    for cls in (TurnRecord, Placement):
        for field in dataclasses.fields(cls):
            assert f"`{field.name}: {annotation(cls, field.name)}`" in GUIDE, field.name


def documented(text: str, marker: str) -> dict[str, str]:
    """Each variable of an environment list, with what the list says of it."""
    return {
        name: what for names, what in table(text, f"environment: {marker}") for name in code(names)
    }


@pytest.mark.parametrize("marker", ["bot", "build"])
def test_the_environment_is_listed_once_in_the_guide(marker: str) -> None:
    """One list, so that no copy drifts; the other pages link to the guide's."""
    holding = [page.name for page in PAGES if f"<!-- environment: {marker} -->" in page.read_text()]
    assert holding == ["writing-a-bot.md"]
    assert table(GUIDE, f"environment: {marker}")


def test_the_bot_list_is_what_the_arena_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in IF_SET:
        monkeypatch.setenv(name, "x")
    monkeypatch.setenv("ARENA_SECRET_OF_THE_ORGANIZER", "never passed on")
    listed = documented(GUIDE, "bot")
    assert set(bot_environment("unix:/s", "t")) == set(listed) - SEALED_ONLY
    assert all("sealed" in listed[name] for name in SEALED_ONLY)
    for name in IF_SET:
        monkeypatch.delenv(name)
    assert set(bot_environment("unix:/s", "t")) == set(listed) - SEALED_ONLY - IF_SET


def test_the_build_list_is_the_bot_list_without_address_and_token_but_with_home() -> None:
    bot, build = documented(GUIDE, "bot"), documented(GUIDE, "build")
    assert set(build) == set(bot) - {"ARENA_ADDRESS", "ARENA_TOKEN"}
    assert "sealed" in build["TMPDIR"] and "unsealed" in build["HOME"]
