"""The guide's C++ and Go bots build with the guide's own commands, from Debian's packages, and
pass `arena check-bot`. Skipped, saying what is missing, where the packages are not installed
(`make test` installs the C++ ones, as it does chromium; Go is the reader's to install)."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.server.checkbot import check_options
from arena.server.checkbot.checks import check_bot
from arena.server.specs import parse_command
from tests.anybot.conftest import ROOT
from tests.anybot.test_docs import FILES, GUIDE

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]


def commands(name: str) -> str:
    """The shell commands of the guide's block marked `<!-- commands: NAME -->`."""
    found = re.search(rf"<!-- commands: {name} -->\n```sh\n(.*?)```", GUIDE, re.DOTALL)
    assert found, f"the guide has no {name} commands"
    return found[1]


def missing(*programs: str, pkg_config: str = "") -> list[str]:
    absent = [program for program in programs if shutil.which(program) is None]
    if pkg_config and (
        shutil.which("pkg-config") is None
        or subprocess.run(["pkg-config", "--exists", *pkg_config.split()]).returncode
    ):
        absent.append(f"pkg-config {pkg_config}")
    return absent


def passes(command: str, folder: Path, logs: Path) -> None:
    options = check_options(deadline=5.0, startup_timeout=30.0)  # not timed: a busy machine passes
    results = asyncio.run(check_bot(parse_command("", command, base=folder), logs, options))
    assert all(result.passed for result in results), [r for r in results if not r.passed]


def test_the_sample_cpp_bot_is_the_guide_s() -> None:
    assert (ROOT / "sample_bots" / "cpp" / "bot.cc").read_text() == FILES["bot.cc"]


def test_the_guide_s_cpp_bot_builds_and_passes_check_bot(tmp_path: Path, logs: Path) -> None:
    absent = missing("g++", "protoc", "grpc_cpp_plugin", pkg_config="grpc++ protobuf")
    if absent:
        pytest.skip(
            f"SKIPPED LOUDLY: no {', '.join(absent)}: install Debian's g++ pkg-config "
            "protobuf-compiler protobuf-compiler-grpc libgrpc++-dev libprotobuf-dev "
            "(`make grpc-cpp`) to build the guide's C++ bot"
        )
    shutil.copytree(ROOT / "proto", tmp_path / "proto")
    (tmp_path / "bot.cc").write_text(FILES["bot.cc"])
    subprocess.run(["bash", "-ec", commands("cpp")], cwd=tmp_path, check=True, timeout=600)
    passes("./bot", tmp_path, logs)


def test_the_guide_s_go_bot_builds_and_passes_check_bot(tmp_path: Path, logs: Path) -> None:
    absent = missing("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc")
    if absent or not Path("/usr/share/gocode/src/google.golang.org/grpc").is_dir():
        pytest.skip(
            f"SKIPPED LOUDLY: no {', '.join(absent) or 'golang-google-grpc-dev'}: install the "
            "Debian packages the guide names to build its Go bot"
        )
    home = tmp_path / "home"
    folder = home / "go" / "src" / "example.com" / "minimal"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "proto" / "sixnimmt" / "v1" / "arena.proto", folder)
    (folder / "main.go").write_text(FILES["main.go"])
    cache = Path(os.environ.get("GOCACHE") or Path.home() / ".cache" / "go-build")
    env = {**os.environ, "HOME": str(home), "GOCACHE": str(cache)}
    subprocess.run(["bash", "-ec", commands("go")], cwd=folder, env=env, check=True, timeout=600)
    passes("./bot", folder, logs)
