"""One clock per seat per game: what a bot's next decision may take, and what each one took.

Every rule of a decision's time is here, the way fastchess keeps a time control in one object:

- **The allowance.** The first decision a game asks of a bot gets the first deadline (to warm
  up), every later one the deadline; beyond it, whatever is left of the seat's time bank
  (`Clock.allowance`). Both go out in each request (`Request.deadline_ms`, `Request.bank_ms`).
- **The bank.** An answer that comes past its deadline draws the excess from the bank; one that
  does not come within deadline and bank times out and spends the bank whole (`Clock.update`).
  The bank never grows and is never negative.
- **The measurement** is the connection's alone (`Connection.answer_timed`), by the rules below:
  a decision's time runs from when its request was written to the bot's stream to when its
  answer was read; when the deadline comes, answers that have arrived are read first; and only
  the arena's own stall at the deadline is forgiven (a timer the arena's loop ran late puts the
  deadline off by as much). The constants of those rules are here, beside the rest.

The clock knows no process, stream or event loop: it is judged by its unit tests alone
(tests/server/test_clock.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

SETTLE_TURNS = 3
"""Turns of the event loop given, once a deadline has passed, to answers that have arrived but
are not read yet, before the request times out."""
SETTLE = 0.001
"""Then seconds given to gRPC's own threads to hand over what they have read."""
STALL = 0.003
"""Seconds late a deadline's timer may fire before the arena's loop counts as stalled at it."""
WRITE_SLACK = 0.005
"""Seconds a request's write may take and still count from when it began: gRPC tells of a
write only once its send is done, when the bot may already be at work on it. A write
that takes longer was held up (by messages the bot has not read yet, or by the arena itself),
and the request's time starts when it is done."""
UNWRITTEN_GRACE = 1.0
"""Of its own allowance (deadline and bank), how long a request may wait to be written to the
stream (behind messages the bot has not read yet) before its deadline starts to run all the
same: a bot that stops reading its stream must not hold up its game for ever."""

TIMED_OUT = math.inf
"""What a decision took that got no answer within its allowance (`Clock.update`)."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A game's limits on each seat's decisions, from the tournament's options (`--first-deadline`,
    `--deadline`, `--time-bank`): the same for every seat."""

    first_deadline: float
    """Seconds for the first decision a game asks of a bot."""
    deadline: float
    """Seconds for every later decision."""
    bank: float = 0.0
    """Seconds per game a bot may run past its deadlines, all told."""


@dataclass(frozen=True, slots=True)
class Allowance:
    """What one decision may take: its deadline, and past it the bank left."""

    deadline: float
    bank: float

    @property
    def limit(self) -> float:
        """Seconds after which the decision times out."""
        return self.deadline + self.bank


@dataclass(frozen=True, slots=True)
class Spent:
    """What one decision took, as the clock judged it: what its `DecisionTime` records."""

    seconds: float
    """As measured; the whole allowance for a decision that timed out."""
    bank: float
    """Seconds of the bank it drew on."""


@dataclass
class Clock:
    """One seat's clock in one game: its allowance for the next decision, updated after each."""

    control: TimeControl
    bank: float = field(init=False)
    """Seconds left of the seat's time bank in this game."""
    asked: int = 0
    """Decisions asked of the seat so far in this game (the first gets the first deadline)."""

    def __post_init__(self) -> None:
        self.bank = max(0.0, self.control.bank)

    def allowance(self) -> Allowance:
        """What the next decision may take."""
        control = self.control
        deadline = control.deadline if self.asked else control.first_deadline
        return Allowance(deadline, self.bank)

    def update(self, took: float | None) -> Spent | None:
        """The decision `allowance` allowed has ended: it took `took` seconds (as the connection
        measured it; `TIMED_OUT` when no answer came within its allowance), or it was not timed
        (None: a malformed answer, a crash), which uses up the first deadline and nothing else.

        Draws what it ran past its deadline from the bank (the whole bank when it timed out);
        returns what it spent, None for a decision not timed."""
        allowance = self.allowance()
        self.asked += 1
        if took is None:
            return None
        if took == TIMED_OUT:  # all of its allowance: the bank is spent
            self.bank = 0.0
            return Spent(allowance.limit, allowance.bank)
        drawn = min(allowance.bank, max(0.0, took - allowance.deadline))
        self.bank = allowance.bank - drawn
        return Spent(took, drawn)
