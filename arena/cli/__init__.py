"""The `arena` command: thin click commands that parse, call the library, and print.

Importing this package loads no gRPC: `arena --help`, `arena replay`, `arena report` and `arena
play` with built-in strategies never need it. What does (the server, the bot processes, the
tournament runner and its configuration) is imported inside the commands that use it, and the
options built from it (`arena run`'s, from the tournament's declared settings; `arena
check-bot`'s defaults) are built when their command first parses or shows its help.

The group and what its commands share are in `group`, `exits` (exit statuses, errors as one
line) and `options`; each command in its own module: `play`, `run`, `compare`, `spectate`
(replay, logs, report), `check_bot` (its situations are the server's, `arena.server.checkbot`),
`ladder` (`arena ladder ...`) and `submit` (an author's upload to a ladder,
`arena.ladder.client`).
"""

from arena.cli import check_bot, compare, ladder, play, run, spectate, submit  # register commands
from arena.cli.group import main

__all__ = ["check_bot", "compare", "ladder", "main", "play", "run", "spectate", "submit"]
