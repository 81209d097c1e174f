"""`arena report`: what the page holds, in what order, how it is capped, bots escaped."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.players import Fault, FaultKind
from arena.rules import Decision
from arena.spectate import SpectateError, charts, write_report
from arena.spectate.report import GameNote, Take, choose_games
from arena.tournament import ResultStore, compute_standings
from arena.tournament.outcome import Disqualification
from arena.tournament.store import DATABASE, Entry
from tests.spectate.helpers import BOTS, identity, tournament

HOSTILE = "<script>alert('bot')</script>&amp;\"{{data}}"
MESSAGE = "</script><img src=x onerror=alert(1)> \u2028 <!--"


class Page(HTMLParser):
    """The parts of the page the tests read: table cells by table id, and every script."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.scripts: list[str] = []
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._in_script = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._table = dict(attrs).get("id")
            assert self._table
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self.tables[self._table].append([])
        elif tag in ("td", "th") and self._table:
            self._cell = []
        elif tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._table and self._cell is not None:
            self.tables[self._table][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = None
        elif tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._in_script:
            self.scripts[-1] += data


def report(folder: Path, *args: str) -> tuple[str, Page]:
    result = CliRunner().invoke(main, ["report", str(folder), *args])
    assert result.exit_code == 0, result.output
    target = Path(args[args.index("-o") + 1]) if "-o" in args else folder / "report.html"
    assert str(target) in result.output
    text = target.read_text()
    return text, Page(text)


def embedded(page: Page) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(page.scripts[0])
    return data


def test_standings_in_rank_order_with_intervals(tmp_path: Path) -> None:
    outcomes = tournament(tmp_path, bots=("ann", "bob", "cyd", "dan"), deals=2)
    standings = compute_standings(outcomes)
    text, page = report(tmp_path)
    rows = page.tables["standings-table"][1:]
    assert [row[1] for row in rows] == [line.bot for line in standings.bots]
    assert [row[0] for row in rows] == ["1", "2", "3", "4"]
    for row, line in zip(rows, standings.bots, strict=True):
        assert row[4] == f"{line.mean:.2f}"
        assert row[5] == f"{line.ci[0]:.2f} \u2013 {line.ci[1]:.2f}"
    chart = re.findall(r"<text class=name [^>]*>(\d+\. \w+)</text>", text)
    assert chart == [f"{line.rank}. {line.bot}" for line in standings.bots]
    assert text.count("<figure class=dist") == 4
    heat = page.tables["heatmap"]
    assert heat[0][1:] == [line.bot for line in standings.bots]
    first, second = standings.bots[0].bot, standings.bots[1].bot
    pairing = standings.pairing(first, second)
    assert pairing is not None
    assert heat[1][2] == f"{pairing.difference:+.1f}"


def test_every_game_is_embedded_when_they_fit(tmp_path: Path) -> None:
    outcomes = tournament(tmp_path)
    _, page = report(tmp_path)
    games = embedded(page)["games"]
    assert [game["id"] for game in games] == [outcome.game_id for outcome in outcomes]
    first = games[0]
    record = outcomes[0].record
    assert first["totals"] == list(record.totals)
    assert first["rounds"][0]["rows"] == [list(row) for row in record.rounds[0].rows]
    assert [turn[0] for turn in first["rounds"][0]["turns"]] == [
        list(turn.cards) for turn in record.rounds[0].turns
    ]


def test_the_page_needs_no_network(tmp_path: Path) -> None:
    tournament(tmp_path, deals=1)
    text, page = report(tmp_path)
    assert not re.search(r"""<(link|img|iframe)\b|\ssrc=|url\(""", text)
    assert "default-src 'none'" in text
    assert len(page.scripts) == 2 and all(page.scripts)


def test_bot_names_and_fault_messages_are_escaped(tmp_path: Path) -> None:
    fault = Fault(0, FaultKind.MALFORMED, Decision.CARD, 1, 4, MESSAGE)
    tournament(tmp_path, bots=(HOSTILE, "bob", "cyd"), deals=1, faults={1: [fault]})
    text, page = report(tmp_path)
    assert "<script>alert" not in text and "<img" not in text and "<!--" not in text
    assert text.count("<script") == 2 and text.count("</script>") == 2
    data = embedded(page)
    assert HOSTILE in data["bots"]
    assert "\\u003c" in page.scripts[0]
    # The parsed page shows the hostile strings as text, exactly as the bots wrote them.
    assert HOSTILE in [row[1] for row in page.tables["standings-table"][1:]]
    assert page.tables["fault-list"][1][3] == MESSAGE.strip()
    assert page.tables["faults-table"][1][0] == HOSTILE


def test_faults_by_bot_and_kind(tmp_path: Path) -> None:
    faults = {
        0: [Fault(1, FaultKind.TIMEOUT, Decision.CARD, 0, 0, "late")] * 2,
        3: [Fault(2, FaultKind.ILLEGAL, Decision.ROW, 1, 2, "row 7")],
    }
    outcomes = tournament(tmp_path, faults=faults)
    late, illegal = outcomes[0].spec.seats[1], outcomes[3].spec.seats[2]
    assert late != illegal
    _, page = report(tmp_path)
    table = page.tables["faults-table"]
    assert table[0] == ["bot", "timeout", "illegal", "all", "disqualified"]
    assert sorted(table[1:]) == sorted([[late, "2", "", "2", ""], [illegal, "", "1", "1", ""]])
    listed = page.tables["fault-list"][1:]
    assert [row[1:] for row in listed] == [
        [late, "timeout", "late"],
        [late, "timeout", "late"],
        [illegal, "illegal", "row 7"],
    ]
    assert listed[2][0] == f"{outcomes[3].game_id} round 2 turn 3"


def test_a_cap_keeps_the_notable_games_and_says_so(tmp_path: Path) -> None:
    outcomes = tournament(tmp_path, bots=("ann", "bob", "cyd", "dan"), deals=3)
    assert len(outcomes) == 36
    last = outcomes[-1].game_id
    text, page = report(tmp_path, "--max-games", "10", "--include", last, "-o", str(tmp_path / "r"))
    ids = [game["id"] for game in embedded(page)["games"]]
    assert len(ids) == 11 and last in ids
    assert ids == sorted(ids), "in schedule order"
    assert "11 of 36 games" in text
    assert "--game ID" in text


def test_choosing_games_puts_the_biggest_take_and_each_bots_extremes_first() -> None:
    notes = [
        GameNote(n, f"g{n:02d}", ("a", "b"), (n, 50 - n), Take(n % 7, 0, 0, 1))
        for n in range(1, 41)
    ]
    ids, how = choose_games(notes, 8)
    assert len(ids) == 8 and "8 of 40 games" in how
    assert "g06" in ids  # the biggest take (6, first on a tie)
    assert {"g01", "g40"} <= set(ids)  # a's best and worst, b's worst and best
    assert choose_games(notes, 40)[0] == [note.game_id for note in notes]
    with pytest.raises(SpectateError, match="no game 'nope'"):
        choose_games(notes, 8, ["nope"])


def test_a_running_tournament_is_reported_as_in_progress(tmp_path: Path) -> None:
    tournament(tmp_path, deals=2, games=4)
    text, page = report(tmp_path)
    assert "in progress:</b> 4 of 6 games played" in text
    assert len(embedded(page)["games"]) == 4


def test_nothing_to_report_is_one_line(tmp_path: Path) -> None:
    tournament(tmp_path, games=0)
    result = CliRunner().invoke(main, ["report", str(tmp_path)])
    assert result.exit_code == 2
    assert (
        result.output.strip() == f"Error: {tmp_path} holds no finished game yet: nothing to report"
    )


def test_write_report_returns_what_it_wrote(tmp_path: Path) -> None:
    tournament(tmp_path, deals=1)
    summary = write_report(tmp_path / "replays.jsonl", tmp_path / "page" / "x.html", max_games=2)
    assert summary.path.read_bytes().__len__() == summary.bytes
    assert (summary.games, summary.embedded) == (3, 2)


def test_more_than_ten_bots_get_colours_of_their_own(tmp_path: Path) -> None:
    bots = [f"bot{index:02d}" for index in range(13)]
    tournament(tmp_path, bots=bots, players=2, deals=1)
    _, page = report(tmp_path)
    colours = embedded(page)["colours"]
    assert len(colours) == 13 and len(set(colours)) == 13
    assert len(set(charts.bot_colours([f"b{i}" for i in range(300)]).values())) == 300


def test_each_fallback_decision_is_in_the_viewers_data(tmp_path: Path) -> None:
    """A fault marks its own decision with its message; a crash, every later decision of that
    seat in the game (quietly: the bot was not asked)."""
    timeout = Fault(1, FaultKind.TIMEOUT, Decision.CARD, 0, 2, "no answer in 1.0 s")
    crash = Fault(2, FaultKind.CRASHED, Decision.CARD, 1, 8, "cyd: the bot exited")
    tournament(tmp_path, deals=1, faults={0: [timeout, crash]})
    _, page = report(tmp_path)
    game = embedded(page)["games"][0]
    marks = game["marks"]
    assert marks[0] == [0, 3, 1, "card", "timeout", "no answer in 1.0 s", 0]
    assert marks[1] == [1, 9, 2, "card", "crashed", "cyd: the bot exited", 0]
    quiet = [mark for mark in marks[2:]]
    assert quiet and all(mark[2] == 2 and mark[6] == 1 for mark in quiet)
    cards_after = sum(len(r["turns"]) for r in game["rounds"][2:]) + 1  # round 2 turn 10 on
    assert len([m for m in quiet if m[3] == "card"]) == cards_after


def test_a_disqualified_bot_is_marked_and_ranked_last(tmp_path: Path) -> None:
    tournament(tmp_path, deals=1)
    with ResultStore(tmp_path / DATABASE, identity(BOTS, 3, 1, 5)) as store:
        store.enter([Entry("ann", "{}", "x", None, None)], {})
        store.disqualify(Disqualification("ann", "is disqualified after 20 faults", "", 0))
    text, page = report(tmp_path)
    rows = page.tables["standings-table"][1:]
    assert rows[-1][1].startswith("ann") and "disqualified" in rows[-1][1]
    assert "<b>ann</b> disqualified: is disqualified after 20 faults" in text
