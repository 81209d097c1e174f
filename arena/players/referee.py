"""What a fault costs: the one place that decides when the fallback plays, what is recorded and
when a bot is out of the tournament.

A `Referee` follows one bot across a tournament (its faults, its disqualification); a `Seat` is
that bot at one seat of one game, asked through its `Player`. The player only answers or raises a
`PlayerFault`; everything that follows from a bad answer happens here, and nowhere else:

- an answer the rules forbid is an ILLEGAL fault; every fault is recorded with where it happened,
  told to the player, and the fallback's answer is played instead;
- a player that crashed or never connected faults once in a game, then the fallback plays its seat
  quietly for the rest of that game;
- a decision that timed out is settled by the fallback whole: when the fallback's card is too low
  for every row, the fallback chooses the row too, and the player (most likely still at work on
  the card) is not asked for it. A late answer costs one fault, not one for the card and another
  for the row;
- every fault counts toward `max_faults`; at the limit the bot is disqualified (told so, with a
  DISQUALIFIED notice), and from then on it is never asked again: the fallback plays its seats.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from arena.players.base import Fault, FaultKind, Player, PlayerFault
from arena.players.strategies import fallback
from arena.rules import Decision, IllegalDecisionError, View, check_answer

ABSENT = frozenset({FaultKind.CRASHED, FaultKind.NOT_CONNECTED})
"""Faults after which a player cannot answer again in the same game."""


@dataclass
class Referee:
    """One bot's conduct across a tournament: its faults, and whether it is still asked."""

    name: str = ""
    """The bot's name, for the messages that say it is out."""
    max_faults: int = 0
    """Faults after which the bot is disqualified; 0 for never."""
    faults: int = 0
    """Faults committed so far, earlier runs of a resumed tournament included."""
    disqualified: str = ""
    """Why the bot is out of the tournament; empty while it plays."""
    last_straw: Fault | None = None
    """The fault that reached the limit, when that put the bot out: the very object recorded in
    its game's faults, so that the game in which it happened can be told from others at once."""

    def disqualify(self, why: str) -> bool:
        """Put the bot out for `why` (the first reason stands); True if it was still playing."""
        if self.disqualified:
            return False
        self.disqualified = why
        return True

    def charge(self, fault: Fault) -> Fault | None:
        """Count a fault; the DISQUALIFIED notice if it was the one that reached the limit."""
        self.faults += 1
        limit = self.max_faults
        if not limit or self.faults < limit:
            return None
        why = f"is disqualified after {self.faults} faults: the fallback plays for it"
        if not self.disqualify(why):
            return None
        self.last_straw = fault
        return replace(fault, kind=FaultKind.DISQUALIFIED, message=f"{self.name} {why}")


@dataclass
class Seat:
    """One player at one seat of one game, under its bot's referee."""

    player: Player | None
    """Who is asked and told of its faults; None for a strategy asked directly (`play_local`)."""
    referee: Referee
    faults: list[Fault]
    """The game's fault list, shared by its seats: every fault in the order it happened."""
    out: bool = field(default=False)
    """The player crashed or never connected: the fallback plays this seat quietly."""
    timed_out: tuple[int, int] | None = field(default=None)
    """The round and turn of the latest card decision that timed out: the fallback settles that
    turn whole (`fallback_settles`)."""

    async def decide(self, decision: Decision, view: View) -> int:
        """The answer played for this seat: the player's if it gave a legal one in time, the
        fallback's otherwise (with the fault recorded)."""
        if self.out or self.player is None or self.fallback_settles(decision, view):
            return fallback(decision, view)
        if (gone := self.player.absence()) is not None:
            return self.settle(decision, view, gone)
        if self.referee.disqualified:
            return fallback(decision, view)
        try:
            answer: int | PlayerFault = await self.player.decide(decision, view)
        except PlayerFault as fault:
            answer = fault
        return self.settle(decision, view, answer)

    def fallback_settles(self, decision: Decision, view: View) -> bool:
        """Whether the fallback answers without the player being asked, and without a fault: the
        row of a turn whose card decision timed out, the fallback's card being too low for every
        row. The player was charged one fault for the card; asking it for the row while it is
        still at work on the card would only time out again."""
        return decision is Decision.ROW and self.timed_out == (view.round, view.turn)

    def settle(self, decision: Decision, view: View, answer: object) -> int:
        """The answer to play, given what the player answered (or the fault it raised)."""
        if isinstance(answer, PlayerFault):
            if answer.kind in ABSENT:
                self.out = True
            elif answer.kind is FaultKind.TIMEOUT and decision is Decision.CARD:
                self.timed_out = (view.round, view.turn)
            return self._fault(decision, view, answer.kind, answer.message)
        try:
            return check_answer(decision, view, answer)
        except IllegalDecisionError as error:
            return self._fault(decision, view, FaultKind.ILLEGAL, str(error))

    def _fault(self, decision: Decision, view: View, kind: FaultKind, message: str) -> int:
        fault = Fault(view.seat, kind, decision, view.round, view.turn, message)
        self.faults.append(fault)
        notice = self.referee.charge(fault)
        if self.player is not None:
            self.player.faulted(fault)
            if notice is not None:
                self.player.faulted(notice)
        return fallback(decision, view)
