"""What the operating system refuses at the start of a run is one line, exit status 2, before
anything is written: a port in use or out of range, an address that is none, a certificate or
key that is not one, a tournament file that cannot be read, is not UTF-8 text, or is no file."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.refusals import HIGHEST, LOWEST, TWO_BOTS, Case, refuse

RUN = ("run", *TWO_BOTS, "--quiet", "--output", "{OUT}")
COMPARE = ("compare", f"a={LOWEST}", f"b={HIGHEST}", "--field", f"c={LOWEST}", "--output", "{OUT}")
JUNK = {"c.pem": "junk\n", "k.pem": "junk\n", "ca.pem": "junk\n"}
TLS = ("--tls-cert", "c.pem", "--tls-key", "k.pem")
CLUSTER_TLS = ("--cluster-ca", "ca.pem", "--cluster-cert", "c.pem", "--cluster-key", "k.pem")
NOT_AN_ADDRESS = "is not an address to listen on: HOST:PORT"
NOT_A_SCHEDULER = "is not a scheduler's address: tcp://HOST:PORT or tls://HOST:PORT"

CASES = [
    # tournament files
    Case(("run", "t.toml"), ("t.toml' is not UTF-8 text",), {"t.toml": bytes(range(256))}),
    Case(("run", "t.toml"), ("t.toml' is not UTF-8 text", "0xe9"), {"t.toml": b"# caf\xe9\n"}),
    Case(("run", "t.toml"), ("t.toml' is not valid TOML",), {"t.toml": "\x00\x01"}),
    Case(("run", "/proc/self/mem"), ("cannot read '/proc/self/mem'",)),
    Case(("run", "missing.toml"), ("cannot read '", "missing.toml': no such file")),
    # addresses: none, or a port out of range (gRPC would listen on the port modulo 65536)
    Case((*RUN, "--listen", "abc"), ("--listen", "'abc'", NOT_AN_ADDRESS)),
    Case((*RUN, "--listen", ""), ("--listen", "''", NOT_AN_ADDRESS)),
    Case((*RUN, "--listen", "127.0.0.1:99999"), ("--listen", "99999", NOT_AN_ADDRESS)),
    Case((*RUN, "--listen", "127.0.0.1:65536"), ("--listen", "65536", NOT_AN_ADDRESS)),
    Case((*RUN, "--listen", "127.0.0.1:-5"), ("--listen", "-5", NOT_AN_ADDRESS)),
    Case((*RUN, "--listen", "127.0.0.1:"), ("--listen", NOT_AN_ADDRESS)),
    Case((*RUN, "--listen", "[::1:7000"), ("--listen", NOT_AN_ADDRESS)),
    Case((*RUN, "--listen", "a b:7000"), ("--listen", NOT_AN_ADDRESS)),
    Case((*RUN, "--listen", "unix:"), ("--listen", NOT_AN_ADDRESS)),
    Case((*COMPARE, "--listen", "abc"), ("--listen", NOT_AN_ADDRESS)),
    Case((*RUN, "--cluster", "foo"), ("--cluster", "'foo'", NOT_A_SCHEDULER)),
    Case((*RUN, "--cluster", "tcp://"), ("--cluster", NOT_A_SCHEDULER)),
    Case((*RUN, "--cluster", "tcp://127.0.0.1:99999"), ("--cluster", "99999", NOT_A_SCHEDULER)),
    Case((*RUN, "--cluster", "udp://127.0.0.1:8786"), ("--cluster", NOT_A_SCHEDULER)),
    Case((*RUN, "--cluster", "127.0.0.1:0"), ("--cluster", NOT_A_SCHEDULER)),
    Case((*COMPARE, "--cluster", "foo"), ("--cluster", NOT_A_SCHEDULER)),
    # addresses this machine cannot listen on
    Case((*RUN, "--listen", "192.0.2.1:7000", "--insecure"), ("--listen 192.0.2.1:7000",)),
    # certificates and keys that are none
    Case(
        (*RUN, "--listen", "127.0.0.1:0", *TLS),
        ("--tls-cert '", "c.pem' is not a certificate in PEM"),
        JUNK,
    ),
    Case((*COMPARE, "--listen", "127.0.0.1:0", *TLS), ("--tls-cert '", "c.pem' is not a"), JUNK),
    Case((*RUN, "--listen", "127.0.0.1:0", *TLS), ("--tls-cert", "no such file"), {}),
    Case((*RUN, "--listen", "127.0.0.1:0", "--tls-cert", "c.pem"), ("--tls-key",), JUNK),
    Case(
        (*RUN, "--cluster", "tls://127.0.0.1:8786", *CLUSTER_TLS),
        ("--cluster-ca '", "ca.pem' is not a certificate in PEM"),
        JUNK,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_what_the_system_refuses_at_the_start_is_one_line(case: Case, tmp_path: Path) -> None:
    refuse(case, tmp_path)


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A loopback port another program listens on."""
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


@pytest.mark.parametrize("command", [RUN, COMPARE], ids=["run", "compare"])
def test_a_port_in_use_is_one_line(
    command: tuple[str, ...], busy_port: int, tmp_path: Path
) -> None:
    address = f"127.0.0.1:{busy_port}"
    line = refuse(Case((*command, "--listen", address), (f"--listen {address}",)), tmp_path)
    assert "cannot listen there (Address already in use)" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_tournament_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text("[tournament]\n")
    (tmp_path / "t.toml").chmod(0)
    refuse(Case(("run", "t.toml"), ("cannot read '", "t.toml': permission denied")), tmp_path)


def test_a_tournament_file_that_is_a_fifo_is_refused_unread(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "t.toml")  # reading it would wait for a writer for ever
    refuse(Case(("run", "t.toml"), ("t.toml' is not a file",)), tmp_path)


@pytest.mark.integration  # openssl makes the certificates
@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")
def test_a_key_that_is_not_the_certificates_is_one_line_naming_it(tmp_path: Path) -> None:
    made = tmp_path / "made"
    made.mkdir()
    request = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    for name in ("one", "two"):
        subprocess.run(
            [*request, "-subj", "/CN=127.0.0.1", "-keyout", f"{name}.key", "-out", f"{name}.pem"],
            cwd=made,
            check=True,
            capture_output=True,
            timeout=60,
        )
    files = {name: (made / name).read_bytes() for name in ("one.pem", "two.key", "one.key")}
    tls = ("--tls-cert", "one.pem", "--tls-key", "two.key")
    line = refuse(
        Case((*RUN, "--listen", "127.0.0.1:0", *tls), ("--tls-key '", "two.key' is not"), files),
        tmp_path,
    )
    assert "is not the private key of --tls-cert" in line
    cluster = ("--cluster-ca", "one.pem", "--cluster-cert", "one.pem", "--cluster-key", "two.key")
    case = Case((*RUN, "--cluster", "tls://127.0.0.1:8786", *cluster), ("--cluster-key",), files)
    assert "is not the private key of --cluster-cert" in refuse(case, tmp_path / "again")
