"""Commands that need no gRPC do not load it: `import arena.cli`, `arena --help`, `arena replay`,
`arena report` and `arena play` with built-in strategies; and `arena submit`, an author's
command, loads no Dask. Each runs in a fresh interpreter, which then names every module it
loaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.spectate.helpers import tournament

pytestmark = pytest.mark.integration  # each test starts a Python process

WIRE = ("grpc", "google.protobuf")
"""Module name prefixes of gRPC and protobuf (grpc_health, grpc_reflection, ... included)."""

_RUN = """
import json, sys
from arena.cli import main
try:
    main(json.loads(sys.argv[1]), standalone_mode=False)
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""


def loaded(*args: str) -> list[str]:
    """The modules a fresh interpreter holds after `arena ARGS` (none: after `import arena.cli`)."""
    code = _RUN if args else "import json, sys, arena.cli; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(list(args))],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    modules: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return modules


def wire(modules: list[str]) -> list[str]:
    return [name for name in modules if name.startswith(WIRE)]


def test_importing_the_cli_loads_no_grpc() -> None:
    modules = loaded()
    assert "arena.cli" in modules
    assert "arena.server.options" in modules  # the bot options' declaration, for their --help
    assert wire(modules) == []


def test_help_loads_no_grpc() -> None:
    assert wire(loaded("--help")) == []


def test_replay_loads_no_grpc(tmp_path: Path) -> None:
    tournament(tmp_path / "out")
    listing = loaded("replay", str(tmp_path / "out"))
    assert "arena.spectate.replay" in listing and wire(listing) == []
    one = loaded("replay", str(tmp_path / "out"), "--game", "1", "--no-color")
    assert wire(one) == []


def test_report_loads_no_grpc(tmp_path: Path) -> None:
    tournament(tmp_path / "out")
    modules = loaded("report", str(tmp_path / "out"))
    assert (tmp_path / "out" / "report.html").is_file()
    assert "arena.spectate.report" in modules and wire(modules) == []


def test_play_with_built_in_strategies_loads_no_grpc() -> None:
    modules = loaded("play", "--players", "3", "--seed", "4", "--max-rounds", "1")
    assert "arena.players.strategies" in modules and wire(modules) == []


def test_the_check_is_not_vacuous() -> None:
    """`arena run --help` builds its options from the tournament's configuration, which does
    load gRPC: the same check sees it there."""
    assert "grpc" in wire(loaded("run", "--help"))


DASK = ("dask", "distributed")
"""Module name prefixes of Dask, which only `arena run --cluster` and `--workers` load."""


def test_the_cli_loads_no_dask_unless_it_runs_on_a_cluster() -> None:
    for modules in (loaded(), loaded("--help"), loaded("run", "--help")):
        assert [name for name in modules if name.startswith(DASK)] == []


def imported(*modules: str) -> list[str]:
    """The modules a fresh interpreter holds after importing `modules` (written one a line, so
    that the listing itself loads nothing)."""
    code = f"import sys, {', '.join(modules)}\nprint(*sorted(sys.modules), sep='\\n')"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.split()


def test_submit_loads_no_dask() -> None:
    """`arena submit` packs the bot as the cluster's shipping does, without the cluster: Dask
    alone would cost it about a second of CPU."""
    modules = imported("arena.cli.submit", "arena.ladder.client")
    assert "arena.tournament.cluster.shipping" in modules
    assert [name for name in modules if name.startswith(("dask", "distributed"))] == []


def test_a_bots_sdk_loads_neither_the_referee_nor_the_drivers() -> None:
    """Every Python bot imports `arena.sdk` at its start-up, sealed bots included: it loads the
    players' interface and strategies, and not the referee, the game drivers, `json` nor
    `hashlib` (`arena.players`, `arena.rules.record` and `arena.rules.views` import them when
    first asked for). gRPC's own import loads asyncio and protobuf's loads its text format,
    whatever the SDK does."""
    modules = imported("arena.sdk")
    assert {
        "arena.sdk.client",
        "arena.players.strategies",
        "arena.rules.record",
        "arena.rules.views",
    } <= set(modules)
    unneeded = {"arena.players.driver", "arena.players.referee", "json", "hashlib"}
    assert unneeded.isdisjoint(modules), sorted(unneeded & set(modules))
    assert [name for name in modules if name.startswith("arena.server")] == []


def test_the_players_names_still_come_from_the_package() -> None:
    """The lazily imported names are the modules' own."""
    import arena.players
    from arena.players.driver import play_game
    from arena.players.referee import Referee

    assert arena.players.play_game is play_game and arena.players.Referee is Referee


_COLLECTOR = """
import gc, sys
if sys.argv[1] == "off":
    gc.disable()
import arena.sdk
print(gc.isenabled(), gc.get_freeze_count())
"""


@pytest.mark.parametrize("collector", ["on", "off"])
def test_the_sdk_freezes_what_it_loads_and_leaves_the_collector_as_it_was(collector: str) -> None:
    """A bot's imports (gRPC, asyncio, protobuf) are frozen out of the cyclic collector's sight
    once loaded, so that neither its collections nor its exit walk them again: the collector
    is on again after `import arena.sdk` if it was on before, off if it was off."""
    done = subprocess.run(
        [sys.executable, "-c", _COLLECTOR, collector],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    enabled, frozen = done.stdout.split()
    assert enabled == str(collector == "on")
    assert int(frozen) > 10_000  # gRPC's, asyncio's and protobuf's objects, not a handful
