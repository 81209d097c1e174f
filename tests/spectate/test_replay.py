"""`arena replay`: a recorded game in the terminal shows every turn of its record, no more."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli import main
from arena.players import Fault, FaultKind
from arena.rules import BULLHEADS, Decision, Variant
from arena.spectate import open_games, step_through
from arena.spectate.replay import KEYS
from arena.tournament import GameOutcome, ResultStore
from arena.tournament.store import DATABASE, REPLAYS
from tests.spectate.helpers import engine_rows, identity, tournament

ROUND = re.compile(r"^Round (\d+)$")
TURN = re.compile(r"^  turn +(\d+): (.*)$")
ROW = re.compile(r"^ +row (\d)  (.*?) += (\d+)$")


def arena(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def ok(*args: str) -> str:
    result = arena(*args)
    assert result.exit_code == 0, result.output
    return result.output


def numbers(text: str) -> list[int]:
    """The card numbers in a run of cards like `20(3) 24 43`, without their bullheads."""
    return [int(token.split("(")[0]) for token in text.split()]


def shown(card: int) -> str:
    return f"{card}({BULLHEADS[card]})" if BULLHEADS[card] > 1 else str(card)


def turn_blocks(text: str) -> dict[tuple[int, int], list[str]]:
    """The printed turns, keyed (round, turn), each its lines from the `turn` line on."""
    blocks: dict[tuple[int, int], list[str]] = {}
    round_number = 0
    current: list[str] | None = None
    for line in text.splitlines():
        if match := ROUND.match(line):
            round_number, current = int(match[1]), None
        elif match := TURN.match(line):
            current = blocks.setdefault((round_number, int(match[1])), [])
        elif not line.startswith("           "):
            current = None
        if current is not None and not line.lstrip().startswith("fallback: "):
            current.append(line.removesuffix(" [fallback]"))
    return blocks


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo")
    fault = Fault(1, FaultKind.TIMEOUT, Decision.CARD, 0, 2, "no answer in 1.0 s")
    tournament(path, faults={2: [fault]})
    return path


@pytest.fixture(scope="module")
def outcomes(folder: Path) -> list[GameOutcome]:
    with open_games(folder) as games:
        return list(games.outcomes())


def test_every_turn_of_the_record_is_shown_as_it_happened(
    folder: Path, outcomes: list[GameOutcome]
) -> None:
    for number, outcome in enumerate(outcomes, start=1):
        text = ok("replay", str(folder), "--game", str(number))
        names = outcome.spec.seats
        blocks = turn_blocks(text)
        rows_after = {(r, t): rows for r, t, rows in engine_rows(outcome.record)}
        assert set(blocks) == set(rows_after), "exactly the record's turns, each once"
        totals = [0] * len(names)
        for r, round_ in enumerate(outcome.record.rounds, start=1):
            for t, turn in enumerate(round_.turns, start=1):
                head, *rest = blocks[r, t]
                revealed = ", ".join(f"{names[s]} {shown(c)}" for s, c in enumerate(turn.cards))
                assert head.replace(" [fallback]", "").endswith(f": {revealed}")
                placements = rest[: len(turn.placements)]
                for line, p in zip(placements, turn.placements, strict=True):
                    assert line.split()[0] == shown(p.card) and f"({names[p.seat]})" in line
                    assert f"row {p.row + 1}" in line
                    if p.taken:
                        took = line[line.index("takes") :]
                        assert numbers(took[took.index("[") + 1 : took.index("]")]) == list(p.taken)
                        assert took.endswith(f"for {p.bullheads}")
                    else:
                        assert "takes" not in line
                    totals[p.seat] += p.bullheads
                rows = [ROW.match(line) for line in rest[len(turn.placements) : -1]]
                assert [numbers(m[2]) for m in rows if m] == [list(x) for x in rows_after[r, t]]
                assert len(rows) == 4 and all(rows)
                running = rest[-1].split("bullheads: ")[1]
                for seat, name in enumerate(names):
                    assert re.search(rf"\b{name} {totals[seat]}\b", running)
        assert tuple(totals) == outcome.record.totals
        assert f"Final: {', '.join(f'{n} {t}' for n, t in zip(names, totals, strict=True))}" in text


@pytest.mark.parametrize("variant", [Variant.PROFESSIONAL, Variant.PROFESSIONAL_DRAFT])
def test_the_variants_replay_too(tmp_path: Path, variant: Variant) -> None:
    (outcome, *_) = tournament(tmp_path, deals=1, variant=variant)
    text = ok("replay", str(tmp_path), "--game", "1")
    assert set(turn_blocks(text)) == {(r, t) for r, t, _ in engine_rows(outcome.record)}
    drafted = "draft, " in text and "rows after the draft:" in text
    assert drafted == (variant is Variant.PROFESSIONAL_DRAFT)


def test_a_game_by_number_id_or_replay_file_reads_the_same(folder: Path) -> None:
    with open_games(folder) as games:
        third = [entry for entry in games.entries()][2]
    by_number = ok("replay", str(folder), "--game", "3")
    assert by_number == ok("replay", str(folder), "--game", third.game_id)
    assert by_number == ok("replay", str(folder / REPLAYS), "--game", "3")
    assert by_number.startswith(f"Game {third.game_id}:")
    assert "fault: bob timeout in round 1, turn 3: no answer in 1.0 s" in by_number


def test_each_fallback_decision_is_marked_where_it_was_made(folder: Path) -> None:
    """The fault of game 3 (bob, round 1 turn 3) marks bob's card in that turn, and only there."""
    text = ok("replay", str(folder), "--game", "3")
    turn = text[text.index("  turn  3: ") :]
    head, *rest = turn.splitlines()
    assert re.search(r"bob \d+(\(\d\))? \[fallback\]", head)
    assert "fallback: bob's card (timeout: no answer in 1.0 s)" in "\n".join(rest[:8])
    assert text.count("[fallback]") == 1 and text.count("fallback: ") == 1
    one_turn = ok("replay", str(folder), "--game", "3", "--turn", "1.3")
    assert "fallback: bob's card (timeout: no answer in 1.0 s)" in one_turn
    assert "[fallback]" not in ok("replay", str(folder), "--game", "2")


def test_the_listing_names_every_game(folder: Path, outcomes: list[GameOutcome]) -> None:
    text = ok("replay", str(folder))
    for number, outcome in enumerate(outcomes, start=1):
        line = next(line for line in text.splitlines() if outcome.game_id in line)
        assert line.split()[0] == str(number)
        for bot, total in outcome.scores.items():
            assert f"{bot} {total}" in line


def test_turn_jumps_to_one_turn_or_one_round(folder: Path, outcomes: list[GameOutcome]) -> None:
    record = outcomes[0].record
    one = ok("replay", str(folder), "--game", "1", "--turn", "2.7")
    assert "Round 2, turn 7 of 10" in one
    assert [key for key in turn_blocks("Round 2\n" + one)] == [(2, 7)]
    rows_before = {(r, t): rows for r, t, rows in engine_rows(record)}[2, 6]
    before = one.split("rows before the turn:")[1]
    assert [numbers(m[2]) for m in map(ROW.match, before.splitlines()[1:5]) if m] == [
        list(row) for row in rows_before
    ]
    whole_round = ok("replay", str(folder), "--game", "1", "--turn", "2")
    assert sorted(turn_blocks(whole_round)) == [(2, t) for t in range(1, 11)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "t999-d00-r0"], "there is no game 't999-d00-r0'"),
        (["--game", "99"], "games are numbered 1 to 6"),
        (["--game", "1", "--turn", "9.1"], "has rounds 1 to"),
        (["--game", "1", "--turn", "1.11"], "round 1 has turns 1 to 10"),
        (["--game", "1", "--turn", "one"], "give ROUND.TURN like 2.7"),
    ],
)
def test_mistakes_are_one_line_and_exit_non_zero(
    folder: Path, args: list[str], message: str
) -> None:
    result = arena("replay", str(folder), *args)
    assert result.exit_code == 2
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_folder_without_results_says_what_it_expected(tmp_path: Path) -> None:
    result = arena("replay", str(tmp_path))
    assert result.exit_code == 2
    assert "holds no results: expected results.sqlite or replays.jsonl" in result.output


def test_a_running_tournament_is_read_without_disturbing_it(tmp_path: Path) -> None:
    """The store stays open for writing, as `arena run` holds it, while replays read it."""
    outcomes = tournament(tmp_path / "full")
    settings = identity(("ann", "bob", "cyd"), 3, 2, 5)
    with ResultStore(tmp_path / DATABASE, settings) as store:
        assert "no finished game yet" in ok("replay", str(tmp_path))
        store.save(outcomes[0])
        assert outcomes[0].game_id in ok("replay", str(tmp_path))
        with open_games(tmp_path) as games:
            reading = games.entries()
            next(reading)  # a read in progress does not stop the writer
            assert store.save(outcomes[1])
        text = ok("replay", str(tmp_path), "--game", outcomes[1].game_id)
        assert "Winner" in text
        assert not (tmp_path / REPLAYS).exists()


def test_colour_only_when_asked_or_on_a_terminal(folder: Path) -> None:
    plain = ok("replay", str(folder), "--game", "1")
    assert "\x1b[" not in plain
    coloured = ok("replay", str(folder), "--game", "1", "--color")
    assert "\x1b[" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain


def test_what_bots_wrote_cannot_drive_the_terminal(tmp_path: Path) -> None:
    hostile = "evil\x1b[2J\x07"
    fault = Fault(0, FaultKind.MALFORMED, Decision.CARD, 0, 0, "answer\x1b]0;pwned\x07")
    tournament(tmp_path, bots=(hostile, "bob", "cyd"), deals=1, faults={0: [fault]})
    for args in ([], ["--game", "1"]):
        text = ok("replay", str(tmp_path), *args, "--color")
        assert "\x1b[2J" not in text and "\x07" not in text and "\x1b]" not in text
        assert "evil\\x1b[2J\\x07" in text


def test_stepping_moves_by_turn_and_round_with_the_keys(outcomes: list[GameOutcome]) -> None:
    outcome = outcomes[0]
    assert len(outcome.record.rounds) >= 2
    right, left, page_down, page_up = "\x1b[C", "\x1b[D", "\x1b[6~", "\x1b[5~"
    keys = iter([right, "n", left, page_down, "P", "P", page_down, page_up, "x", "q"])
    screens: list[str] = []
    step_through(outcome, keys.__next__, screens.append, turn="1.9")
    spots = []
    for screen in screens:
        match = re.search(r"Round (\d+), turn (\d+) of", screen)
        assert match is not None and screen.endswith(KEYS)
        spots.append(f"{match[1]}.{match[2]}")
    assert spots == ["1.9", "1.10", "2.1", "1.10", "2.1", "1.1", "1.1", "2.1", "1.1", "1.1"]


def test_stepping_shows_the_end_of_the_game(outcomes: list[GameOutcome]) -> None:
    record = outcomes[0].record
    last = f"{len(record.rounds)}.{len(record.rounds[-1].turns)}"
    screens: list[str] = []
    step_through(outcomes[0], iter(["n", "q"]).__next__, screens.append, turn=last)
    assert len(screens) == 2 and all("Winner" in screen for screen in screens)


def test_stepping_needs_a_terminal(folder: Path) -> None:
    result = arena("replay", str(folder), "--game", "1", "--step")
    assert result.exit_code == 2 and "--step needs a terminal" in result.output
