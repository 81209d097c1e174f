"""A new version vetted before it plays anyone: built once, sealed, put through check-bot, and
one validation set played against copies of itself (as Kaggle's simulations do), so that a bot
that cannot build, connect, answer in time or finish a game never costs another author a set.

`vet` runs the three steps in order, each as the rest of the arena runs it, so that what passes
here plays in a set:

1. **Build**: the unpacked upload copied into the version's folder (`submissions.copy_of`) and
   built there by `submissions.build`, sealed as `enter_submissions` seals builds (a uid of its
   own, its copy the one folder it may write, no network; `Builder.of`). The copy is kept,
   marked built: it is what the version's sets run, never built again.
2. **check-bot** (`arena.server.checkbot`), on the built copy, sealed as the ladder's bots are,
   at the ladder's deadlines and start-up timeout (its time bank check-bot's own, unless the
   ladder gives one: see `check_options`).
3. **Validation sets** (`validation_games` of them, one by default): the version entered under
   `players` names (`NAME.1`, `NAME.2`, ...) at one table, one deal played in every seat
   rotation with the ladder's rules, through `match.play_set`, the very code a ladder's sets
   are played by. Each must finish with no fault. A copy's process plays several rotations
   (`reuse_processes`): what it could remember of a hand from one rotation to the next helps it
   against nobody but itself, and the set's start-ups, most of its CPU, fall from `players`
   squared to `players`. Its games are played one at a time (`concurrency` 1, whatever the
   serve's): two at once would start a second process per copy, twice the start-ups, taken
   from the CPU the match loop's sets are playing on.

The first step that fails ends the vetting: the version is `error`, and `Vetted` keeps the build
log, check-bot's lines and one line of reason (a person's: the first failed check and what the
bot did, the build's status and the last line it printed, a validation fault). Paths of the
server's disk never appear in a reason or in check-bot's lines, and a reason is at most
`REASON_CAP` characters, whatever the author's command or bot says. A machine that cannot do
what the ladder's settings ask (`sandbox = "on"` without a sandbox) is the organizer's to fix,
not the author's: its MachineError propagates.

The version's folder (`folder`, made by `vet`) holds, for its author and the server:

    build.log      the build's output (also in Vetted.build_log)
    builds/NAME-HASH/  the built copy (Vetted.built)
    check/NAME.log the bot's own output during check-bot
    validation/1/  the first validation set's tournament folder: its games and the bots' logs

Several vettings may run at once (each its own folder); their sealed builds take uids from the
same range, so the server runs one build at a time, or gives each its own `Builder`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from arena.ladder.match import play_set
from arena.ladder.settings import LadderSettings
from arena.server.checkbot import TIME_BANK, check_options
from arena.server.checkbot.checks import check_bot, render
from arena.server.isolation.isolate import isolate
from arena.server.isolation.sandbox import SandboxMode
from arena.server.options import OPTIONS_BY_NAME
from arena.tournament.executor import Venue
from arena.tournament.store import DATABASE, LOGS, ResultStore
from arena.tournament.submissions import (
    BUILD_LOG_CAP,
    BUILD_TIMEOUT,
    BUILT,
    BadSubmission,
    Builder,
    Manifest,
    bot_of,
    build,
    copy_of,
)
from arena.tournament.writer import log_tail

BUILD_LOG = "build.log"
CHECK = "check"
VALIDATION = "validation"
"""Names in a version's folder (see the module's note)."""
REASON_CHARS = 300
"""Characters of a bot's own words (a log line, a fault's message) kept in a reason."""
REASON_CAP = 1000
"""Characters of a whole reason: an author's command or words cannot make it longer."""


@dataclass(frozen=True)
class Vetted:
    """What vetting found: the version's next status and everything its author may read."""

    status: Literal["error", "placement"]
    """`placement` once every step passed (`VersionStatus`'s values)."""
    build_log: str = ""
    """The build's output, as its log holds it (empty without a build step)."""
    check_lines: tuple[str, ...] = ()
    """check-bot's lines, as `arena check-bot` prints them."""
    reason: str | None = None
    """Why it is `error`: one line a person can act on."""
    built: Manifest | None = None
    """The built copy (for `placement`): what the version's sets run (`bot_of(built)`)."""


async def vet(
    manifest: Manifest,
    folder: Path,
    settings: LadderSettings,
    *,
    seed: int = 0,
    venue: Venue | None = None,
) -> Vetted:
    """Build, check and validate the unpacked submission `manifest` in the version's `folder`
    (made if absent; the unpacked upload may lie in it, as `DIR/built/ID/upload`) under the
    ladder's `settings`; the validation sets' deals from `seed` on, played where `venue` says
    (this machine by default)."""
    folder.mkdir(parents=True, exist_ok=True)
    sandbox = SandboxMode(settings.sandbox)
    log = folder / BUILD_LOG
    try:
        built = await _built(manifest, folder, log, sandbox)
    except BadSubmission as error:
        return Vetted("error", _read(log), reason=_reason(f"{error}{_last(log)}", folder))
    try:
        bot = bot_of(built)
    except BadSubmission as error:
        reason = _reason(f"its command cannot start: {error}", built.folder)
        return Vetted("error", _read(log), reason=reason)
    template = settings.tournament_config(folder / VALIDATION, [bot], seed)
    given = {name: getattr(template, name) for name in OPTIONS_BY_NAME if name != "time_bank"}
    options = check_options(**given, time_bank=settings.time_bank or TIME_BANK)
    checks = await check_bot(bot, folder / CHECK, options)
    lines = tuple(
        _relative(line, built.folder, folder)
        for check in checks
        for line in render(check).splitlines()
    )
    failed = [check for check in checks if not check.passed]
    if failed:
        first = failed[0]
        what = f": got {first.got[:REASON_CHARS]}" if first.got else ""
        reason = (
            f"check-bot: {len(checks) - len(failed)} of {len(checks)} checks passed; the first "
            f"that did not, {first.name!r}{what}"
        )
        return Vetted("error", _read(log), lines, _reason(reason, built.folder, folder))
    seats = [replace(bot, name=f"{bot.name}.{n + 1}") for n in range(settings.players)]
    # copies of itself, a process each for the whole set: see the module's note
    reusing = replace(template, reuse_processes=True, concurrency=1)
    for number in range(1, settings.validation_games + 1):
        validation = folder / VALIDATION / str(number)
        result = await play_set(reusing, validation, seats, seed + number - 1, venue=venue)
        if result is None:
            return Vetted(
                "error",
                _read(log),
                lines,
                "its validation set against copies of itself did not finish: submit it again",
            )
        if sum(result.faults):
            reason = _validation_fault(validation, sum(result.faults))
            return Vetted("error", _read(log), lines, _reason(reason, folder))
    return Vetted("placement", _read(log), lines, built=built)


async def _built(manifest: Manifest, folder: Path, log: Path, sandbox: SandboxMode) -> Manifest:
    """The submission's copy in `folder`, built sealed (if it says how) and marked built;
    BadSubmission if the build fails."""
    copy, _, unbuilt = copy_of(manifest, folder / "builds")
    if unbuilt:
        async with isolate(sandbox, needed=True) as isolation:
            await build(copy, log, BUILD_TIMEOUT, Builder.of(isolation, 1))
        (copy.folder / BUILT).write_text("built\n")
    return copy


def _validation_fault(validation: Path, faults: int) -> str:
    """The reason a validation set with faults gives: how many, and the first one's message."""
    with ResultStore.reader(validation / DATABASE) as store:
        for outcome in store.results():
            for fault in outcome.faults:
                seat = outcome.spec.seats[fault.seat]
                where = f"round {fault.round + 1}, turn {fault.turn + 1}"
                said = _last(validation / LOGS / f"{seat}.log")
                return (
                    f"its validation set against copies of itself had {faults} fault(s), the "
                    f"first ({fault.kind}) in {where}: {fault.message[:REASON_CHARS]}{said}"
                )
    return f"its validation set against copies of itself had {faults} fault(s)"


def _read(log: Path) -> str:
    """A build log's text ("" without one), at most what the log keeps."""
    try:
        with log.open("rb") as file:
            return file.read(BUILD_LOG_CAP + 4096).decode(errors="replace")
    except FileNotFoundError:
        return ""


def _last(log: Path) -> str:
    """The last line a build or bot wrote itself (the arena's notes aside), for a reason."""
    lines = [line for line in log_tail(log, 40) if not line.startswith("[arena")]
    return f"; its log ends: {lines[-1][:REASON_CHARS]!r}" if lines else ""


def _reason(message: str, *folders: Path) -> str:
    """A reason as its author reads it: on one line (a bot's words may hold line breaks),
    without the server's paths (`(see /srv/ladder/...)`, the `folders`), at most
    REASON_CAP characters (a command or a bot's words may be of any length)."""
    message = " ".join(_relative(re.sub(r"\s*\(see [^)]*\)", "", message), *folders).split())
    return message if len(message) <= REASON_CAP else message[: REASON_CAP - 1] + "…"


def _relative(text: str, *folders: Path) -> str:
    """`text` with the `folders` (the built copy's, then the version's) left out of every path
    in it, in turn: an author reads where a file lies in their own upload, or in their version's
    folder, never where the server keeps it."""
    for folder in folders:
        text = text.replace(str(folder.resolve()) + "/", "").replace(str(folder) + "/", "")
    return text
