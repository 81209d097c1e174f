"""Authors' tokens: 256 random bits, only their sha256 stored, refused when malformed, unknown
or revoked; on SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from arena.ladder import authors
from arena.ladder.db import repository
from arena.ladder.db.models import Author
from arena.ladder.errors import LadderError


def test_a_token_is_256_random_bits_of_url_safe_text() -> None:
    tokens = {authors.new_token() for _ in range(100)}
    assert len(tokens) == 100
    for token in tokens:
        assert len(token) == authors.TOKEN_LENGTH and set(token) <= authors.TOKEN_CHARACTERS
        assert len(base64.urlsafe_b64decode(token + "=")) == 32


def test_the_database_keeps_the_tokens_sha256_alone(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        _, token = authors.add_author(session, "ann", organizer=True)
    with Session(engine) as session:
        stored = session.scalars(select(Author)).one()
        assert stored.token_hash == hashlib.sha256(token.encode()).hexdigest() != token
        assert token not in repr(session.execute(select(Author.__table__)).all())
        assert authors.signed_in(session, token).name == "ann"


def test_a_wrong_malformed_or_revoked_token_is_refused_in_one_line(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        _, token = authors.add_author(session, "ann")
        _, other = authors.add_author(session, "bob")
        repository.revoke_author(session, "bob")
    with Session(engine) as session:
        for offered, says in [
            (authors.new_token(), "unknown token"),
            (token[:-1], "not a ladder token"),
            (token + "x", "not a ladder token"),
            ("é" * 43, "not a ladder token"),
            (other, "'bob' was revoked"),
        ]:
            with pytest.raises(authors.TokenRefused, match=says) as refused:
                authors.signed_in(session, offered)
            assert "\n" not in str(refused.value)
        assert authors.signed_in(session, token).name == "ann"


@given(st.text(max_size=60))
def test_anything_offered_is_refused_without_an_error_of_another_kind(offered: str) -> None:
    """Malformed tokens never reach the database; well-formed ones would be looked up."""
    if len(offered) == authors.TOKEN_LENGTH and set(offered) <= authors.TOKEN_CHARACTERS:
        return
    with pytest.raises(authors.TokenRefused):
        authors.signed_in(None, offered)  # type: ignore[arg-type]  # never reached


@pytest.mark.parametrize("name", ["", "-ann", "a b", "a/b", "é", "a" * 65, "../x"])
def test_an_author_name_that_would_not_show_well_is_refused(name: str) -> None:
    with pytest.raises(LadderError, match="bad author name"):
        authors.check_author_name(name)


def test_a_good_author_name_is_taken() -> None:
    assert authors.check_author_name("Ann_1.x-y") == "Ann_1.x-y"
    assert authors.check_author_name("a" * 64) == "a" * 64
