"""`arena play`: one seeded demo game, printed readably and the same every time."""

from click.testing import CliRunner

from arena.cli import main


def play(*args: str) -> str:
    result = CliRunner().invoke(main, ["play", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_same_seed_prints_the_same_game() -> None:
    first = play("--players", "4", "--seed", "7")
    assert first == play("--players", "4", "--seed", "7")
    assert first != play("--players", "4", "--seed", "8")


def test_the_game_is_shown_round_by_round() -> None:
    out = play("--players", "4", "--seed", "7")
    assert "Round 1" in out and "turn 10:" in out
    assert "Winner" in out.splitlines()[-1]
    assert "bullheads this round" in out


def test_every_variant_plays() -> None:
    for variant in ("standard", "professional", "professional-draft"):
        assert "Winner" in play("--players", "3", "--variant", variant, "--max-rounds", "1")


def test_bad_input_is_one_line_and_a_non_zero_exit() -> None:
    result = CliRunner().invoke(main, ["play", "--players", "11"])
    assert result.exit_code == 2
    assert "Invalid value for '--players': 11 is not a whole number from 2 to 10" in result.output
    assert "Traceback" not in result.output
