"""A game played under another referee, and its record brought home: where a game is played by
another arena (a cluster's worker, the arena process of one core), that arena's referees count
its faults as it goes, and the organizer's referees, the tournament's, judge its outcome.

Both directions in one place: before a game, the organizer's record of each seat's bot goes out
(`conducts`) and is taken up there (`take`); after it, the game's faults are charged here and
the other arena's disqualifications taken (`judge`), so that a bot put out anywhere is out
everywhere from its next game, and `--max-faults` counts over the whole tournament.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from arena.players import Conduct
from arena.server.lobby import Bot
from arena.tournament.outcome import GameOutcome


def conducts(bots: Mapping[str, Bot], seats: Sequence[str]) -> dict[str, Conduct]:
    """The record of each seat's bot, by name: what another arena's referees play under."""
    return {name: bots[name].referee.conduct() for name in seats}


def take(bots: Mapping[str, Bot], state: Mapping[str, Conduct], *, note: bool = True) -> None:
    """Play on under the organizer's record (`state`, by name). A bot it puts out here is said
    to be out in its log when `note` (a log of this arena's own; where the organizer writes the
    same log, it said so itself)."""
    for name, conduct in state.items():
        put_out = bots[name].referee.take(conduct)
        if note:
            bots[name].note_out(put_out)


def judge(
    bots: Mapping[str, Bot],
    outcome: GameOutcome,
    there: Mapping[str, Conduct],
    sent: Mapping[str, Conduct] | None = None,
    *,
    shared_logs: bool = False,
) -> GameOutcome:
    """The outcome as the tournament counts it: its faults and failed starts charged to the
    organizer's referees (`bots`; `sent`, by name, the record that went out with the game, so
    that only the failed starts since count), the other arena's disqualifications by the
    game's end (`there`, by name) taken, and the bots disqualified by its end as they say.

    A bot put out is said to be in its log. With `shared_logs` (the other arena writes the same
    log files, and notes what its own referee saw) only what the organizer alone saw is noted,
    and the note is stored with the game's lines, as a game played here stores it."""
    seats = outcome.spec.seats
    logs = outcome.logs
    for name in seats:
        bot = bots[name]
        conduct = there.get(name, Conduct())
        before = sent.get(name) if sent is not None else None
        put_out = bot.referee.judge(outcome.faults_of(name), conduct, before)
        if shared_logs:
            bot.note_out(put_out and not conduct.disqualified)
            logs += tuple(bot.lines.take_loose())
        else:
            bot.note_out(put_out)
    disqualified = tuple(name for name in seats if bots[name].referee.disqualified)
    return replace(outcome, disqualified=disqualified, logs=logs)
