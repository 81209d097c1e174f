"""The wire protocol: the generated messages and their conversions to and from the rules' types.

`pb` (messages) and `rpc` (service stub and servicer) are the generated modules from
`proto/sixnimmt/v1/arena.proto`; other layers import them from here, never from `arena._proto`.
Regenerate them with `make proto`.
"""

from arena.protocol.convert import (
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
from arena.protocol.environment import ADDRESS_VARIABLE, TLS_CA_VARIABLE, TOKEN_VARIABLE
from arena.protocol.generated import SERVICE_NAME, pb, rpc

__all__ = [
    "ADDRESS_VARIABLE",
    "ANSWER_CHOICES",
    "DECISIONS",
    "FAULT_KINDS",
    "PROTOCOL_VERSION",
    "SERVICE_NAME",
    "TLS_CA_VARIABLE",
    "TOKEN_VARIABLE",
    "VARIANTS",
    "ProtocolError",
    "answer_from_proto",
    "answer_to_proto",
    "decision_from_proto",
    "decision_to_proto",
    "fault_kind_from_proto",
    "fault_kind_to_proto",
    "fault_to_proto",
    "game_ended_to_proto",
    "game_started_to_proto",
    "pb",
    "request_message",
    "round_ended_to_proto",
    "rpc",
    "settings_from_proto",
    "settings_to_proto",
    "turn_from_proto",
    "turn_to_proto",
    "variant_from_proto",
    "variant_to_proto",
    "view_from_proto",
    "view_to_proto",
]
