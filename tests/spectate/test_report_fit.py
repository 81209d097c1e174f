"""The report's standings beside the fit: fitted strength and its interval, the likelihood of
superiority of each place over the next, and intervals only where two whole deals were played."""

from __future__ import annotations

from pathlib import Path

from arena.tournament import compute_standings
from tests.spectate.helpers import tournament
from tests.spectate.test_report import report

DASH = "\u2013"


def test_fitted_strength_and_los_beside_the_ranking(tmp_path: Path) -> None:
    outcomes = tournament(tmp_path, bots=("ann", "bob", "cyd", "dan"), deals=2)
    standings = compute_standings(outcomes)
    text, page = report(tmp_path)
    head, *rows = page.tables["standings-table"]
    assert head[6:9] == ["fitted", "95% interval", "LOS"]
    for row, line in zip(rows, standings.bots, strict=True):
        assert line.strength is not None and line.strength_ci is not None
        assert row[6] == f"{line.strength:.2f}"
        assert row[7] == f"{line.strength_ci[0]:.2f} {DASH} {line.strength_ci[1]:.2f}"
        assert row[8] == ("" if line.los is None else f"{line.los:.0%}")
    assert [row[8] != "" for row in rows] == [True, True, True, False]  # the last has no next
    assert "No interval" not in text


def test_one_deal_shows_no_interval_and_says_why(tmp_path: Path) -> None:
    tournament(tmp_path, bots=("ann", "bob", "cyd"), players=3, deals=1)
    text, page = report(tmp_path)
    rows = page.tables["standings-table"][1:]
    assert all(row[5] == DASH and row[7] == DASH and row[8] == "" for row in rows)
    assert "No interval for" in text and "one whole deal: an interval needs 2" in text
    assert "A dot alone: no interval" in text  # the chart's legend
    assert "no interval: one whole deal" in text  # and each dot's tooltip
