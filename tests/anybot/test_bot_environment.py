"""The environment a real bot process and a real build see is the guide's list, variable for
variable (sealed or not, as this machine runs them)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from arena.server.lobby import BotSpec
from arena.server.session import open_session
from arena.tournament.submissions import Manifest, build
from tests.anybot.test_guide import GUIDE, IF_SET, SEALED_ONLY, documented

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]

DUMP = "import json, os; print('ENV=' + json.dumps(sorted(os.environ)))"


def dumped(log: Path) -> set[str]:
    line = next(line for line in log.read_text().splitlines() if line.startswith("ENV="))
    return set(json.loads(line.removeprefix("ENV=")))


@pytest.fixture
def organizer(monkeypatch: pytest.MonkeyPatch) -> None:
    """An arena whose own environment has every variable a bot may inherit, and a secret."""
    for name in IF_SET:
        monkeypatch.setenv(name, "C.UTF-8" if name.startswith("L") else "x")
    monkeypatch.setenv("ARENA_SECRET_OF_THE_ORGANIZER", "never passed on")


@pytest.mark.usefixtures("organizer")
def test_a_bot_process_sees_exactly_the_listed_variables(tmp_path: Path, logs: Path) -> None:
    script = tmp_path / "env_bot.py"
    script.write_text(DUMP + "\n")

    async def scenario() -> bool:
        async with open_session([BotSpec("env", (sys.executable, str(script)))], logs) as live:
            await live.lobby.acquire("env")  # it prints and exits before connecting
            return live.sealing.sealed

    sealed = asyncio.run(scenario())
    expected = set(documented(GUIDE, "bot"))
    if not sealed:
        expected -= SEALED_ONLY
    assert dumped(logs / "env.log") == expected


@pytest.mark.usefixtures("organizer")
def test_a_build_sees_exactly_the_listed_variables(tmp_path: Path, logs: Path) -> None:
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "dump.py").write_text(DUMP + "\n")
    manifest = Manifest(folder, "sub", "python3 bot.py", build="python3 dump.py")
    asyncio.run(build(manifest, logs / "sub.log"))  # unsealed: the default builder
    assert dumped(logs / "sub.log") == set(documented(GUIDE, "build")) - {"TMPDIR"}
