"""The line protocol's JSON, exactly as docs/writing-a-bot.md shows it, both ways; and the
bridge's faults for a program that answers garbage."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from arena.players import FaultKind, GameResult
from arena.protocol import pb, request_message
from arena.rules import Decision, Settings, View
from arena.sdk.stdio import AnswerError, decode, encode
from arena.server.options import BotOptions
from arena.server.session import open_session
from arena.server.specs import parse_bot
from tests.anybot.conftest import TEST_BOTS
from tests.server.helpers import SAMPLE_BOTS

VIEW = View(  # turn 0 placed 9, 30 and 61; in turn 1, 3 took row 1 for 5, then 70 and 101 went on
    settings=Settings(players=3),
    seat=1,
    round=0,
    turn=2,
    hand=(12, 40, 77),
    rows=((5, 9), (3,), (60, 61, 70), (90, 101)),
    penalties=(5, 0, 0),
    totals=(0, 0, 0),
    played=((9, 30, 61), (3, 70, 101)),
    start_rows=((5,), (25,), (60,), (90,)),
    taken=((25, 30), (), ()),
    names=("alice", "mine", "carol"),
    seed=2**53 - 1,
)


def test_a_request_line_holds_every_field_under_the_proto_names() -> None:
    line = encode(request_message(7, "t0-d1-r2", Decision.CARD, 1000, VIEW))
    assert line is not None and "\n" not in line
    assert json.loads(line) == {
        "request": {
            "request_id": "7",
            "game_id": "t0-d1-r2",
            "decision": "DECISION_CARD",
            "deadline_ms": 1000,
            "view": {
                "settings": {
                    "players": 3,
                    "variant": "VARIANT_STANDARD",
                    "end_score": 66,
                    "max_rounds": 0,
                },
                "seat": 1,
                "round": 0,
                "turn": 2,
                "hand": [12, 40, 77],
                "rows": [
                    {"cards": [5, 9]},
                    {"cards": [3]},
                    {"cards": [60, 61, 70]},
                    {"cards": [90, 101]},
                ],
                "penalties": [5, 0, 0],
                "totals": [0, 0, 0],
                "played": [{"cards": [9, 30, 61]}, {"cards": [3, 70, 101]}],
                "revealed": [],
                "table": [],
                "hands": [],
                "start_rows": [{"cards": [5]}, {"cards": [25]}, {"cards": [60]}, {"cards": [90]}],
                "taken": [{"cards": [25, 30]}, {"cards": []}, {"cards": []}],
                "names": ["alice", "mine", "carol"],
                "seed": str(2**53 - 1),  # a uint64: a string in the JSON mapping
            },
            "bank_ms": 0,
        }
    }


def test_events_are_passed_on_and_the_welcome_and_unknown_kinds_are_not() -> None:
    ended = pb.ArenaMessage(game_ended=pb.GameEnded(game_id="g", totals=[3, 70], winners=[0]))
    assert json.loads(encode(ended) or "") == {
        "game_ended": {"game_id": "g", "totals": [3, 70], "winners": [0]}
    }
    fault = pb.ArenaMessage(fault=pb.FaultNotice(game_id="g", kind=pb.FAULT_KIND_TIMEOUT))
    assert json.loads(encode(fault) or "")["fault"]["kind"] == "FAULT_KIND_TIMEOUT"
    assert encode(pb.ArenaMessage(welcome=pb.Welcome(protocol_version=1))) is None
    newer = pb.ArenaMessage()
    newer.MergeFromString(bytes([15 << 3 | 2, 0]))  # field 15: a kind from a newer protocol
    assert encode(newer) is None


@pytest.mark.parametrize(
    ("line", "request_id", "choice", "value"),
    [
        ('{"request_id": "7", "card": 42}', 7, "card", 42),
        ('{"request_id": 7, "card": 42}', 7, "card", 42),
        ('{"requestId": "8", "row": 0}', 8, "row", 0),  # row 0 is an answer
        ('  {"request_id":"9","card":"5"}  ', 9, "card", 5),
    ],
)
def test_answers_are_read_in_the_json_mapping(
    line: str, request_id: int, choice: str, value: int
) -> None:
    answer = decode(line)
    assert answer.request_id == request_id
    assert answer.WhichOneof("choice") == choice
    assert getattr(answer, choice) == value


@pytest.mark.parametrize(
    ("line", "reason", "request_id"),
    [
        ("I play 17", "not JSON", None),
        ("17", "a JSON int, not an object", None),
        ('{"request_id": "7", "cards": 42}', 'no field named "cards"', 7),
        ('{"request_id": "7", "card": 1.5}', "Couldn't parse integer: 1.5", 7),
        ('{"request_id": "7", "card": 4, "row": 1}', 'multiple "choice" oneof fields', 7),
        ('{"request_id": "x7", "card": 4}', "request_id", None),
    ],
)
def test_a_line_that_is_not_an_answer_says_why(
    line: str, reason: str, request_id: int | None
) -> None:
    with pytest.raises(AnswerError) as caught:
        decode(line)
    assert reason in caught.value.reason
    assert caught.value.request_id == request_id


@pytest.mark.integration
def test_a_line_bot_answering_prose_commits_malformed_faults_not_timeouts(
    logs: Path, no_leftover_processes: None
) -> None:
    specs = [
        parse_bot(f"garbage=stdio:{TEST_BOTS / 'garbage_line_bot.py'}"),
        parse_bot(f"lowest={SAMPLE_BOTS / 'lowest_bot.py'}"),
    ]
    settings = Settings(players=2, max_rounds=1)

    async def game() -> GameResult:
        async with open_session(specs, logs, BotOptions(deadline=5.0)) as session:
            return await session.play("prose", settings, ["garbage", "lowest"], seed=2)

    result = asyncio.run(game())
    assert len(result.faults) >= 10  # every decision of the round, each at once
    assert {(fault.seat, fault.kind) for fault in result.faults} == {(0, FaultKind.MALFORMED)}
    log = (logs / "garbage.log").read_text()
    assert "line 1 of the program's output is not an answer (not JSON)" in log
