"""The rules of a signed-in browser: its session's secret, when a session ends, the CSRF token
of a form, and how fast one address may try tokens at `/login`. Pure: no HTTP, no database, no
clock of its own (every rule takes the time it is asked at), so each is tested alone.

- A session's id is 256 random bits, as a token is (`authors.new_token`), sent to the browser
  alone as its cookie; the database keeps only its sha256 (`digest`), so a copy of the database
  signs no one in. It ends at `LIFETIME` after sign-in whatever happens, when its author signs
  out (ended in the database, not only in the browser), and when its author is revoked.
- A form that changes state carries a CSRF token derived from the secret its browser holds
  (`csrf_token`: an HMAC of the session's id, keyed by it), so it is tied to that session, is
  stored nowhere, and tells nothing of the id it came from. Another site can make a browser post
  a form, but cannot read the page that holds the token, nor the cookie it comes from. Before
  sign-in, the login form's token is derived the same way from a cookie of its own
  (`PRE_SESSION_COOKIE`), so no one can sign a browser into *their* account either.
- `/login` is throttled per client address (`LoginThrottle`): a token bucket of `BURST`
  tries, refilled at one every `REFILL` seconds, counted for every wrong token. 256 random bits
  cannot be guessed at any rate; the throttle keeps a guesser from costing the server a
  database lookup a request, and says so plainly. An IPv6 client is counted by its /64, the
  block one machine is given, so that it cannot try from a fresh address each time.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field

SESSION_COOKIE = "arena_session"
"""The cookie that holds a signed-in browser's session id."""
PRE_SESSION_COOKIE = "arena_login"
"""The cookie that holds the login form's own secret, before a session exists."""
CSRF_FIELD = "csrf"
"""The form field that carries the CSRF token."""
SECRET_BYTES = 32
"""256 bits, as a token's."""
SECRET_LENGTH = 43
"""`token_urlsafe(32)`'s length: a cookie of any other length is not one of ours."""
LIFETIME = dt.timedelta(days=7)
"""How long a session lasts after sign-in: an author signs in again once a week."""
BURST = 5
"""Wrong tokens an address may send at once, before it must wait."""
REFILL = 12.0
"""Seconds after which an address may send one wrong token more: five a minute at most."""
ADDRESSES = 10_000
"""Addresses the throttle remembers: beyond, those that would be allowed a whole burst again
are forgotten first, so a flood of addresses cannot grow the server's memory."""
_CSRF_LABEL = b"arena ladder csrf v1"


def new_secret() -> str:
    """A new session id (or login form's secret): 256 random bits, URL-safe text."""
    return secrets.token_urlsafe(SECRET_BYTES)


def digest(secret: str) -> str:
    """What the database keeps of a secret (a session's id, an author's token): its sha256 in
    hex. One hash of 256 random bits is enough: such a secret cannot be guessed from it."""
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def well_formed(secret: str | None) -> bool:
    """Whether a cookie's value could be one of our secrets (checked before any lookup)."""
    return (
        secret is not None
        and len(secret) == SECRET_LENGTH
        and all(c.isascii() and (c.isalnum() or c in "-_") for c in secret)
    )


def expires(signed_in: dt.datetime) -> dt.datetime:
    """When a session begun at `signed_in` ends."""
    return signed_in + LIFETIME


def alive(expires_at: dt.datetime, ended_at: dt.datetime | None, now: dt.datetime) -> bool:
    """Whether a session still signs its browser in at `now`: not ended, not expired."""
    return ended_at is None and now < expires_at


def csrf_token(secret: str) -> str:
    """The CSRF token of forms shown to the browser holding `secret` (see the module's doc)."""
    mac = hmac.new(secret.encode("ascii"), _CSRF_LABEL, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode("ascii").rstrip("=")


def csrf_matches(secret: str | None, offered: str | None) -> bool:
    """Whether a posted form's token is the one of the browser's secret (constant time)."""
    if not well_formed(secret) or offered is None or not offered.isascii():
        return False
    assert secret is not None
    return hmac.compare_digest(csrf_token(secret), offered)


def client_key(address: str) -> str:
    """Who the throttle counts: an IPv4 address, an IPv6 one's /64; the text as it is else."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{parsed}/64", strict=False))
    return str(parsed)


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class LoginThrottle:
    """Wrong tokens per client address, as a token bucket (see the module's doc). `now` is any
    monotonic clock's seconds, given at each call."""

    burst: int = BURST
    refill: float = REFILL
    remembered: int = ADDRESSES
    _buckets: dict[str, _Bucket] = field(default_factory=dict)

    def wait(self, address: str, now: float) -> float:
        """Seconds before `address` may try a token again: 0.0 if it may now."""
        bucket = self._buckets.get(client_key(address))
        if bucket is None:
            return 0.0
        tokens = self._level(bucket, now)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) * self.refill

    def failed(self, address: str, now: float) -> None:
        """A wrong token from `address`: one try fewer."""
        key = client_key(address)
        bucket = self._buckets.get(key)
        if bucket is None:
            self._forget(now)
            bucket = self._buckets[key] = _Bucket(float(self.burst), now)
        bucket.tokens = max(self._level(bucket, now) - 1.0, 0.0)
        bucket.at = now

    def succeeded(self, address: str) -> None:
        """A right token: the address's count starts afresh."""
        self._buckets.pop(client_key(address), None)

    def _level(self, bucket: _Bucket, now: float) -> float:
        elapsed = max(now - bucket.at, 0.0)  # a clock read out of order gives nothing back
        return min(bucket.tokens + elapsed / self.refill, float(self.burst))

    def _forget(self, now: float) -> None:
        """Room for one more address: those whose bucket is full again go first, then the
        longest quiet."""
        if len(self._buckets) < self.remembered:
            return
        full = [key for key, b in self._buckets.items() if self._level(b, now) >= self.burst]
        for key in full:
            del self._buckets[key]
        while len(self._buckets) >= self.remembered:
            oldest = min(self._buckets, key=lambda key: self._buckets[key].at)
            del self._buckets[oldest]

    def __len__(self) -> int:
        return len(self._buckets)
