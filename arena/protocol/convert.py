"""Conversions between the rules' types and the wire's messages: the one place that knows both.

Pure functions, no I/O. The `*_to_proto` functions build messages, the `*_from_proto` ones read
them back to equal rules values. They run for every decision of every game, so the views are
filled in place: upb copies a sub-message given to a constructor, and parses keyword arguments
slowly for repeated fields, so `msg.field.add().cards.extend(...)` beats `Cards(cards=...)` lists
by about half (measured with grpcio-tools 1.85.1 / protobuf 7 upb).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from arena.players import Fault, FaultKind
from arena.protocol.generated import pb
from arena.rules import (
    Decision,
    InvalidSettingsError,
    RoundRecord,
    Settings,
    TurnRecord,
    Variant,
    View,
    make_placement,
    make_view,
)

if TYPE_CHECKING:
    from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

PROTOCOL_VERSION: Final = 1
"""The protocol version this arena speaks (Hello.protocol_version, Welcome.protocol_version)."""


class ProtocolError(ValueError):
    """A message the rules' types cannot represent: an unknown enum value, a wrong answer kind."""


# -- enums: each mapping in one place, read both ways ------------------------------------------

DECISIONS: Final[Mapping[Decision, pb.Decision]] = MappingProxyType(
    {
        Decision.CARD: pb.DECISION_CARD,
        Decision.ROW: pb.DECISION_ROW,
        Decision.DRAFT: pb.DECISION_DRAFT,
    }
)
"""Each rules decision and its wire value."""

VARIANTS: Final[Mapping[Variant, pb.Variant]] = MappingProxyType(
    {
        Variant.STANDARD: pb.VARIANT_STANDARD,
        Variant.PROFESSIONAL: pb.VARIANT_PROFESSIONAL,
        Variant.PROFESSIONAL_DRAFT: pb.VARIANT_PROFESSIONAL_DRAFT,
    }
)
"""Each rules variant and its wire value."""

FAULT_KINDS: Final[Mapping[FaultKind, pb.FaultKind]] = MappingProxyType(
    {
        FaultKind.TIMEOUT: pb.FAULT_KIND_TIMEOUT,
        FaultKind.CRASHED: pb.FAULT_KIND_CRASHED,
        FaultKind.NOT_CONNECTED: pb.FAULT_KIND_NOT_CONNECTED,
        FaultKind.MALFORMED: pb.FAULT_KIND_MALFORMED,
        FaultKind.ILLEGAL: pb.FAULT_KIND_ILLEGAL,
        FaultKind.DISQUALIFIED: pb.FAULT_KIND_DISQUALIFIED,
    }
)
"""Each fault kind and its wire value."""

ANSWER_CHOICES: Final[Mapping[Decision, str]] = MappingProxyType(
    {Decision.CARD: "card", Decision.ROW: "row", Decision.DRAFT: "card"}
)
"""The field of Answer's `choice` oneof that answers each decision."""

_DECISIONS_BACK: Final[Mapping[int, Decision]] = {v: k for k, v in DECISIONS.items()}
_VARIANTS_BACK: Final[Mapping[int, Variant]] = {v: k for k, v in VARIANTS.items()}
_FAULT_KINDS_BACK: Final[Mapping[int, FaultKind]] = {v: k for k, v in FAULT_KINDS.items()}


def decision_to_proto(decision: Decision) -> pb.Decision:
    """The wire value of a decision."""
    return DECISIONS[decision]


def decision_from_proto(value: int) -> Decision:
    """The decision a wire value stands for; ProtocolError for UNSPECIFIED or an unknown one."""
    try:
        return _DECISIONS_BACK[value]
    except KeyError:
        raise ProtocolError(f"no decision has the wire value {value!r}") from None


def variant_to_proto(variant: Variant) -> pb.Variant:
    """The wire value of a variant."""
    return VARIANTS[variant]


def variant_from_proto(value: int) -> Variant:
    """The variant a wire value stands for; ProtocolError for UNSPECIFIED or an unknown one."""
    try:
        return _VARIANTS_BACK[value]
    except KeyError:
        raise ProtocolError(f"no variant has the wire value {value!r}") from None


def fault_kind_to_proto(kind: FaultKind) -> pb.FaultKind:
    """The wire value of a fault kind."""
    return FAULT_KINDS[kind]


def fault_kind_from_proto(value: int) -> FaultKind:
    """The fault kind a wire value stands for; ProtocolError for UNSPECIFIED or an unknown one."""
    try:
        return _FAULT_KINDS_BACK[value]
    except KeyError:
        raise ProtocolError(f"no fault kind has the wire value {value!r}") from None


# -- settings and views -----------------------------------------------------------------------


def settings_to_proto(settings: Settings) -> pb.Settings:
    """A game's settings as a message (no round cap is sent as max_rounds 0)."""
    msg = pb.Settings()
    _fill_settings(msg, settings)
    return msg


def settings_from_proto(msg: pb.Settings) -> Settings:
    """The settings a message holds; ProtocolError when the rules cannot play them."""
    try:
        return Settings(
            players=msg.players,
            variant=variant_from_proto(msg.variant),
            end_score=msg.end_score,
            max_rounds=msg.max_rounds or None,
        )
    except InvalidSettingsError as error:
        raise ProtocolError(f"unplayable settings: {error}") from error


def view_to_proto(view: View) -> pb.View:
    """One seat's view as a message; `view_from_proto` reads it back to an equal View."""
    msg = pb.View()
    _fill_view(msg, view)
    return msg


def view_from_proto(msg: pb.View) -> View:
    """The View a message holds; ProtocolError when its settings are unplayable."""
    return make_view(  # a bot reads one view per request: the engine's quick builder
        settings_from_proto(msg.settings),
        msg.seat,
        msg.round,
        msg.turn,
        tuple(msg.hand),
        tuple([tuple(row.cards) for row in msg.rows]),
        tuple(msg.penalties),
        tuple(msg.totals),
        tuple([tuple(turn.cards) for turn in msg.played]),
        tuple(msg.revealed),
        tuple(msg.table),
        tuple([tuple(hand.cards) for hand in msg.hands]),
        tuple([tuple(row.cards) for row in msg.start_rows]),
        tuple([tuple(cards.cards) for cards in msg.taken]),
        tuple(msg.names),
        msg.seed,
    )


# -- requests and answers ---------------------------------------------------------------------


def request_message(
    request_id: int,
    game_id: str,
    decision: Decision,
    deadline_ms: int,
    view: View,
    bank_ms: int = 0,
    public: pb.View | None = None,
) -> pb.ArenaMessage:
    """The ArenaMessage asking one seat for a decision, built in place (no sub-message copies);
    `bank_ms` is what is left of the seat's time bank (0: none). `public` is the view's public
    part (`public_view`) when one was built for another seat asked at the same moment: merged in
    C, not built again field by field."""
    msg = pb.ArenaMessage()
    request = msg.request
    request.request_id = request_id
    request.game_id = game_id
    request.decision = DECISIONS[decision]
    request.deadline_ms = deadline_ms
    if bank_ms:
        request.bank_ms = bank_ms
    if public is None:
        _fill_public(request.view, view)
    else:
        request.view.MergeFrom(public)
    _fill_private(request.view, view)
    return msg


def public_view(view: View) -> pb.View:
    """Every part of `view` but the seat's own (its seat, hand and seed): the same for every
    seat asked at the same moment of a game, so built once for all of them (`request_message`)."""
    msg = pb.View()
    _fill_public(msg, view)
    return msg


def same_moment(view: View, other: View) -> bool:
    """Whether two views hold the same public part (`public_view`): the same round and turn, and
    the very same tuples the engine shares between the views of one moment. A moment whose
    parts were built afresh for each view is not recognised, which costs time, never truth."""
    return (
        view.round == other.round
        and view.turn == other.turn
        and view.settings is other.settings
        and view.rows is other.rows
        and view.penalties is other.penalties
        and view.totals is other.totals
        and view.played is other.played
        and view.revealed is other.revealed
        and view.table is other.table
        and view.hands is other.hands
        and view.start_rows is other.start_rows
        and view.taken is other.taken
        and view.names is other.names
    )


def answer_to_proto(request_id: int, decision: Decision, value: int) -> pb.Answer:
    """A bot's answer to a request: `value` set in the choice that answers `decision`."""
    if ANSWER_CHOICES[decision] == "row":
        return pb.Answer(request_id=request_id, row=value)
    return pb.Answer(request_id=request_id, card=value)


def answer_from_proto(msg: pb.Answer, decision: Decision) -> int:
    """The card or row an answer gives; ProtocolError when its choice does not fit `decision`."""
    choice = msg.WhichOneof("choice")
    expected = ANSWER_CHOICES[decision]
    if choice != expected:
        raise ProtocolError(f"a {decision} request is answered with {expected!r}, not {choice!r}")
    value: int = msg.row if choice == "row" else msg.card
    return value


# -- events -----------------------------------------------------------------------------------


def game_started_to_proto(
    game_id: str, seat: int, settings: Settings, players: Sequence[str]
) -> pb.GameStarted:
    """The GameStarted event for the bot at `seat`; `players` are the names by seat."""
    msg = pb.GameStarted(game_id=game_id, seat=seat, players=players)
    _fill_settings(msg.settings, settings)
    return msg


def turn_to_proto(game_id: str, round: int, turn_index: int, turn: TurnRecord) -> pb.TurnRevealed:
    """The TurnRevealed event for one turn; `round` and `turn_index` count from 0."""
    msg = pb.TurnRevealed()
    _fill_turn(msg, game_id, round, turn_index, turn)
    return msg


def turn_message(game_id: str, round: int, turn_index: int, turn: TurnRecord) -> pb.ArenaMessage:
    """`turn_to_proto`'s event as the ArenaMessage that carries it, built in place."""
    msg = pb.ArenaMessage()
    _fill_turn(msg.turn_revealed, game_id, round, turn_index, turn)
    return msg


def turn_from_proto(msg: pb.TurnRevealed) -> TurnRecord:
    """The TurnRecord a TurnRevealed event holds (its indices are `msg.round` and `msg.turn`)."""
    return TurnRecord(
        cards=tuple(msg.cards),
        placements=tuple(
            [
                make_placement(p.seat, p.card, p.row, tuple(p.taken), p.chosen)
                for p in msg.placements
            ]
        ),
    )


def round_ended_to_proto(
    game_id: str, round: int, record: RoundRecord, totals: Sequence[int]
) -> pb.RoundEnded:
    """The RoundEnded event: `record`'s penalties and the game `totals` after the round."""
    return pb.RoundEnded(game_id=game_id, round=round, penalties=record.penalties, totals=totals)


def game_ended_to_proto(
    game_id: str, totals: Sequence[int], winners: Sequence[int]
) -> pb.GameEnded:
    """The GameEnded event: each seat's game total and the winning seats."""
    return pb.GameEnded(game_id=game_id, totals=totals, winners=winners)


def fault_to_proto(game_id: str, request_id: int, fault: Fault) -> pb.FaultNotice:
    """The FaultNotice telling a bot about `fault`; `request_id` 0 when no one request failed."""
    return pb.FaultNotice(
        game_id=game_id,
        request_id=request_id,
        kind=FAULT_KINDS[fault.kind],
        message=fault.message,
    )


# -- in-place fillers -------------------------------------------------------------------------


def _fill_settings(msg: pb.Settings, settings: Settings) -> None:
    msg.players = settings.players
    msg.variant = VARIANTS[settings.variant]
    msg.end_score = settings.end_score
    msg.max_rounds = settings.max_rounds or 0


def _fill_view(msg: pb.View, view: View) -> None:
    _fill_public(msg, view)
    _fill_private(msg, view)


def _fill_private(msg: pb.View, view: View) -> None:
    """The seat's own part of its view: its seat, its hand, its seed."""
    msg.seat = view.seat
    msg.hand.extend(view.hand)
    if view.seed:
        msg.seed = view.seed


def _fill_public(msg: pb.View, view: View) -> None:
    _fill_settings(msg.settings, view.settings)
    msg.round = view.round
    msg.turn = view.turn
    _fill_cards(msg.rows, view.rows)
    msg.penalties.extend(view.penalties)
    msg.totals.extend(view.totals)
    _fill_cards(msg.played, view.played)
    msg.revealed.extend(view.revealed)
    msg.table.extend(view.table)
    _fill_cards(msg.hands, view.hands)
    _fill_cards(msg.start_rows, view.start_rows)
    _fill_cards(msg.taken, view.taken)
    msg.names.extend(view.names)


def _fill_turn(
    msg: pb.TurnRevealed, game_id: str, round: int, turn_index: int, turn: TurnRecord
) -> None:
    msg.game_id = game_id
    msg.round = round
    msg.turn = turn_index
    msg.cards.extend(turn.cards)
    add = msg.placements.add
    for placement in turn.placements:  # filled in place: no Placement built, then copied
        added = add()
        added.seat = placement.seat
        added.card = placement.card
        added.row = placement.row
        added.taken.extend(placement.taken)
        added.chosen = placement.chosen


def _fill_cards(
    field: RepeatedCompositeFieldContainer[pb.Cards], lists: Iterable[Iterable[int]]
) -> None:
    add = field.add
    for cards in lists:
        add().cards.extend(cards)
