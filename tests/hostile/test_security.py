"""Where the arena listens and who may talk to it: loopback by default, TLS beyond it."""

from __future__ import annotations

import asyncio
import subprocess
from contextlib import ExitStack
from pathlib import Path

import pytest

from arena.protocol import TLS_CA_VARIABLE
from arena.rules import Settings
from arena.server.listen import Listener, ListenError, is_loopback
from arena.server.lobby import BotSpec
from arena.server.options import BotOptions
from arena.server.session import open_session
from arena.tournament.config import ConfigError, TournamentConfig
from tests.server.helpers import sample
from tests.server.test_games import by_hand


@pytest.mark.parametrize(
    ("address", "loopback"),
    [
        ("127.0.0.1:7000", True),
        ("127.8.9.10:0", True),
        ("[::1]:7000", True),
        ("localhost:7000", True),
        ("unix:/tmp/arena.sock", True),
        ("0.0.0.0:7000", False),
        ("[::]:7000", False),
        ("192.0.2.1:7000", False),
        ("arena.example:7000", False),
    ],
)
def test_what_counts_as_loopback(address: str, loopback: bool) -> None:
    assert is_loopback(address) is loopback


def test_listening_beyond_loopback_needs_tls_or_an_explicit_insecure() -> None:
    with pytest.raises(ListenError, match="give --tls-cert and --tls-key, or --insecure"):
        Listener("0.0.0.0:7000").check()
    Listener("0.0.0.0:7000", insecure=True).check()
    Listener("127.0.0.1:7000").check()
    with pytest.raises(ListenError, match="--tls-cert needs --tls-key too"):
        Listener("0.0.0.0:7000", tls_cert=Path("cert.pem")).check()


def test_the_tournament_refuses_an_unsafe_listen_before_starting() -> None:
    bots = (BotSpec("a", ("true",)), BotSpec("b", ("true",)))
    with pytest.raises(ConfigError, match="reaches beyond this machine"):
        TournamentConfig(bots=bots, listen="0.0.0.0:7000").check()


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1, made with the machine's openssl."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.mark.integration
def test_an_external_bot_plays_over_tls(tmp_path: Path, no_leftover_processes: None) -> None:
    cert, key = certificate(tmp_path)
    public = Listener("127.0.0.1:0", tls_cert=cert, tls_key=key)
    specs = [BotSpec("remote", None), sample("highest")]
    options = BotOptions(deadline=5.0, first_deadline=10.0)

    async def scenario() -> tuple[int, int]:
        with ExitStack() as stack:
            async with open_session(specs, tmp_path / "logs", options, public=public) as session:
                assert session.public_address is not None
                assert session.public_address != session.address
                token = session.lobby.external_token("remote")
                extra = {TLS_CA_VARIABLE: str(cert)}
                bot = stack.enter_context(by_hand(session.public_address, token, extra=extra))
                game = Settings(players=2, max_rounds=1)
                result = await session.play("tls", game, ["remote", "highest"], seed=3)
            status = await asyncio.to_thread(bot.wait, 30)
            return len(result.faults), status

    assert asyncio.run(scenario()) == (0, 0)


@pytest.mark.integration
def test_a_bot_that_does_not_trust_the_certificate_cannot_connect(
    tmp_path: Path, no_leftover_processes: None
) -> None:
    cert, key = certificate(tmp_path)
    public = Listener("127.0.0.1:0", tls_cert=cert, tls_key=key)
    specs = [BotSpec("remote", None), sample("highest")]

    async def scenario() -> bytes:
        with ExitStack() as stack:
            async with open_session(specs, tmp_path / "logs", BotOptions(), public=public) as s:
                assert s.public_address is not None
                token = s.lobby.external_token("remote")
                bot = stack.enter_context(by_hand(s.public_address, token))  # no CA: plain text
                await asyncio.to_thread(bot.wait, 30)
                assert bot.stderr is not None
                return bot.stderr.read()

    assert b"unavailable" in asyncio.run(scenario())
