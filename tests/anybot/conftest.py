"""The bots in other languages, set up as `make bots` sets them up, or skipped saying why."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_BOT = ROOT / "sample_bots" / "node" / "bot.js"
LINE_BOT = ROOT / "build" / "line_bot"
TEST_BOTS = ROOT / "tests" / "bots"


@pytest.fixture(scope="session")
def made() -> None:
    """Run the Makefile's own set-up of the sample bots once (a no-op when it is up to date)."""
    if shutil.which("make") is None:
        return
    subprocess.run(["make", "-s", "bots"], cwd=ROOT, check=True, capture_output=True)


@pytest.fixture
def node_bot(made: None) -> Path:
    """The Node.js sample bot, its packages installed; skipped only where Node.js is absent."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("SKIPPED LOUDLY: node/npm are not installed, so the Node.js bot cannot run")
    assert (NODE_BOT.parent / "node_modules" / "@grpc" / "grpc-js").is_dir(), "make bots failed"
    return NODE_BOT


@pytest.fixture
def line_bot(made: None) -> Path:
    """The C line-protocol sample bot, compiled; skipped only where there is no C compiler."""
    if shutil.which("cc") is None:
        pytest.skip("SKIPPED LOUDLY: no C compiler (cc), so the C line-protocol bot cannot build")
    assert LINE_BOT.is_file(), "make bots failed to build the C bot"
    return LINE_BOT
