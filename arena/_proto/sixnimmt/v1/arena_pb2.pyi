from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Decision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_UNSPECIFIED: _ClassVar[Decision]
    DECISION_CARD: _ClassVar[Decision]
    DECISION_ROW: _ClassVar[Decision]
    DECISION_DRAFT: _ClassVar[Decision]

class Variant(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VARIANT_UNSPECIFIED: _ClassVar[Variant]
    VARIANT_STANDARD: _ClassVar[Variant]
    VARIANT_PROFESSIONAL: _ClassVar[Variant]
    VARIANT_PROFESSIONAL_DRAFT: _ClassVar[Variant]

class FaultKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_KIND_UNSPECIFIED: _ClassVar[FaultKind]
    FAULT_KIND_TIMEOUT: _ClassVar[FaultKind]
    FAULT_KIND_CRASHED: _ClassVar[FaultKind]
    FAULT_KIND_NOT_CONNECTED: _ClassVar[FaultKind]
    FAULT_KIND_MALFORMED: _ClassVar[FaultKind]
    FAULT_KIND_ILLEGAL: _ClassVar[FaultKind]
    FAULT_KIND_DISQUALIFIED: _ClassVar[FaultKind]
DECISION_UNSPECIFIED: Decision
DECISION_CARD: Decision
DECISION_ROW: Decision
DECISION_DRAFT: Decision
VARIANT_UNSPECIFIED: Variant
VARIANT_STANDARD: Variant
VARIANT_PROFESSIONAL: Variant
VARIANT_PROFESSIONAL_DRAFT: Variant
FAULT_KIND_UNSPECIFIED: FaultKind
FAULT_KIND_TIMEOUT: FaultKind
FAULT_KIND_CRASHED: FaultKind
FAULT_KIND_NOT_CONNECTED: FaultKind
FAULT_KIND_MALFORMED: FaultKind
FAULT_KIND_ILLEGAL: FaultKind
FAULT_KIND_DISQUALIFIED: FaultKind

class BotMessage(_message.Message):
    __slots__ = ("hello", "answer")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    answer: Answer
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., answer: _Optional[_Union[Answer, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("token", "name", "version", "protocol_version", "skip_events")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    SKIP_EVENTS_FIELD_NUMBER: _ClassVar[int]
    token: str
    name: str
    version: str
    protocol_version: int
    skip_events: bool
    def __init__(self, token: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., protocol_version: _Optional[int] = ..., skip_events: _Optional[bool] = ...) -> None: ...

class Answer(_message.Message):
    __slots__ = ("request_id", "card", "row")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    card: int
    row: int
    def __init__(self, request_id: _Optional[int] = ..., card: _Optional[int] = ..., row: _Optional[int] = ...) -> None: ...

class ArenaMessage(_message.Message):
    __slots__ = ("welcome", "request", "game_started", "turn_revealed", "round_ended", "game_ended", "fault")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    TURN_REVEALED_FIELD_NUMBER: _ClassVar[int]
    ROUND_ENDED_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    request: Request
    game_started: GameStarted
    turn_revealed: TurnRevealed
    round_ended: RoundEnded
    game_ended: GameEnded
    fault: FaultNotice
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., request: _Optional[_Union[Request, _Mapping]] = ..., game_started: _Optional[_Union[GameStarted, _Mapping]] = ..., turn_revealed: _Optional[_Union[TurnRevealed, _Mapping]] = ..., round_ended: _Optional[_Union[RoundEnded, _Mapping]] = ..., game_ended: _Optional[_Union[GameEnded, _Mapping]] = ..., fault: _Optional[_Union[FaultNotice, _Mapping]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("protocol_version", "bot_name", "arena_version")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    ARENA_VERSION_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    bot_name: str
    arena_version: str
    def __init__(self, protocol_version: _Optional[int] = ..., bot_name: _Optional[str] = ..., arena_version: _Optional[str] = ...) -> None: ...

class Settings(_message.Message):
    __slots__ = ("players", "variant", "end_score", "max_rounds")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    END_SCORE_FIELD_NUMBER: _ClassVar[int]
    MAX_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    players: int
    variant: Variant
    end_score: int
    max_rounds: int
    def __init__(self, players: _Optional[int] = ..., variant: _Optional[_Union[Variant, str]] = ..., end_score: _Optional[int] = ..., max_rounds: _Optional[int] = ...) -> None: ...

class Cards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, cards: _Optional[_Iterable[int]] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("settings", "seat", "round", "turn", "hand", "rows", "penalties", "totals", "played", "revealed", "table", "hands", "start_rows", "taken", "names", "seed")
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    START_ROWS_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    settings: Settings
    seat: int
    round: int
    turn: int
    hand: _containers.RepeatedScalarFieldContainer[int]
    rows: _containers.RepeatedCompositeFieldContainer[Cards]
    penalties: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    played: _containers.RepeatedCompositeFieldContainer[Cards]
    revealed: _containers.RepeatedScalarFieldContainer[int]
    table: _containers.RepeatedScalarFieldContainer[int]
    hands: _containers.RepeatedCompositeFieldContainer[Cards]
    start_rows: _containers.RepeatedCompositeFieldContainer[Cards]
    taken: _containers.RepeatedCompositeFieldContainer[Cards]
    names: _containers.RepeatedScalarFieldContainer[str]
    seed: int
    def __init__(self, settings: _Optional[_Union[Settings, _Mapping]] = ..., seat: _Optional[int] = ..., round: _Optional[int] = ..., turn: _Optional[int] = ..., hand: _Optional[_Iterable[int]] = ..., rows: _Optional[_Iterable[_Union[Cards, _Mapping]]] = ..., penalties: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ..., played: _Optional[_Iterable[_Union[Cards, _Mapping]]] = ..., revealed: _Optional[_Iterable[int]] = ..., table: _Optional[_Iterable[int]] = ..., hands: _Optional[_Iterable[_Union[Cards, _Mapping]]] = ..., start_rows: _Optional[_Iterable[_Union[Cards, _Mapping]]] = ..., taken: _Optional[_Iterable[_Union[Cards, _Mapping]]] = ..., names: _Optional[_Iterable[str]] = ..., seed: _Optional[int] = ...) -> None: ...

class Request(_message.Message):
    __slots__ = ("request_id", "game_id", "decision", "deadline_ms", "view", "bank_ms")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    game_id: str
    decision: Decision
    deadline_ms: int
    view: View
    bank_ms: int
    def __init__(self, request_id: _Optional[int] = ..., game_id: _Optional[str] = ..., decision: _Optional[_Union[Decision, str]] = ..., deadline_ms: _Optional[int] = ..., view: _Optional[_Union[View, _Mapping]] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class GameStarted(_message.Message):
    __slots__ = ("game_id", "seat", "settings", "players")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    settings: Settings
    players: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., settings: _Optional[_Union[Settings, _Mapping]] = ..., players: _Optional[_Iterable[str]] = ...) -> None: ...

class TurnRevealed(_message.Message):
    __slots__ = ("game_id", "round", "turn", "cards", "placements")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    round: int
    turn: int
    cards: _containers.RepeatedScalarFieldContainer[int]
    placements: _containers.RepeatedCompositeFieldContainer[Placement]
    def __init__(self, game_id: _Optional[str] = ..., round: _Optional[int] = ..., turn: _Optional[int] = ..., cards: _Optional[_Iterable[int]] = ..., placements: _Optional[_Iterable[_Union[Placement, _Mapping]]] = ...) -> None: ...

class Placement(_message.Message):
    __slots__ = ("seat", "card", "row", "taken", "chosen")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    CHOSEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: int
    row: int
    taken: _containers.RepeatedScalarFieldContainer[int]
    chosen: bool
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[int] = ..., row: _Optional[int] = ..., taken: _Optional[_Iterable[int]] = ..., chosen: _Optional[bool] = ...) -> None: ...

class RoundEnded(_message.Message):
    __slots__ = ("game_id", "round", "penalties", "totals")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    round: int
    penalties: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, game_id: _Optional[str] = ..., round: _Optional[int] = ..., penalties: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ...) -> None: ...

class GameEnded(_message.Message):
    __slots__ = ("game_id", "totals", "winners")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    totals: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, game_id: _Optional[str] = ..., totals: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ...) -> None: ...

class FaultNotice(_message.Message):
    __slots__ = ("game_id", "request_id", "kind", "message")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    request_id: int
    kind: FaultKind
    message: str
    def __init__(self, game_id: _Optional[str] = ..., request_id: _Optional[int] = ..., kind: _Optional[_Union[FaultKind, str]] = ..., message: _Optional[str] = ...) -> None: ...
