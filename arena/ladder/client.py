"""The author's side of a ladder: `arena submit`, a bot folder packed and uploaded over HTTP, and
its new version followed until it plays or fails.

The folder is packed as bots are packed for a cluster (`shipping.pack`: a deterministic tar, so
one folder is always the same bytes and the server's digest names it), then unpacked here into
a temporary folder by the very code the server unpacks it with (`uploads.unpack`), so that a
folder the ladder would refuse (a link, no bot.toml, a bad manifest) is refused before anything
is sent, with the server's own words.

The upload is `POST /api/bots/{bot}/versions`, the archive itself as the body
(`Content-Type: application/gzip`), the author's token as `Authorization: Bearer`. The server
answers with the new version as JSON: its `id` (what `arena submit` prints, `version N`, and
what `GET /api/versions/{id}` takes), and its `status`; `--wait` then polls that version until
it is `placement` or `active` (it plays) or `error`, `benched` or `retired` (it does not; its
`reason` is printed). The token is read from `--token-file` or `ARENA_TOKEN`, never from the
command line, where any user of the machine would see it in `ps`; it goes over https, or plain
http to a loopback address only unless the author says `--insecure` (a private network).

Every failure is `SubmitError`, one line: the server's `detail` for a refusal (with its status),
"cannot reach URL: ..." when there is no answer, and what is wrong with a folder, token or
address before anything is sent. Text from the server is shown with its control characters
escaped (a reason quotes a bot's own words).
"""

from __future__ import annotations

import ipaddress
import os
import re
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from arena.ladder.errors import LadderError
from arena.ladder.uploads import unpack
from arena.server.specs import BadBotSpec, check_name
from arena.spectate.display import safe
from arena.tournament.cluster.shipping import ARCHIVE_CAP, pack
from arena.tournament.submissions import BadSubmission

TOKEN_VARIABLE = "ARENA_TOKEN"
"""The environment variable `arena submit` reads the author's token from."""
PLAYS = frozenset({"placement", "active"})
"""Statuses of a version that plays: `--wait` ends, the upload succeeded."""
ENDED = frozenset({"error", "benched", "retired"})
"""Statuses of a version that does not play: `--wait` ends with its reason, and fails."""
POLL = (0.5, 1.0, 2.0)
"""Seconds between two looks at a version being vetted: the first looks soon (a small bot's
build and validation take seconds, and the author is waiting at the terminal), then every 2 s,
at most one request from each waiting author each 2 s, whatever the vetting takes."""
TIMEOUT = httpx.Timeout(120.0, connect=15.0)
"""How long one request may take: an upload of the cap over a slow link, a busy server."""
_TOKEN = re.compile(r"[A-Za-z0-9_\-]{16,512}")
"""What a token looks like (`secrets.token_urlsafe`): anything else is a wrong file."""


class SubmitError(LadderError):
    """An upload that could not be made or followed, or a page of the ladder that could not be
    read: one line, what went wrong and the fix."""


class VersionFailed(SubmitError):
    """The upload was made, and the version followed to a status in which it does not play."""

    def __init__(self, version: Version) -> None:
        reason = safe(version.reason or "the ladder gave no reason")
        super().__init__(f"version {version.id} is {safe(version.status)}: {reason}")
        self.version = version


@dataclass(frozen=True)
class Version:
    """A version as the ladder shows it to its author."""

    id: int
    status: str
    number: int | None = None
    """Its number among its bot's versions (1, 2, ...), where the server says."""
    reason: str | None = None
    """Why it is `error` or `benched`."""


def read_token(token_file: Path | None, environ: Mapping[str, str] = os.environ) -> str:
    """The author's token: the file's (stripped), else `ARENA_TOKEN`'s; SubmitError if none
    or if it is not one."""
    if token_file is not None:
        try:
            token = token_file.read_text().strip()
        except (OSError, UnicodeDecodeError) as error:
            why = error.strerror if isinstance(error, OSError) else "it is not text"
            raise SubmitError(f"cannot read --token-file {str(token_file)!r}: {why}") from None
        where = f"--token-file {str(token_file)!r}"
    else:
        token = environ.get(TOKEN_VARIABLE, "").strip()
        where = TOKEN_VARIABLE
        if not token:
            raise SubmitError(
                f"no token: set {TOKEN_VARIABLE} or give --token-file FILE (the token the "
                "organizer's `arena ladder author add` printed)"
            )
    if not _TOKEN.fullmatch(token):
        raise SubmitError(
            f"{where} does not hold a token (letters, digits, '-' and '_' only, as `arena "
            "ladder author add` prints it): give the file or value the organizer sent"
        )
    return token


def ladder_url(url: str, insecure: bool = False) -> str:
    """The ladder's base address, checked: http(s)://HOST[:PORT][/PATH], no trailing slash;
    plain http only to a loopback host unless `insecure`."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as error:
        raise SubmitError(f"--to {url!r} is not an address: {error}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SubmitError(
            f"--to {url!r} is not the ladder's address: give http(s)://HOST:PORT, as the "
            "organizer published it"
        )
    if parts.query or parts.fragment or parts.username or parts.password:
        raise SubmitError(f"--to {url!r}: give the ladder's address alone, http(s)://HOST:PORT")
    if parts.scheme == "http" and not insecure and not _loopback(parts.hostname):
        raise SubmitError(
            f"--to {url!r} is plain http beyond this machine: the token would cross the network "
            "readable; use https://, or --insecure on a network you trust"
        )
    return url.rstrip("/")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def packed(folder: Path) -> bytes:
    """The folder packed as `arena submit` sends it (a gzipped deterministic tar), checked by the
    server's own unpacking; SubmitError naming what the ladder would refuse."""
    if not folder.is_dir():
        raise SubmitError(
            f"{str(folder)!r} is not a folder: give the bot's folder, with its bot.toml"
        )
    try:
        _, data, _ = pack(folder)
    except OSError as error:
        raise SubmitError(
            f"cannot read {error.filename or str(folder)!r}: {error.strerror}"
        ) from None
    except ValueError as error:  # ShippingError: over the archive's cap
        raise SubmitError(str(error)) from None
    with tempfile.TemporaryDirectory(prefix="arena-submit-") as scratch:
        try:
            unpack(data, Path(scratch) / "bot", ARCHIVE_CAP)
        except BadSubmission as error:
            raise SubmitError(f"{str(folder)!r} cannot be submitted: {error}") from None
    return data


def submit(
    folder: Path,
    url: str,
    bot: str,
    token: str,
    wait: bool = False,
    *,
    report: Callable[[str], None] = print,
    insecure: bool = False,
    poll: float | None = None,
) -> Version:
    """Pack `folder`, upload it to the ladder at `url` as a new version of `bot`, report
    `version N`, and with `wait` follow it until it plays or fails (each status reported as it
    changes); the version as last seen. SubmitError for a refusal, VersionFailed for a version
    followed to `error` (or benched, retired)."""
    try:
        check_name(bot)
    except BadBotSpec as error:
        raise SubmitError(f"--bot: {error}") from None
    base = ladder_url(url, insecure)
    data = packed(folder)
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    with httpx.Client(timeout=TIMEOUT, headers=headers, follow_redirects=False) as client:
        answer = _call(
            client,
            "POST",
            f"{base}/api/bots/{quote(bot, safe='')}/versions",
            base,
            content=data,
            headers={"Content-Type": "application/gzip"},
        )
        version = _version(answer, base)
        report(f"version {version.id}")
        if not wait:
            return version
        seen = version.status
        report(f"version {version.id}: {safe(seen)}")
        looks = 0
        while version.status not in PLAYS | ENDED:
            time.sleep(POLL[min(looks, len(POLL) - 1)] if poll is None else poll)
            looks += 1
            version = _version(
                _call(client, "GET", f"{base}/api/versions/{version.id}", base), base
            )
            if version.status != seen:
                seen = version.status
                report(f"version {version.id}: {safe(seen)}")
    if version.status in ENDED:
        raise VersionFailed(version)
    return version


def fetch(url: str, path: str, token: str | None = None, insecure: bool = False) -> Any:
    """One of the ladder's JSON pages (`/api/leaderboard`, `/api/status`, ...): its JSON object
    or list, as `arena ladder status URL` reads the leaderboard; SubmitError (one line) as for an
    upload. Without a token plain http may go anywhere: nothing secret crosses."""
    base = ladder_url(url, insecure or token is None)
    headers = {"Accept": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    with httpx.Client(timeout=TIMEOUT, headers=headers, follow_redirects=False) as client:
        return _call(client, "GET", f"{base}/{path.lstrip('/')}", base, kinds=(dict, list))


def _call(
    client: httpx.Client,
    method: str,
    url: str,
    base: str,
    kinds: tuple[type, ...] = (dict,),
    **given: Any,
) -> Any:
    """One request's JSON answer (of one of `kinds`); SubmitError (one line) for no answer, a
    refusal, or an answer that is not the ladder's."""
    try:
        response = client.request(method, url, **given)
    except httpx.HTTPError as error:
        why = " ".join(str(error).split()) or type(error).__name__
        raise SubmitError(f"cannot reach {base}: {why}") from None
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.is_success and isinstance(body, kinds):
        return body
    if response.is_success:
        shape = "object" if kinds == (dict,) else "object or list"
        raise SubmitError(
            f"{base} answered {method} {urlsplit(url).path} with no JSON {shape}: is it an "
            "arena ladder's address?"
        )
    detail = _detail(body)
    if detail is None:
        raise SubmitError(
            f"{base} answered {response.status_code} {response.reason_phrase} without a "
            "detail: is it an arena ladder's address?"
        )
    raise SubmitError(f"the ladder refused ({response.status_code}): {detail}")


def _detail(body: object) -> str | None:
    """A refusal's `detail` as one line: FastAPI's text, or the first of its validation errors."""
    if not isinstance(body, dict) or "detail" not in body:
        return None
    detail = body["detail"]
    if isinstance(detail, list) and detail and isinstance(detail[0], dict):
        first = detail[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        detail = f"{where}: {first.get('msg', '')}" if where else first.get("msg", "")
    return safe(" ".join(str(detail).split()))


def _version(body: dict[str, Any], base: str) -> Version:
    """A version from the ladder's JSON; SubmitError when it is not one."""
    version_id = body.get("id")
    status = body.get("status")
    number = body.get("number")
    reason = body.get("reason")
    if (
        not isinstance(version_id, int)
        or isinstance(version_id, bool)
        or not isinstance(status, str)
        or not (number is None or (isinstance(number, int) and not isinstance(number, bool)))
        or not (reason is None or isinstance(reason, str))
    ):
        raise SubmitError(
            f"{base} answered without a version (an id and a status): is it an arena ladder's "
            "address?"
        )
    return Version(version_id, status, number, reason)
