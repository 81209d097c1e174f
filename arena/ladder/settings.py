"""A ladder's settings, declared once: `LadderSettings`, read from and written to `ladder.toml`.

Every setting is a field made with `declare` (`arena.server.declared`): its type, default, help
and bound, so a value is checked by the one rule every other setting of the arena keeps to, and a
refusal names the TOML key, the value and what it takes (`deadline is 0, not a number of seconds
above 0 ...`). `SETTINGS` reads the declarations back; `read_settings` and `write_settings` and
the docs' table come from them.

The file holds top-level keys only (no `[ladder]` table: it is the ladder's own file, and has
nothing else to hold); a key left out keeps its default, an unknown key is refused naming the
known ones. `write_settings` writes every key, each under a comment of what it does and takes, so
that `arena ladder init`'s file is the settings' reference too; `max_rounds`, whose default is
none (TOML has no null), is written commented out.

`sandbox` is text of the form "auto", "on" or "off" rather than `SandboxMode` itself: that enum
lives in a module that imports asyncio, and this module is pure (`arena.ladder`). The one bridge
to the tournament layer, `tournament_config`, turns it into the enum; it imports the tournament's
configuration when called, never when this module is imported, and lives here so that a new
setting and the place it reaches a set's games change together.
"""

from __future__ import annotations

import os
import tempfile
import textwrap
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.ladder.errors import LadderError
from arena.rules import DEFAULT_END_SCORE, InvalidSettingsError, Settings, Variant
from arena.server.declared import (
    END_SCORE,
    PLAYERS,
    ROUNDS,
    Declared,
    Form,
    OptionError,
    Range,
    declarations,
    declare,
    read_toml,
    seconds,
    whole,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from arena.server.lobby import BotSpec
    from arena.tournament.config import TournamentConfig

SETTINGS_FILE = "ladder.toml"
"""The settings' file name in a ladder's folder."""
SANDBOX_MODES = ("auto", "on", "off")
"""What `sandbox` takes: `arena.server.isolation.sandbox.SandboxMode`'s values (a test keeps the
two the same)."""
SANDBOX = Form("one of " + ", ".join(SANDBOX_MODES), lambda value: value in SANDBOX_MODES)
DEFAULT_TAU = 25.0 / 300.0
"""openskill's own default tau (its mu's default, 25, over 300): 0.0833..."""


@dataclass(frozen=True)
class LadderSettings:
    """How a ladder plays, rates and takes submissions; every field a declared setting (see the
    module's note), checked where it comes in (`read_settings`, or `check`)."""

    players: int = field(default=4, metadata=declare("Seats at every table.", bound=PLAYERS))
    variant: Variant = field(
        default=Variant.STANDARD, metadata=declare("How each round's cards are set up.")
    )
    end_score: int = field(
        default=DEFAULT_END_SCORE, metadata=declare("Bullheads that end a game.", bound=END_SCORE)
    )
    max_rounds: int | None = field(
        default=None,
        metadata=declare("Cap on rounds per game (tests and demos use 1).", bound=ROUNDS),
    )
    deadline: float = field(
        default=1.0, metadata=declare("Seconds a bot has for each decision.", bound=seconds())
    )
    first_deadline: float = field(
        default=5.0,
        metadata=declare(
            "Seconds for a bot's first decision of each game, while it may still be warming up "
            "(at least the deadline).",
            bound=seconds(),
        ),
    )
    time_bank: float = field(
        default=0.0,
        metadata=declare(
            "Seconds each bot has per game beyond its deadlines; 0 for none.",
            bound=seconds(0, above=False),
        ),
    )
    startup_timeout: float = field(
        default=10.0,
        metadata=declare("Seconds a bot has to connect after it is started.", bound=seconds()),
    )
    sandbox: str = field(
        default="auto",
        metadata=declare(
            "Seal every bot process and build (bubblewrap): on, off, or auto (where the machine "
            "can). A ladder runs strangers' code: off only for a private one.",
            bound=SANDBOX,
        ),
    )
    submissions_per_day: int = field(
        default=5,
        metadata=declare(
            "Versions an author may upload in 24 hours, all bots together.",
            bound=whole(1, 1000, unit="versions"),
        ),
    )
    active_per_author: int = field(
        default=2,
        metadata=declare(
            "Bots of one author in play at once (each with its newest playable version).",
            bound=whole(1, 100, unit="bots"),
        ),
    )
    upload_cap_mb: int = field(
        default=20,
        metadata=declare(
            "Largest upload, and the most its archive unpacks to, in MiB.",
            bound=whole(1, 1024, unit="MiB"),
        ),
    )
    placement_sets: int = field(
        default=10,
        metadata=declare(
            "Sets a new version plays in placement: a quarter of the tables are seeded with a "
            "version that has played fewer.",
            bound=whole(0, 100_000, unit="sets"),
        ),
    )
    tau: float = field(
        default=DEFAULT_TAU,
        metadata=declare(
            "openskill's tau: how much a rating's sigma grows before each set, so that a "
            "rating keeps moving; 0 for never.",
            shown="0.0833 (openskill's)",
            bound=Range(0, 25 / 3),
        ),
    )
    bench_window: int = field(
        default=10,
        metadata=declare(
            "Recent sets a version's faults are counted over for benching.",
            bound=whole(1, 1000, unit="sets"),
        ),
    )
    bench_fault_share: float = field(
        default=0.5,
        metadata=declare(
            "A version that faulted in more than this share of its recent sets is benched.",
            bound=Range(0, 1, below=True),
        ),
    )
    sets_at_once: int = field(
        default=1,
        metadata=declare("Sets played at once.", bound=whole(1, 1024, unit="sets")),
    )
    validation_games: int = field(
        default=1,
        metadata=declare(
            "Sets (one deal in every seat rotation) a new version plays against copies of "
            "itself before it is placed.",
            bound=whole(1, 100, unit="sets"),
        ),
    )

    def check(self) -> None:
        """Raise LadderError for the first value a setting cannot take (naming its key, the
        value and what it takes), or settings that do not go together."""
        for declared in SETTINGS:
            try:
                declared.check(getattr(self, declared.name))
            except OptionError as error:
                raise LadderError(str(error)) from None
        self._check_together()

    def _check_together(self) -> None:
        """The checks of settings against each other, once each is one of its own values."""
        try:
            self.rules()
        except InvalidSettingsError as error:
            raise LadderError(str(error)) from None
        if self.first_deadline < self.deadline:
            raise LadderError(
                f"first_deadline is {self.first_deadline:g}, less than deadline "
                f"({self.deadline:g}): give first_deadline at least the deadline"
            )

    def rules(self) -> Settings:
        """The game settings every set's games are played by."""
        return Settings(self.players, self.variant, self.end_score, self.max_rounds)

    def tournament_config(
        self, output: Path, bots: Sequence[BotSpec], seed: int
    ) -> TournamentConfig:
        """One set as a tournament: these bots at one table of `players` seats, one deal played
        in every seat rotation (`games = players`), with the ladder's rules, deadlines and
        sandbox, written to `output`. The one bridge to the tournament layer (imported here,
        when called, so this module stays pure); the caller adds the executor's settings."""
        from arena.server.isolation.sandbox import SandboxMode
        from arena.tournament.config import TournamentConfig

        return TournamentConfig(
            bots=tuple(bots),
            players=self.players,
            games=self.players,
            variant=self.variant,
            end_score=self.end_score,
            max_rounds=self.max_rounds,
            seed=seed,
            deadline=self.deadline,
            first_deadline=self.first_deadline,
            time_bank=self.time_bank,
            startup_timeout=self.startup_timeout,
            sandbox=SandboxMode(self.sandbox),
            output=output,
        )


SETTINGS: tuple[Declared, ...] = declarations(LadderSettings)
"""Every setting of a ladder, in the order LadderSettings declares them."""
SETTINGS_BY_NAME = {declared.name: declared for declared in SETTINGS}
"""Each setting under its name, its key in `ladder.toml`."""
assert len(SETTINGS) == len(fields(LadderSettings)), "every field of LadderSettings is declared"


def settings_of(values: dict[str, Any]) -> LadderSettings:
    """The settings `values` gives (by key, as TOML gives them; the rest keep their defaults),
    checked: LadderError naming the first key that is unknown or a value it cannot take."""
    changes = {}
    for key, value in values.items():
        declared = SETTINGS_BY_NAME.get(key)
        if declared is None:
            raise LadderError(f"unknown key {key!r} (known: {', '.join(SETTINGS_BY_NAME)})")
        try:
            changes[key] = declared.convert(value)
        except OptionError as error:
            raise LadderError(str(error)) from None
    settings = LadderSettings(**changes)
    settings._check_together()
    return settings


def read_settings(path: Path) -> LadderSettings:
    """The settings in the file `path` (a ladder's `ladder.toml`): LadderError, one line naming
    the file and the key, for a file that cannot be read or is not TOML, an unknown key, or a
    value its setting cannot take."""
    data = read_toml(path, "a ladder's settings file", LadderError)
    try:
        return settings_of(data)
    except LadderError as error:
        raise LadderError(f"{str(path)!r}: {error}") from None


def write_settings(path: Path, settings: LadderSettings) -> None:
    """Write `settings` to `path` as commented TOML that `read_settings` reads back to the same
    settings; atomically (a temporary file beside it, flushed, then renamed over it), so the
    file is the old one or the new one whole, never half written. LadderError for settings that
    are not ones a ladder takes, before anything is written."""
    settings.check()
    text = settings_text(settings)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


HEADER = """\
# A ladder's settings (the arena's docs/ladder.md, "Settings", tells each): `arena ladder init`
# wrote every key with its default; change one, and `arena ladder serve` reads it at its next
# start. A key left out keeps its default.
"""


def settings_text(settings: LadderSettings) -> str:
    """The settings as `write_settings` writes them: each key under a comment of what it does,
    what it takes and its default."""
    parts = [HEADER]
    for declared in SETTINGS:
        value = getattr(settings, declared.name)
        about = f"{declared.help} Takes {declared.accepted()}; default {declared.shown}."
        comment = textwrap.wrap(about, width=96, initial_indent="# ", subsequent_indent="# ")
        line = f"{declared.name} = {toml_value(value)}" if value is not None else None
        parts.append("\n".join([*comment, line or f"# {declared.name} ="]) + "\n")
    return "\n".join(parts)


def toml_value(value: object) -> str:
    """`value` (a setting's, not None) as TOML writes it: a whole number, a float that reads
    back the same (`repr` is exact), true or false, or a basic string (an enum by its value)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    text = str(value.value) if isinstance(value, Variant) else str(value)
    escaped = "".join(_escape(char) for char in text)
    return f'"{escaped}"'


def _escape(char: str) -> str:
    """One character as a TOML basic string holds it."""
    if char in '"\\':
        return "\\" + char
    if ord(char) < 0x20 or ord(char) == 0x7F:
        return f"\\u{ord(char):04x}"
    return char
