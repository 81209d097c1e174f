"""Authors' tokens: made once, stored only as a hash, checked in constant time.

A token is 256 random bits (`secrets.token_urlsafe(32)`: 43 URL-safe characters), shown once by
`arena ladder author add` and never stored: the database keeps its sha256. A slow password hash
(bcrypt, scrypt, argon2) exists to make guessing a *low-entropy* secret from its hash costly; a
token of 256 random bits cannot be guessed from its sha256 however fast the hash, so one sha256
is enough, and checking a request costs microseconds instead of a deliberate fraction of a
second.

Checking a token (`signed_in`): its hash is looked up (the database's index compares hashes,
and how long that takes tells a caller nothing about a token they do not have: finding a token
of a given hash is sha256's preimage problem), then the stored hash and the offered one are
compared with `hmac.compare_digest`, in constant time, so nothing about the comparison leaks
either. A revoked author's token is refused, with a line saying so, as an unknown one is.
"""

from __future__ import annotations

import datetime as dt
import hmac
import re
import string

from sqlalchemy.orm import Session

from arena.ladder.db import repository
from arena.ladder.db.engine import write_first
from arena.ladder.db.models import NAME_LENGTH, Author
from arena.ladder.errors import LadderError
from arena.ladder.sessions import SECRET_LENGTH, alive, digest, expires, new_secret, well_formed

TOKEN_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-_")
"""What `token_urlsafe` writes; a token offered with anything else is not one of ours."""
TOKEN_LENGTH = SECRET_LENGTH
"""`token_urlsafe(32)`'s length (32 bytes in unpadded base64): a token is a secret of
`arena.ladder.sessions`, as a session's id is."""
NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_.-]{{0,{NAME_LENGTH - 1}}}")
"""An author's name: as a bot's (`arena.server.specs.NAME`), it shows in logs and pages."""


class TokenRefused(LadderError):
    """A token that signs no one in: unknown, malformed, or its author's revoked (the API
    answers 401)."""


def new_token() -> str:
    """A new author's token: 256 random bits, URL-safe text."""
    return new_secret()


def hash_token(token: str) -> str:
    """What the database keeps of a token: its sha256, in hex (see the module's doc)."""
    return digest(token)


def check_author_name(name: str) -> str:
    """`name` if it can name an author; LadderError saying what can otherwise."""
    if not NAME.fullmatch(name):
        raise LadderError(
            f"bad author name {name!r}: use up to {NAME_LENGTH} letters, digits, '_', '.' and "
            "'-', starting with a letter or digit"
        )
    return name


def add_author(session: Session, name: str, organizer: bool = False) -> tuple[Author, str]:
    """A new author and their token, which is shown once and never stored."""
    check_author_name(name)
    token = new_token()
    return repository.add_author(session, name, hash_token(token), organizer), token


def signed_in(session: Session, token: str) -> Author:
    """The author `token` is theirs; TokenRefused (one line) for a token that is malformed,
    unknown or revoked."""
    if not well_formed(token):
        raise TokenRefused(
            "that is not a ladder token (43 letters, digits, '-' and '_'): send the token "
            "`arena ladder author add` printed, as `Authorization: Bearer TOKEN`"
        )
    offered = hash_token(token)
    author = repository.author_by_token_hash(session, offered)
    if author is None or not hmac.compare_digest(author.token_hash, offered):
        raise TokenRefused("unknown token: send the token `arena ladder author add` printed")
    if author.revoked_at is not None:
        raise TokenRefused(
            f"the token of {author.name!r} was revoked: ask the organizer for a new author"
        )
    return author


KEPT = dt.timedelta(days=1)
"""How long a session that no longer signs anyone in is kept (for whoever looks into a sign-in),
before a sign-in forgets it."""


def sign_in(session: Session, token: str, at: dt.datetime | None = None) -> tuple[Author, str]:
    """A browser signed in with `token` (`/login`): its author and the new session's id, for
    its cookie alone (the database keeps its sha256); TokenRefused as `signed_in` refuses."""
    author = signed_in(session, token)
    at = at or repository.now()
    repository.prune_sessions(session, at - KEPT)
    secret = new_secret()
    repository.start_session(session, author, digest(secret), expires(at), at)
    return author, secret


def session_author(
    session: Session, secret: str | None, at: dt.datetime | None = None
) -> Author | None:
    """The author a browser's session cookie signs in, or None: no cookie, not one of ours,
    unknown, signed out, expired, or its author revoked (that session is ended then, in the
    database, so it never signs in again even if the author were restored)."""
    if not well_formed(secret):
        return None
    assert secret is not None
    found = repository.session_by_hash(session, digest(secret))
    at = at or repository.now()
    if found is None or not alive(found.expires_at, found.ended_at, at):
        return None
    if found.author.revoked_at is not None:
        write_first(session)  # the session is read again in a writer's transaction, then ended
        again = repository.session_by_hash(session, digest(secret))
        if again is not None and again.ended_at is None:
            again.ended_at = at
        return None
    return found.author


def sign_out(session: Session, secret: str | None, at: dt.datetime | None = None) -> None:
    """End a browser's session in the database (not only its cookie): a copy of the cookie
    signs no one in afterwards."""
    if well_formed(secret):
        assert secret is not None
        found = repository.session_by_hash(session, digest(secret))
        if found is not None and found.ended_at is None:
            found.ended_at = at or repository.now()
