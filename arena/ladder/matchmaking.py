"""Which versions play the next set: Halite III's matchmaking (`choose_table`), and uniformly
random tables (`uniform_table`), the baseline the bench measures it against.

Halite III's coordinator (HaliteChallenge/Halite-III, `apiserver/apiserver/coordinator/
matchmaking.py`) picks a seed player, then opponents near it; the ladder does the same with one
set for one game, and these numbers:

- The seed: a draw r of [0, 1). r >= 0.75 (25%): a version still in placement (fewer than
  `placement_sets` sets), at random among the `IDLE_POOL` (15) that have waited longest, never
  played first; if none is in placement, the next rule. r >= 0.10 (65%): a version drawn with
  weight 1/(sets + 1), so one with half the sets is twice as likely (Halite orders by that
  weight times a random factor and takes one of the best 20 at random: with a small field that
  is every version alike, so the ladder draws by the weight itself, as issue 24 gives it).
  Else (10%): the version that has waited longest, never played first.
- Its opponents: the `window` versions nearest its mu, where `window = int(5 / (0.01 + u) **
  0.65)` for u of [0, 1) (4 at the least, 7 at the median, 20 one time in ten, up to 99: the
  randomness), in random order; the first of each other author's are seated. If the window
  holds too few authors, the nearest of the rest fill the table.
- Never two versions of one author at a table (Halite's rule), so no author's bots can help each
  other; and one version per bot: a bot's newest candidate (its highest version id) stands for
  it, the older ones wait (a new version takes its bot's place).

Candidates are what the store says can play (`versions.PLAYABLE`); a table is the version ids,
the seed first. None when no table can be made: fewer authors than seats. Every draw comes from
the `random.Random` given, so a seeded one gives the same tables every time (the bench, tests).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.ladder.errors import LadderError
from arena.ladder.rating import Rating
from arena.ladder.settings import LadderSettings
from arena.rules import MAX_PLAYERS, MIN_PLAYERS

PLACEMENT_SHARE = 0.25
"""The share of seeds drawn among versions still in placement."""
IDLE_SHARE = 0.10
"""The share of seeds that are the version that has waited longest."""
IDLE_POOL = 15
"""How many of the longest waiting versions in placement a placement seed is drawn from."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """A version that may play: what matchmaking weighs of it."""

    version: int
    """Its id."""
    bot: str
    author: str
    rating: Rating
    sets: int
    """Sets it has played."""
    last_played: float | None
    """When its last set was played (seconds since the epoch), None if never."""


def playable(candidates: Sequence[Candidate]) -> list[Candidate]:
    """One candidate per bot, its newest (highest version id), in version order. LadderError for
    a version given twice, or one version of two bots or authors."""
    seen: dict[int, Candidate] = {}
    for each in candidates:
        if each.version in seen:
            raise LadderError(f"version {each.version} is a candidate twice: give each once")
        seen[each.version] = each
    newest: dict[str, Candidate] = {}
    for each in sorted(seen.values(), key=lambda c: c.version):
        newest[each.bot] = each
    return sorted(newest.values(), key=lambda c: c.version)


def _seats(players: int) -> int:
    """`players`, checked: a table the rules can play (LadderError otherwise)."""
    if not (isinstance(players, int) and not isinstance(players, bool)) or not (
        MIN_PLAYERS <= players <= MAX_PLAYERS
    ):
        raise LadderError(f"a table has {MIN_PLAYERS} to {MAX_PLAYERS} seats, not {players!r}")
    return players


def _waiting(candidate: Candidate) -> tuple[bool, float, int]:
    """Longest waiting first: never played, then the oldest last set; ties by version id."""
    played = candidate.last_played
    return (played is not None, played or 0.0, candidate.version)


def choose_seed(
    candidates: Sequence[Candidate], draw: float, rng: random.Random, placement_sets: int
) -> Candidate:
    """The seed of the next table by Halite's three rules (the module's note), `draw` of [0, 1)
    choosing the rule; `candidates` are `playable`'s, and at least one."""
    if draw >= 1 - PLACEMENT_SHARE:
        placing = sorted((c for c in candidates if c.sets < placement_sets), key=_waiting)
        if placing:
            return rng.choice(placing[:IDLE_POOL])
    if draw >= IDLE_SHARE:
        weights = [1 / (c.sets + 1) for c in candidates]
        return rng.choices(list(candidates), weights=weights)[0]
    return min(candidates, key=_waiting)


def window(rng: random.Random) -> int:
    """How many versions nearest the seed's mu its opponents are drawn from (Halite's)."""
    return int(5.0 / (0.01 + rng.random()) ** 0.65)


def choose_table(
    candidates: Sequence[Candidate],
    players: int,
    rng: random.Random,
    settings: LadderSettings,
) -> tuple[int, ...] | None:
    """The next table's version ids, the seed first, by Halite's matchmaking (the module's
    note); None when fewer authors than `players` have a version to play."""
    field = playable(candidates)
    if len({c.author for c in field}) < _seats(players):
        return None
    seed = choose_seed(field, rng.random(), rng, settings.placement_sets)
    others = sorted(
        (c for c in field if c.author != seed.author),
        key=lambda c: (abs(c.rating.mu - seed.rating.mu), c.version),
    )
    near = others[: window(rng)]
    rng.shuffle(near)
    return _seat(seed, [*near, *others[len(near) :]], players)


def _seat(first: Candidate, rest: Sequence[Candidate], players: int) -> tuple[int, ...]:
    """`first`, then the first candidate of each other author in `rest`, up to `players`."""
    table, authors = [first.version], {first.author}
    for each in rest:
        if len(table) == players:
            break
        if each.author not in authors:
            table.append(each.version)
            authors.add(each.author)
    assert len(table) == players, "enough authors were counted before seating"
    return tuple(table)


def uniform_table(
    candidates: Sequence[Candidate], players: int, rng: random.Random
) -> tuple[int, ...] | None:
    """A table of `players` authors drawn alike, each seated with one of its bots drawn alike
    (each bot its newest version): the baseline that ignores ratings, sets and waiting. None
    when fewer authors than `players` have a version to play."""
    field = playable(candidates)
    authors = sorted({c.author for c in field})
    if len(authors) < _seats(players):
        return None
    chosen = rng.sample(authors, players)
    return tuple(rng.choice([c for c in field if c.author == a]).version for a in chosen)
