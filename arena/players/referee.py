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
  DISQUALIFIED notice), and from then on it is never asked again: the fallback plays its seats;
- outside a game, the referee decides too: two failed starts in a row put a bot out
  (`failed_start`), and so does a crash when restarts are off (`crashed`); a resumed tournament
  carries on its earlier runs' faults and disqualifications (`resume`); and a cluster's worker
  plays under the organizer's referee by taking its `Conduct` before each game, the organizer
  judging the game's faults and the worker's conduct after it (`take`, `judge`).

No other module assigns a referee's fields (`tests/players/test_referee.py` reads the source to
check it): they ask it, and it says whether that put the bot out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from arena.players.base import DecisionTime, Fault, FaultKind, Player, PlayerFault
from arena.players.strategies import fallback
from arena.rules import Decision, IllegalDecisionError, View, check_answer

ABSENT = frozenset({FaultKind.CRASHED, FaultKind.NOT_CONNECTED})
"""Faults after which a player cannot answer again in the same game."""


FAILED_STARTS = 2
"""Failed starts in a row that put a bot out, so that it cannot stall every game."""


@dataclass(frozen=True)
class Conduct:
    """What a referee's record is worth to another referee of the same bot (a cluster's worker
    or a core host plays under the organizer's): its faults so far, why it is out (empty while
    it plays), and its failed starts in a row."""

    faults: int = 0
    disqualified: str = ""
    failed_starts: int = 0
    """So that `FAILED_STARTS` counts over every arena that starts the bot, not on each."""


@dataclass
class Referee:
    """One bot's conduct across a tournament: its faults, and whether it is still asked."""

    name: str = ""
    """The bot's name, for the messages that say it is out."""
    max_faults: int = 0
    """Faults after which the bot is disqualified; 0 for never."""
    restarts: bool = True
    """Whether a bot that crashed is started again (`--no-restart` puts it out instead)."""
    faults: int = 0
    """Faults committed so far, earlier runs of a resumed tournament included."""
    disqualified: str = ""
    """Why the bot is out of the tournament; empty while it plays."""
    last_straw: Fault | None = None
    """The fault that reached the limit, when that put the bot out: the very object recorded in
    its game's faults, so that the game in which it happened can be told from others at once."""
    failed_starts: int = 0
    """Starts in a row that failed (the process did not start, or did not connect in time)."""

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

    # -- between games --

    def started(self) -> None:
        """The bot's process started and connected: its failed starts in a row end."""
        self.failed_starts = 0

    def failed_start(self) -> bool:
        """The bot's process could not start, or did not connect in time; True if that put it
        out (`FAILED_STARTS` in a row)."""
        self.failed_starts += 1
        if self.failed_starts < FAILED_STARTS:
            return False
        return self.disqualify("is disqualified: it failed to start twice in a row")

    def crashed(self) -> bool:
        """The bot's process died (its CRASHED fault is charged in its game); True if that put
        it out, as it does when restarts are off."""
        if self.restarts:
            return False
        return self.disqualify("crashed and is not restarted: the fallback plays for it")

    def resume(self, faults: int, disqualified: str = "") -> None:
        """Carry on the record of a tournament's earlier runs: the faults they stored, and the
        disqualification on record (if any)."""
        self.faults += faults
        if disqualified:
            self.disqualify(disqualified)

    def put_out_in(self, faults: Sequence[Fault], seat: int) -> bool:
        """Whether the game of `faults`, in which the bot sat at `seat`, is the one that put it
        out: the game that holds the fault that reached the limit (an equal one, for an outcome
        sent over the wire), or, put out otherwise (two failed starts), one in which it faulted
        (its failed start's not-connected fault). With several games at once, a bot put out in
        one game shows as out at the end of every other game it sits at too."""
        own = [fault for fault in faults if fault.seat == seat]  # another seat's may be equal
        if self.last_straw is not None:
            return self.last_straw in own
        return bool(own)

    # -- across a cluster --

    def conduct(self) -> Conduct:
        """The record to send to another referee of this bot (a worker's, before a game)."""
        return Conduct(self.faults, self.disqualified, self.failed_starts)

    def take(self, conduct: Conduct) -> bool:
        """Play on under another referee's record (on a worker, the organizer's): the larger
        fault count, its failed starts in a row, its disqualification; True if that put the
        bot out here."""
        self.faults = max(self.faults, conduct.faults)
        self.failed_starts = max(self.failed_starts, conduct.failed_starts)
        return bool(conduct.disqualified) and self.disqualify(conduct.disqualified)

    def judge(self, faults: Sequence[Fault], conduct: Conduct, sent: Conduct | None = None) -> bool:
        """A game played under another referee (a worker's), which was `sent` this referee's
        record with it: charge its faults of this bot here; count its failed starts there since
        (none once it started there: the run of them ends), so that two arenas failing at once
        make two in a row, as one arena's would; then take its disqualification by the game's
        end (failed starts, a crash); True if any of these put the bot out."""
        out = False
        for fault in faults:
            out = self.charge(fault) is not None or out
        failed = conduct.failed_starts - (sent.failed_starts if sent is not None else 0)
        if not conduct.failed_starts:
            self.failed_starts = 0
        elif failed > 0:
            self.failed_starts += failed
            if self.failed_starts >= FAILED_STARTS:
                out = self.disqualify("is disqualified: it failed to start twice in a row") or out
        if conduct.disqualified:
            out = self.disqualify(conduct.disqualified) or out
        return out


@dataclass
class Seat:
    """One player at one seat of one game, under its bot's referee."""

    player: Player | None
    """Who is asked and told of its faults; None for a strategy asked directly (`play_local`)."""
    referee: Referee
    faults: list[Fault]
    """The game's fault list, shared by its seats: every fault in the order it happened."""
    times: list[DecisionTime] = field(default_factory=list)
    """The game's decision times, shared by its seats: what each player measured of each
    decision it was asked (`Player.timed`), in the order they ended."""
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
        if (timed := self.player.timed()) is not None:
            self.times.append(timed)
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
