"""The rules of a signed-in browser without a server (`arena.ladder.sessions`, pure), and its
session in the database (`authors.sign_in`, `session_author`, `sign_out`, on SQLite and
PostgreSQL): only a hash stored, ended on sign-out, on expiry and when its author is revoked."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from arena.ladder import authors, sessions
from arena.ladder.db import repository
from arena.ladder.db.models import LoginSession
from arena.ladder.sessions import LoginThrottle, client_key, csrf_matches, csrf_token

SECRETS = st.text(alphabet=sorted(authors.TOKEN_CHARACTERS), min_size=43, max_size=43)
T0 = dt.datetime(2026, 12, 2, 8, 0, tzinfo=dt.UTC)


def test_a_csrf_token_belongs_to_its_session_alone_and_shows_nothing_of_it() -> None:
    one, two = sessions.new_secret(), sessions.new_secret()
    token = csrf_token(one)
    assert csrf_matches(one, token)
    assert not csrf_matches(two, token)
    assert not csrf_matches(one, csrf_token(two))
    assert one not in token and token == csrf_token(one)  # derived, so stored nowhere
    for offered in (None, "", token[:-1], token + "=", "é" * len(token)):
        assert not csrf_matches(one, offered)
    assert not csrf_matches(None, token) and not csrf_matches("short", csrf_token("short"))


@given(SECRETS, st.text(max_size=60))
def test_no_offered_text_but_the_sessions_own_token_passes(secret: str, offered: str) -> None:
    assert csrf_matches(secret, offered) == (offered == csrf_token(secret))


@given(st.text(max_size=60))
def test_only_our_secrets_shape_is_well_formed(text: str) -> None:
    expected = len(text) == 43 and set(text) <= authors.TOKEN_CHARACTERS
    assert sessions.well_formed(text) == expected


def test_a_session_lives_its_lifetime_unless_ended() -> None:
    until = sessions.expires(T0)
    assert until - T0 == sessions.LIFETIME
    assert sessions.alive(until, None, until - dt.timedelta(seconds=1))
    assert not sessions.alive(until, None, until)
    assert not sessions.alive(until, T0, T0)


def test_the_throttle_allows_a_burst_then_one_try_per_refill() -> None:
    throttle = LoginThrottle(burst=5, refill=12.0)
    for _ in range(5):
        assert throttle.wait("10.0.0.1", 100.0) == 0.0
        throttle.failed("10.0.0.1", 100.0)
    assert throttle.wait("10.0.0.1", 100.0) == 12.0
    assert throttle.wait("10.0.0.2", 100.0) == 0.0  # another address is not held back
    assert throttle.wait("10.0.0.1", 106.0) == 6.0
    assert throttle.wait("10.0.0.1", 112.0) == 0.0
    throttle.failed("10.0.0.1", 112.0)
    assert throttle.wait("10.0.0.1", 112.0) == 12.0
    throttle.succeeded("10.0.0.1")
    assert throttle.wait("10.0.0.1", 112.0) == 0.0


def test_an_ipv6_client_is_counted_by_its_64_and_a_mapped_ipv4_as_itself() -> None:
    assert (
        client_key("2001:db8:1:2::1") == client_key("2001:db8:1:2:ffff::9") == ("2001:db8:1:2::/64")
    )
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key("::ffff:10.0.0.1") == client_key("10.0.0.1") == "10.0.0.1"
    assert client_key("testclient") == "testclient"
    throttle = LoginThrottle(burst=1)
    throttle.failed("2001:db8:1:2::1", 0.0)
    assert throttle.wait("2001:db8:1:2::abcd", 0.0) > 0  # a fresh address of the same block


@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.floats(0, 30), st.booleans()), max_size=40
    )
)
def test_no_address_gets_more_tries_than_the_burst_and_the_refill_allow(
    events: list[tuple[str, float, bool]],
) -> None:
    """Invariant: in any stretch of time, an address is let through at most `burst` wrong
    tokens plus one per `refill` seconds of it (as a token bucket must)."""
    throttle = LoginThrottle(burst=3, refill=10.0)
    now = 0.0
    allowed: dict[str, list[float]] = {}
    for address, step, tries in events:
        now += step
        if tries and throttle.wait(address, now) == 0.0:
            throttle.failed(address, now)
            allowed.setdefault(address, []).append(now)
    for times in allowed.values():
        for start in range(len(times)):
            for end in range(start, len(times)):
                span = times[end] - times[start]
                assert end - start + 1 <= 3 + span / 10.0 + 1e-9


def test_the_throttle_remembers_a_bounded_number_of_addresses() -> None:
    throttle = LoginThrottle(burst=2, refill=10.0, remembered=100)
    for n in range(1000):
        throttle.failed(f"10.0.{n // 250}.{n % 250}", float(n))
    assert len(throttle) <= 100
    throttle.failed("10.9.9.9", 1000.0)
    throttle.failed("10.9.9.9", 1000.0)
    assert throttle.wait("10.9.9.9", 1000.0) > 0  # the newest is held, not forgotten


def test_signing_in_keeps_the_sessions_hash_alone_and_signing_out_ends_it(engine: Engine) -> None:
    with Session(engine) as db, db.begin():
        _, token = authors.add_author(db, "ann")
    with Session(engine) as db, db.begin():
        author, secret = authors.sign_in(db, token, at=T0)
        assert author.name == "ann" and secret != token
    with Session(engine) as db, db.begin():
        stored = db.scalars(select(LoginSession)).one()
        assert stored.id_hash == sessions.digest(secret) and secret not in repr(
            db.execute(select(LoginSession.__table__)).all()
        )
        assert stored.expires_at == T0 + sessions.LIFETIME
        found = authors.session_author(db, secret, at=T0 + dt.timedelta(hours=1))
        assert found is not None and found.name == "ann"
        assert authors.session_author(db, secret, at=T0 + sessions.LIFETIME) is None
        assert authors.session_author(db, sessions.new_secret(), at=T0) is None
        assert authors.session_author(db, None, at=T0) is None
        assert authors.session_author(db, "x' OR 1=1 --", at=T0) is None
        authors.sign_out(db, secret, at=T0 + dt.timedelta(hours=2))
    with Session(engine) as db:
        assert authors.session_author(db, secret, at=T0 + dt.timedelta(hours=3)) is None


def test_revoking_an_author_ends_every_session_of_theirs(engine: Engine) -> None:
    with Session(engine) as db, db.begin():
        _, ann = authors.add_author(db, "ann")
        _, bob = authors.add_author(db, "bob")
    with Session(engine) as db, db.begin():
        first = authors.sign_in(db, ann, at=T0)[1]
        second = authors.sign_in(db, ann, at=T0)[1]
        kept = authors.sign_in(db, bob, at=T0)[1]
    with Session(engine) as db, db.begin():
        repository.revoke_author(db, "ann", at=T0 + dt.timedelta(minutes=1))
    later = T0 + dt.timedelta(minutes=2)
    with Session(engine) as db, db.begin():
        assert authors.session_author(db, first, at=later) is None
        assert authors.session_author(db, second, at=later) is None
        assert authors.session_author(db, kept, at=later) is not None
        ended = db.scalars(select(LoginSession).where(LoginSession.ended_at.is_not(None))).all()
        assert len(ended) == 2


def test_a_sign_in_forgets_sessions_ended_or_expired_over_a_day_ago(engine: Engine) -> None:
    with Session(engine) as db, db.begin():
        _, token = authors.add_author(db, "ann")
    with Session(engine) as db, db.begin():
        old = authors.sign_in(db, token, at=T0)[1]
        ended = authors.sign_in(db, token, at=T0)[1]
        authors.sign_out(db, ended, at=T0 + dt.timedelta(hours=1))
        recent = authors.sign_in(db, token, at=T0 + sessions.LIFETIME)[1]
        authors.sign_out(db, recent, at=T0 + sessions.LIFETIME + dt.timedelta(hours=1))
    later = T0 + sessions.LIFETIME + authors.KEPT + dt.timedelta(seconds=1)
    with Session(engine) as db, db.begin():
        fresh = authors.sign_in(db, token, at=later)[1]
    with Session(engine) as db:
        kept = {row.id_hash for row in db.scalars(select(LoginSession))}
        assert kept == {sessions.digest(recent), sessions.digest(fresh)}
        assert sessions.digest(old) not in kept and sessions.digest(ended) not in kept
