"""What a bot is, for a tournament that runs more than once: its fingerprint.

A stored game is only worth keeping while the bot that played it is the same bot. A bot's
fingerprint is canonical JSON of its command (with the arena's own interpreter and line-protocol
bridge written as `python` and `stdio:`, so that another checkout or virtual environment of the
arena does not count as a change) and the SHA-256 of every file the command names: the program,
and a script given to an interpreter (`node bot.js`). A submission's fingerprint is the content
hash of its whole folder instead (`folder_hash`), manifest included. An external bot, started by
hand, has nothing to check.

A bot that imports other files of its own is only covered by the files its command names: enter
it as a submission folder for the whole of it to count.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import stat
import sys
from pathlib import Path
from typing import Any

from arena.server.lobby import BotSpec
from arena.server.specs import BRIDGE, STDIO

EXTERNAL = '{"external":true}'
"""The fingerprint of every external bot."""
NOT_THE_BOT = frozenset({"__pycache__", ".git"})
"""Names in a bot's folder that are not the bot: the caches Python writes as it runs (a bot run
unsealed, or by its author, writes them beside its code) and a repository's history. Neither its
content hash nor what is shipped to a cluster's workers counts them, so running a bot does not
change what it is."""
_CHUNK = 1 << 16


def file_hash(path: Path) -> str:
    """SHA-256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def folder_hash(folder: Path) -> str:
    """SHA-256 over a folder's tree: every file's path, whether it is executable, and its bytes;
    every symbolic link's path and target; empty folders too; never `NOT_THE_BOT`. The same tree
    gives the same hash wherever it lies and whatever the files' times."""
    digest = hashlib.sha256()
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(f for f in folders if f not in NOT_THE_BOT)
        kept = [f for f in files if f not in NOT_THE_BOT]
        base = Path(root)
        for name in [*sorted(kept), *(f for f in folders if (base / f).is_symlink())]:
            path = base / name
            relative = path.relative_to(folder).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                digest.update(f"link {relative} {os.readlink(path)}\n".encode())
            elif stat.S_ISREG(info.st_mode):
                executable = bool(info.st_mode & stat.S_IXUSR)
                digest.update(f"file {relative} {int(executable)} {info.st_size}\n".encode())
                digest.update(bytes.fromhex(file_hash(path)))
        if not kept and not folders:
            digest.update(f"folder {base.relative_to(folder).as_posix()}\n".encode())
    return digest.hexdigest()


def shown_command(spec: BotSpec) -> str:
    """The bot's command as the organizer would write it (`stdio:` for a line-protocol one)."""
    if spec.argv is None:
        return "external"
    argv = list(spec.argv)
    prefix = ""
    if tuple(argv[: len(BRIDGE)]) == BRIDGE:
        prefix, argv = STDIO, argv[len(BRIDGE) :]
    if argv and argv[0] == sys.executable:
        argv[0] = "python"
    return prefix + shlex.join(argv)


def bot_fingerprint(spec: BotSpec) -> str:
    """The fingerprint of a bot entered by its command (see the module's note)."""
    if spec.argv is None:
        return EXTERNAL
    files = {}
    for argument in spec.argv:
        if argument == sys.executable or not os.path.isabs(argument):
            continue
        path = Path(argument)
        if path.is_file():
            files[argument] = file_hash(path)
    return _canonical({"command": shown_command(spec), "files": files})


def submission_fingerprint(folder: Path, command: str) -> str:
    """The fingerprint of a submission: its folder's content and the command it runs."""
    return _canonical({"command": command, "folder": folder_hash(folder)})


def differences(stored: str, given: str) -> str:
    """What changed between two fingerprints, for a person: "its command", "bot.py", ..."""
    try:
        old, new = json.loads(stored), json.loads(given)
    except ValueError:
        return "its fingerprint"
    changes = []
    if old.get("external") != new.get("external"):
        return "whether it is external"
    if old.get("command") != new.get("command"):
        changes.append(f"its command ({old.get('command')!r} -> {new.get('command')!r})")
    if old.get("folder") != new.get("folder"):
        changes.append("the content of its submission folder")
    old_files, new_files = old.get("files") or {}, new.get("files") or {}
    changed = sorted(
        name for name in set(old_files) & set(new_files) if old_files[name] != new_files[name]
    )
    if changed:
        changes.append(f"the content of {', '.join(Path(name).name for name in changed)}")
    if ("folder" in old) != ("folder" in new):
        changes.append("how it is entered (a submission folder or a command)")
    return " and ".join(changes) or "its fingerprint"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
