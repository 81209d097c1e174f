"""What `arena run` would run, caught before it runs: for tests of how its input is read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import arena.cli.run
from arena.cli import main
from arena.tournament.config import ConfigError, TournamentConfig


def caught_run(monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[TournamentConfig, Path | None]:
    """The config and the submissions folder `arena run ARGS` would run, caught before it
    runs (nothing is checked beyond reading the input, and nothing is written)."""
    seen: list[tuple[TournamentConfig, Path | None]] = []

    async def caught(config: TournamentConfig, submissions: Path | None, quiet: bool) -> Any:
        seen.append((config, submissions))
        raise ConfigError("caught before the run")

    monkeypatch.setattr(arena.cli.run, "_run", caught)
    result = CliRunner().invoke(main, ["run", *args])
    assert "caught before the run" in result.output, result.output
    (found,) = seen
    return found
