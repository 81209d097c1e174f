"""Conversions between the rules' types and the messages: round trips through the wire bytes."""

from __future__ import annotations

import dataclasses
import itertools
from enum import Enum

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings

from arena.players import Fault, FaultKind
from arena.protocol import (
    ANSWER_CHOICES,
    DECISIONS,
    FAULT_KINDS,
    PROTOCOL_VERSION,
    VARIANTS,
    ProtocolError,
    answer_from_proto,
    answer_to_proto,
    decision_from_proto,
    decision_to_proto,
    fault_kind_from_proto,
    fault_kind_to_proto,
    fault_to_proto,
    game_ended_to_proto,
    game_started_to_proto,
    pb,
    request_message,
    round_ended_to_proto,
    settings_from_proto,
    settings_to_proto,
    turn_from_proto,
    turn_to_proto,
    variant_from_proto,
    variant_to_proto,
    view_from_proto,
    view_to_proto,
)
from arena.protocol.convert import public_view, same_moment
from arena.rules import Decision, Settings, Variant, View
from tests import strategies
from tests.protocol.games import PlayedGame, play


def through_wire(view: View) -> View:
    """A view converted to a message, serialized, parsed back and converted back."""
    data = view_to_proto(view).SerializeToString()
    return view_from_proto(pb.View.FromString(data))


def first_view(game: PlayedGame, decision: Decision) -> View | None:
    """The first view of `game` asked for `decision`, if any."""
    return next((view for asked, view in game.asked if asked is decision), None)


# -- views of real games ----------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(Variant))
def test_every_view_of_a_game_survives_the_wire(variant: Variant) -> None:
    for players in (2, 5, 10):
        game = play(Settings(players, variant, end_score=30), seed=players)
        for _, view in game.asked:
            assert through_wire(view) == view


def test_a_row_choice_view_survives_the_wire_with_its_revealed_cards() -> None:
    games = (play(Settings(players), seed) for players in (4, 10) for seed in range(20))
    view = next(v for g in games if (v := first_view(g, Decision.ROW)) is not None)
    assert view.revealed, "a row choice shows this turn's revealed cards"
    assert len(view.revealed) == view.settings.players
    back = through_wire(view)
    assert back == view
    assert back.revealed == view.revealed


def test_a_draft_view_survives_the_wire_with_its_table_and_hands() -> None:
    game = play(Settings(3, Variant.PROFESSIONAL_DRAFT, max_rounds=1), seed=3)
    drafts = [view for decision, view in game.asked if decision is Decision.DRAFT]
    assert len(drafts) == 3 * 10
    view = drafts[5]  # mid-draft: some cards picked, most still on the table
    assert view.table and any(view.hands) and view.rows == ()
    back = through_wire(view)
    assert back == view
    assert (back.table, back.hands) == (view.table, view.hands)


def test_a_late_view_survives_the_wire_with_its_starting_rows_takes_and_names() -> None:
    game = play(Settings(4), seed=5)
    view = next(v for _, v in game.asked if sum(map(bool, v.taken)) >= 2)
    msg = pb.View.FromString(view_to_proto(view).SerializeToString())
    assert [list(row.cards) for row in msg.start_rows] == [list(row) for row in view.start_rows]
    assert [list(cards.cards) for cards in msg.taken] == [list(cards) for cards in view.taken]
    assert list(msg.names) == ["bot-5-0", "bot-5-1", "bot-5-2", "bot-5-3"]
    assert len(msg.start_rows) == 4 and len(msg.taken) == 4
    assert view_from_proto(msg) == view


def test_the_new_view_fields_keep_their_numbers() -> None:
    """Added in protocol version 1 with numbers of their own: an older bot skips them."""
    numbers = {f.name: f.number for f in pb.View.DESCRIPTOR.fields}
    added = ("start_rows", "taken", "names", "seed")
    assert tuple(numbers[name] for name in added) == (13, 14, 15, 16)
    older = [n for name, n in numbers.items() if name not in added]
    assert sorted(older) == list(range(1, 13))


def test_a_view_carries_its_seed_and_an_older_bot_reads_the_rest() -> None:
    """The seed survives the wire; a bot built from a copy of the .proto without it (here: the
    message with field 16 stripped, as such a bot's parser keeps it unread) sees the same view
    but for the seed, and a view without one sends no bytes for it."""
    view = play(Settings(4), seed=6).asked[3][1]
    assert 0 < view.seed < 2**53
    data = view_to_proto(view).SerializeToString()
    assert view_from_proto(pb.View.FromString(data)) == view
    older = pb.View.FromString(data)
    older.ClearField("seed")
    assert view_from_proto(older) == dataclasses.replace(view, seed=0)
    unseeded = dataclasses.replace(view, seed=0)
    assert len(view_to_proto(unseeded).SerializeToString()) < len(data)


def test_a_placement_row_reads_as_an_answer_row_does() -> None:
    """Placement.row and Answer.row are both int32, and 0 to 3 are the same bytes either way."""
    placement = pb.Placement.DESCRIPTOR.fields_by_name["row"]
    answer = pb.Answer.DESCRIPTOR.fields_by_name["row"]
    assert placement.type == answer.type == placement.TYPE_INT32
    for row in range(4):  # Settings.end_score is a uint32 numbered 3, as Placement.row was
        as_uint32 = pb.Settings(end_score=row).SerializeToString()
        assert pb.Placement(row=row).SerializeToString() == as_uint32
        assert pb.Placement.FromString(as_uint32).row == row


@hypothesis_settings(max_examples=25, deadline=None)
@given(settings=strategies.settings(), seed=strategies.seeds)
def test_views_of_any_game_survive_the_wire(settings: Settings, seed: int) -> None:
    for _, view in play(settings, seed).asked:
        assert through_wire(view) == view


def test_an_empty_view_keeps_its_empty_fields() -> None:
    view = View(Settings(2), 1, 0, 0, (), (), (0, 0), (0, 0), ())
    assert through_wire(view) == view


# -- settings ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "settings",
    [
        Settings(2),
        Settings(10, Variant.PROFESSIONAL, end_score=100, max_rounds=3),
        Settings(4, Variant.PROFESSIONAL_DRAFT, end_score=1, max_rounds=1),
    ],
)
def test_settings_survive_the_wire(settings: Settings) -> None:
    data = settings_to_proto(settings).SerializeToString()
    assert settings_from_proto(pb.Settings.FromString(data)) == settings


def test_no_round_cap_is_sent_as_zero() -> None:
    assert settings_to_proto(Settings(4)).max_rounds == 0
    assert settings_from_proto(pb.Settings(players=4, variant=1, end_score=66)).max_rounds is None


@pytest.mark.parametrize(
    "msg",
    [
        pb.Settings(),
        pb.Settings(players=11, variant=pb.VARIANT_STANDARD, end_score=66),
        pb.Settings(players=4, variant=pb.VARIANT_STANDARD, end_score=0),
        pb.Settings(players=4, variant=pb.VARIANT_UNSPECIFIED, end_score=66),
    ],
)
def test_unplayable_settings_are_a_protocol_error(msg: pb.Settings) -> None:
    with pytest.raises(ProtocolError):
        settings_from_proto(msg)


# -- turns ------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(Variant))
def test_every_turn_survives_the_wire(variant: Variant) -> None:
    record = play(Settings(6, variant, end_score=40), seed=11).record
    for round_index, recorded in enumerate(record.rounds):
        for turn_index, turn in enumerate(recorded.turns):
            data = turn_to_proto("g-7", round_index, turn_index, turn).SerializeToString()
            msg = pb.TurnRevealed.FromString(data)
            assert (msg.game_id, msg.round, msg.turn) == ("g-7", round_index, turn_index)
            assert turn_from_proto(msg) == turn


def test_a_turn_with_taken_and_chosen_rows_survives_the_wire() -> None:
    games = (play(Settings(10), seed) for seed in range(20))
    turns = [t for g in games for r in g.record.rounds for t in r.turns]
    chosen = next(t for t in turns if any(p.chosen for p in t.placements))
    full = next(t for t in turns if any(p.taken and not p.chosen for p in t.placements))
    for turn in (chosen, full):
        msg = pb.TurnRevealed.FromString(turn_to_proto("g", 0, 0, turn).SerializeToString())
        assert turn_from_proto(msg) == turn


# -- enums ------------------------------------------------------------------------------------

ENUMS = [
    (Decision, DECISIONS, pb.Decision, "DECISION_", decision_to_proto, decision_from_proto),
    (Variant, VARIANTS, pb.Variant, "VARIANT_", variant_to_proto, variant_from_proto),
    (
        FaultKind,
        FAULT_KINDS,
        pb.FaultKind,
        "FAULT_KIND_",
        fault_kind_to_proto,
        fault_kind_from_proto,
    ),
]


@pytest.mark.parametrize(("enum", "mapping", "wire", "prefix", "to_proto", "from_proto"), ENUMS)
def test_each_enum_maps_every_member_both_ways_by_name(
    enum, mapping, wire, prefix, to_proto, from_proto
) -> None:
    members: list[Enum] = list(enum)
    assert set(mapping) == set(members)
    assert sorted(mapping.values()) == sorted(v for v in wire.values() if v != 0)
    for member in members:
        value = to_proto(member)
        assert wire.Name(value) == prefix + member.name
        assert from_proto(value) is member


@pytest.mark.parametrize(("enum", "mapping", "wire", "prefix", "to_proto", "from_proto"), ENUMS)
def test_unspecified_and_unknown_enum_values_are_a_protocol_error(
    enum, mapping, wire, prefix, to_proto, from_proto
) -> None:
    for value in (0, max(wire.values()) + 1, -1):
        with pytest.raises(ProtocolError, match=repr(value)):
            from_proto(value)


# -- requests and answers ---------------------------------------------------------------------


def test_a_request_message_carries_the_view_and_equals_one_built_from_parts() -> None:
    game = play(Settings(4, Variant.PROFESSIONAL_DRAFT, max_rounds=1), seed=5)
    for decision, view in game.asked[:40]:
        msg = request_message(42, "g-1", decision, 1500, view)
        parsed = pb.ArenaMessage.FromString(msg.SerializeToString())
        assert parsed.WhichOneof("kind") == "request"
        request = parsed.request
        assert (request.request_id, request.game_id, request.deadline_ms) == (42, "g-1", 1500)
        assert decision_from_proto(request.decision) is decision
        assert view_from_proto(request.view) == view
        built = pb.ArenaMessage(
            request=pb.Request(
                request_id=42,
                game_id="g-1",
                decision=decision_to_proto(decision),
                deadline_ms=1500,
                view=view_to_proto(view),
            )
        )
        assert msg == built


@pytest.mark.parametrize("variant", list(Variant))
def test_a_request_with_the_public_part_of_another_seats_view_equals_one_built_whole(
    variant: Variant,
) -> None:
    """The remote game builds a moment's public part for its first seat asked and merges it
    into the others' requests: only views of one moment may share it, and then the requests are
    those built whole."""
    game = play(Settings(4, variant, max_rounds=2), seed=7)
    shared = 0
    first: View | None = None
    for decision, view in game.asked:
        if first is None or not same_moment(first, view):
            first = view
        else:
            shared += 1
        merged = request_message(7, "g", decision, 900, view, 0, public_view(first))
        whole = request_message(7, "g", decision, 900, view)
        assert merged == whole
        assert merged.SerializeToString() == whole.SerializeToString()
    if variant is not Variant.PROFESSIONAL_DRAFT:  # there each view gets a tuple of every hand
        assert shared >= 3 * 10  # three seats after the first in each turn of a round at least
    views = [view for _, view in game.asked]
    for one, other in itertools.pairwise(views):  # never a part another moment's view differs in
        assert public_view(one) == public_view(other) or not same_moment(one, other)


@pytest.mark.parametrize(("decision", "value"), [(d, v) for d in Decision for v in (0, 1, 3, 104)])
def test_answers_survive_the_wire(decision: Decision, value: int) -> None:
    data = pb.BotMessage(answer=answer_to_proto(9, decision, value)).SerializeToString()
    answer = pb.BotMessage.FromString(data).answer
    assert answer.request_id == 9
    assert answer.WhichOneof("choice") == ANSWER_CHOICES[decision]  # row 0 is still set
    assert answer_from_proto(answer, decision) == value


@pytest.mark.parametrize(
    ("answer", "decision"),
    [
        (pb.Answer(request_id=1, row=2), Decision.CARD),
        (pb.Answer(request_id=1, row=2), Decision.DRAFT),
        (pb.Answer(request_id=1, card=2), Decision.ROW),
        (pb.Answer(request_id=1), Decision.CARD),
        (pb.Answer(request_id=1), Decision.ROW),
    ],
)
def test_an_answer_of_the_wrong_kind_is_a_protocol_error(
    answer: pb.Answer, decision: Decision
) -> None:
    with pytest.raises(ProtocolError, match=str(decision)):
        answer_from_proto(answer, decision)


def test_the_protocol_version_is_one() -> None:
    assert PROTOCOL_VERSION == 1


# -- events -----------------------------------------------------------------------------------


def test_events_carry_what_the_rules_give_them() -> None:
    settings = Settings(3, Variant.PROFESSIONAL, end_score=20, max_rounds=2)
    record = play(settings, seed=2).record

    started = game_started_to_proto("g-2", 1, settings, ["a", "b", "c"])
    assert (started.game_id, started.seat, list(started.players)) == ("g-2", 1, ["a", "b", "c"])
    assert settings_from_proto(started.settings) == settings

    ended_round = round_ended_to_proto("g-2", 0, record.rounds[0], record.rounds[0].penalties)
    assert (ended_round.game_id, ended_round.round) == ("g-2", 0)
    assert tuple(ended_round.penalties) == record.rounds[0].penalties
    assert tuple(ended_round.totals) == record.rounds[0].penalties

    ended = game_ended_to_proto("g-2", record.totals, record.winners)
    assert (tuple(ended.totals), tuple(ended.winners)) == (record.totals, record.winners)

    fault = Fault(2, FaultKind.ILLEGAL, Decision.CARD, 0, 3, "seat 2: illegal card 17")
    notice = fault_to_proto("g-2", 77, fault)
    assert (notice.game_id, notice.request_id, notice.message) == ("g-2", 77, fault.message)
    assert fault_kind_from_proto(notice.kind) is FaultKind.ILLEGAL
    for msg in (started, ended_round, ended, notice):
        assert type(msg).FromString(msg.SerializeToString()) == msg
