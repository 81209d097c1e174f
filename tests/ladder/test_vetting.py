"""`vet`: a real sample bot passes (built, checked, validated against copies of itself); real
broken folders each end `error` with a reason a person can act on; nothing is left running."""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from arena.ladder.settings import LadderSettings
from arena.ladder.uploads import unpack
from arena.ladder.vetting import BUILD_LOG, CHECK, REASON_CAP, VALIDATION, Vetted, vet
from arena.tournament.cluster.shipping import pack
from arena.tournament.submissions import Manifest, read_manifest

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("no_leftover_processes")]

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = LadderSettings(players=2, max_rounds=1, startup_timeout=30.0)
"""Two seats (a validation set starts a copy's process per seat and game at once: two seats
start half the four's), one-round games; a generous start-up (a loaded machine), never a timed
assertion."""

LINE_BOT = """
import json
import sys

ANSWERS = 0
for line in sys.stdin:
    request = json.loads(line).get("request")
    if request is None:
        continue
    ANSWERS += 1
    if ANSWERS > {crash_after}:
        print("giving up after", ANSWERS - 1, "answers", file=sys.stderr, flush=True)
        sys.exit(1)
    view = request["view"]
    if request["decision"] == "DECISION_ROW":
        choice = {{"row": 0}}
    else:
        choice = {{"card": {card}}}
    if {answers}:
        print(json.dumps({{"request_id": request["request_id"], **choice}}), flush=True)
"""


def line_bot(
    folder: Path, card: str = "(view['table'] or view['hand'])[0]", **given: object
) -> Path:
    values = {"crash_after": 10**9, "card": card, "answers": True, **given}
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text('command = "python3 line.py"\nprotocol = "stdio"\n')
    (folder / "line.py").write_text(LINE_BOT.format(**values))
    return folder


def uploaded(source: Path, place: Path) -> Manifest:
    """The folder as the ladder receives it: packed as `arena submit` packs it, then unpacked."""
    _, data, _ = pack(source)
    return unpack(data, place / "upload", 1 << 20)


def vetted(manifest: Manifest, place: Path, settings: LadderSettings = SETTINGS) -> Vetted:
    result = asyncio.run(vet(manifest, place / "version", settings, seed=7))
    if result.reason is not None:
        assert "\n" not in result.reason and len(result.reason) <= REASON_CAP
    shown = [result.reason or "", *result.check_lines]
    assert not [line for line in shown if str(place) in line]  # the server's paths are its own
    return result


def test_a_sample_bot_is_built_checked_and_validated(tmp_path: Path) -> None:
    source = tmp_path / "src" / "heuristic"
    source.mkdir(parents=True)
    shutil.copy(ROOT / "sample_bots" / "python" / "heuristic_bot.py", source / "bot.py")
    (source / "bot.toml").write_text('command = "bot.py"\nbuild = "echo compiled > built.txt"\n')
    result = vetted(uploaded(source, tmp_path), tmp_path)
    assert result.status == "placement", result.reason
    assert result.reason is None
    assert "build ended with status 0" in result.build_log
    assert result.check_lines[0].startswith("PASS  connects and says hello in time")
    assert all(line.startswith("PASS") for line in result.check_lines)
    assert result.built is not None
    assert (result.built.folder / "built.txt").read_text() == "compiled\n"
    assert read_manifest(result.built.folder).command == "bot.py"
    version = tmp_path / "version"
    assert (version / BUILD_LOG).is_file()
    assert (version / CHECK).is_dir()
    assert (version / VALIDATION / "1" / "results.sqlite").is_file()


def test_a_build_that_fails_is_an_error_with_its_log(tmp_path: Path) -> None:
    source = tmp_path / "src" / "broken"
    source.mkdir(parents=True)
    (source / "bot.py").write_text("def choose_card(view)\n    return 1\n")
    (source / "bot.toml").write_text('command = "bot.py"\nbuild = "python3 -m py_compile bot.py"\n')
    result = vetted(uploaded(source, tmp_path), tmp_path)
    assert result.status == "error"
    assert result.reason is not None
    assert result.reason.startswith("its build failed with status 1; its log ends: ")
    assert "SyntaxError" in result.reason
    assert "SyntaxError" in result.build_log
    assert result.check_lines == ()
    assert result.built is None


def test_a_bot_that_never_answers_is_an_error_naming_the_check(tmp_path: Path) -> None:
    """Its every check waits out its deadline, which for a bot that never answers is only how
    long it is not answered: short deadlines (and bank) make it 2 s where the default's is 13."""
    manifest = uploaded(line_bot(tmp_path / "src" / "silent", answers=False), tmp_path)
    short = replace(SETTINGS, deadline=0.2, first_deadline=0.2, time_bank=0.1)
    result = vetted(manifest, tmp_path, short)
    assert result.status == "error"
    assert result.reason is not None
    assert result.reason.startswith("check-bot: ")
    assert "'answers a card request with a card in hand': got timeout" in result.reason
    assert any(line.startswith("FAIL  answers a card request") for line in result.check_lines)


def test_a_bot_that_answers_an_illegal_card_is_an_error_naming_it(tmp_path: Path) -> None:
    manifest = uploaded(line_bot(tmp_path / "src" / "illegal", card="999"), tmp_path)
    result = vetted(manifest, tmp_path)
    assert result.status == "error"
    assert result.reason is not None
    assert "'answers a card request with a card in hand': got illegal" in result.reason
    assert "999" in result.reason


def test_a_bot_that_passes_check_bot_but_crashes_in_play_fails_its_validation(
    tmp_path: Path,
) -> None:
    # check-bot asks about 15 decisions of one process; a game of 4 rounds asks 40.
    manifest = uploaded(line_bot(tmp_path / "src" / "tired", crash_after=30), tmp_path)
    settings = replace(SETTINGS, max_rounds=4, end_score=1000)
    result = vetted(manifest, tmp_path, settings)
    assert result.status == "error"
    assert all(line.startswith("PASS") for line in result.check_lines)
    assert result.reason is not None
    assert result.reason.startswith("its validation set against copies of itself had ")
    assert "(crashed)" in result.reason
    assert result.reason.endswith("its log ends: 'giving up after 30 answers'")


@pytest.mark.parametrize("command", ["nosuch.py", "./nothere", "../../outside.sh"])
def test_a_command_that_names_no_program_of_the_folder_is_an_error(
    tmp_path: Path, command: str
) -> None:
    source = tmp_path / "src" / "lost"
    source.mkdir(parents=True)
    (source / "bot.toml").write_text(f'command = "{command}"\n')
    result = vetted(uploaded(source, tmp_path), tmp_path)
    assert result.status == "error"
    assert result.reason is not None
    assert result.reason.startswith("its command cannot start: no such file ")
    assert command.removeprefix("./") in result.reason
    assert "builds" not in result.reason


@pytest.mark.parametrize("command", ["a" * 300, "./" + "a" * 300, "a" * 10_000])
def test_a_command_naming_a_path_no_system_can_look_up_is_an_error(
    tmp_path: Path, command: str
) -> None:
    """A name past 255 bytes is ENAMETOOLONG, which pathlib's `is_file` raised out of `vet`:
    out of the serve's vetting task, which ended the serve (and every start after it, as the
    version was vetted again)."""
    source = tmp_path / "src" / "long"
    source.mkdir(parents=True)
    (source / "bot.toml").write_text(f'command = "{command}"\n')
    result = vetted(uploaded(source, tmp_path), tmp_path)
    assert result.status == "error"
    assert result.reason is not None and result.reason.startswith("its command cannot start: no")


def test_a_program_whose_interpreter_is_missing_fails_check_bot_without_a_server_path(
    tmp_path: Path,
) -> None:
    """Its process starts and ends at once: check-bot's lines quote the arena's notes and the
    bot's log, which name the program by the path it runs from, on the server's disk."""
    source = tmp_path / "src" / "script"
    source.mkdir(parents=True)
    (source / "bot.sh").write_text("#!/no/such/interpreter\n")
    (source / "bot.sh").chmod(0o755)
    (source / "bot.toml").write_text(f'command = "./bot.sh {"x" * 5000}"\n')
    result = vetted(uploaded(source, tmp_path), tmp_path)
    assert result.status == "error" and result.reason is not None
    assert "connects and says hello in time" in result.reason
    assert any("process" in line and ": bot.sh xx" in line for line in result.check_lines)
