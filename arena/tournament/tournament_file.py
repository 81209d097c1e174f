"""A tournament file: a `[tournament]` table of the settings `TournamentConfig` declares, and
`[[bot]]` tables of the keys of `BOT_KEYS`, read into a `TournamentConfig` (`load`).

Apart from the declaration (`arena.tournament.config`) because reading a file is the edge where
its bytes are checked: a file that cannot be read, is not UTF-8 or not TOML, an unknown table or
key, a value of the wrong type, each one line naming the file and the key.
"""

from __future__ import annotations

from pathlib import Path

from arena.server.declared import OptionError, absolute_path, read_toml, shown_value
from arena.server.lobby import BotSpec
from arena.server.specs import BadBotSpec, parse_bot
from arena.tournament.config import SETTINGS_BY_NAME, TournamentConfig
from arena.tournament.errors import ConfigError

BOT_KEYS: dict[str, str] = {
    "name": "the bot's name in the standings and logs (default: its program's file name)",
    "command": "how to start it: a command, stdio:COMMAND for a line-protocol program, or "
    "external for a bot its author starts by hand",
}
"""What a `[[bot]]` table may hold, and what each key means."""
_TABLES = ("tournament", "bot")
"""What a tournament file may hold: a `[tournament]` table and `[[bot]]` tables."""


def load(path: Path) -> TournamentConfig:
    """Read a tournament file; paths in it are relative to the file's folder.

    ConfigError for anything it may not hold: an unknown table or key, a value of the wrong type,
    a bot that cannot be entered.
    """
    shown = repr(str(path))
    data = read_toml(path, "a tournament file", ConfigError)
    unknown = [key for key in data if key not in _TABLES]
    if unknown:
        raise ConfigError(
            f"{shown}: unknown table {unknown[0]!r} (known: [tournament] and [[bot]])"
        )
    table = data.get("tournament", {})
    entries = data.get("bot", [])
    if not isinstance(table, dict):
        raise ConfigError(
            f"{shown}: tournament must be a [tournament] table, not {shown_value(table)}"
        )
    if not isinstance(entries, list):
        raise ConfigError(
            f"{shown}: bot must be [[bot]] tables (an array of tables), not {shown_value(entries)}"
        )
    base = absolute_path(path).parent
    for key in table:
        if key in SETTINGS_BY_NAME and not SETTINGS_BY_NAME[key].in_file:
            option = SETTINGS_BY_NAME[key].option
            raise ConfigError(f"{shown}: {key} is for one run: give it as {option} instead")
    bots = tuple(_bot(entry, base, shown) for entry in entries)
    try:
        return TournamentConfig(bots=bots).with_settings(table, base)
    except (ConfigError, OptionError) as error:
        raise ConfigError(f"{shown}: {error}") from None


def _bot(entry: object, base: Path, shown: str) -> BotSpec:
    """The bot of one `[[bot]]` table in the file `shown`, which lies in `base`."""
    if not isinstance(entry, dict) or "command" not in entry:
        raise ConfigError(f"{shown}: every [[bot]] needs a command")
    unknown = [key for key in entry if key not in BOT_KEYS]
    if unknown:
        known = ", ".join(BOT_KEYS)
        raise ConfigError(f"{shown}: unknown key {unknown[0]!r} in a [[bot]] (known: {known})")
    for key, value in entry.items():
        if not isinstance(value, str):
            raise ConfigError(
                f"{shown}: a [[bot]]'s {key} must be a string, not {shown_value(value)}"
            )
    command, name = entry["command"], entry.get("name")
    if name is not None and not name.strip():
        raise ConfigError(
            f"{shown}: a [[bot]]'s name is empty: give it one, or leave name out for its "
            "program's file name"
        )
    try:
        return parse_bot(f"{name}={command}" if name else command, base)
    except BadBotSpec as error:
        raise ConfigError(f"{shown}: {error}") from None
