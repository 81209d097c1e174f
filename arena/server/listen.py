"""Where the arena listens for bots that connect from elsewhere, and how it secures that.

Bots the arena launches always dial a loopback port. Listening anywhere else, for bots on other
machines, needs TLS (a certificate and key) or an explicit, named choice to go without it: tokens
would otherwise cross the network in the clear.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena.server.declared import Form
from arena.server.errors import BotError

_HOST_NAME = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?")
"""A host name as DNS spells one: labels of letters, digits and inner hyphens."""
MAX_PORT = 65_535


class ListenError(BotError):
    """A listening address or TLS setting that cannot be used, with what to change."""


def is_host_port(address: str, *, any_port: bool = False) -> bool:
    """Whether `address` is HOST:PORT: a host name, an IPv4 address or an IPv6 one in brackets,
    and a port from 1 (from 0 with `any_port`: the system picks a free one) to 65535. Neither
    gRPC nor Dask refuses a port past 65535: gRPC binds it modulo 65536, elsewhere."""
    host, sep, port = address.rpartition(":")
    if not (sep and host and port.isascii() and port.isdigit()):
        return False
    if not (0 if any_port else 1) <= int(port) <= MAX_PORT:
        return False
    if host.startswith("[") and host.endswith("]"):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return False
        return True
    return _HOST_NAME.fullmatch(host) is not None


def is_listen_address(address: str) -> bool:
    """Whether `address` is one the arena can listen on: HOST:PORT (port 0: any free one) or
    unix:PATH."""
    if address.startswith("unix:"):
        return len(address) > len("unix:")
    return is_host_port(address, any_port=True)


LISTEN_ADDRESS = Form(
    "an address to listen on: HOST:PORT (e.g. 0.0.0.0:7000, port 1 to 65535, or 0 for any free "
    "one) or unix:PATH",
    is_listen_address,
)
"""What `--listen` takes (the declaration of `TournamentConfig.listen`)."""


def is_loopback(address: str) -> bool:
    """Whether `host:port` (or `unix:path`) can only be reached from this machine."""
    if address.startswith("unix:"):
        return True
    host = address.rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


@dataclass(frozen=True, slots=True)
class Listener:
    """An extra address for bots that connect by themselves (external bots)."""

    address: str
    """`host:port` to listen on, e.g. `0.0.0.0:7000`."""
    tls_cert: Path | None = None
    """PEM certificate chain of the arena, for TLS."""
    tls_key: Path | None = None
    """PEM private key of that certificate."""
    insecure: bool = False
    """Listen beyond loopback without TLS: anyone on the network can read the tokens."""

    def check(self) -> None:
        """Raise ListenError unless the address is loopback, has TLS, or insecure was chosen."""
        if (self.tls_cert is None) != (self.tls_key is None):
            given, missing = ("--tls-cert", "--tls-key")[:: 1 if self.tls_cert else -1]
            raise ListenError(f"{given} needs {missing} too: TLS takes a certificate and its key")
        for option, path in (("--tls-cert", self.tls_cert), ("--tls-key", self.tls_key)):
            if path is not None and not path.is_file():
                raise ListenError(f"{option} {str(path)!r}: no such file")
        if self.tls_cert is None and not self.insecure and not is_loopback(self.address):
            raise ListenError(
                f"listening on {self.address} reaches beyond this machine: give --tls-cert and "
                "--tls-key, or --insecure to send tokens and cards in the clear"
            )
        if self.tls_cert is not None and self.tls_key is not None:
            check_key_pair(self.tls_cert, self.tls_key, "--tls-cert", "--tls-key")

    def check_free(self) -> None:
        """`check`, then ListenError unless this machine can listen there now (`bind_problem`):
        what a run checks before it writes anything, and `bind` before gRPC binds."""
        self.check()
        problem = bind_problem(self.address)
        if problem is not None:
            raise ListenError(f"--listen {self.address}: {problem}")

    def bind(self, server: grpc.aio.Server) -> str:
        """Add this address to a server that has not started; the address to dial."""
        self.check_free()
        try:
            if self.tls_cert is not None and self.tls_key is not None:
                credentials = grpc.ssl_server_credentials(
                    [(self.tls_key.read_bytes(), self.tls_cert.read_bytes())]
                )
                port = server.add_secure_port(self.address, credentials)
            else:
                port = server.add_insecure_port(self.address)
        except RuntimeError as error:  # gRPC's "Failed to bind": taken since `check`
            raise ListenError(f"cannot listen on {self.address}: {error}") from None
        return dialable(self.address, port)


def check_certificate(path: Path, option: str) -> None:
    """ListenError naming `option` unless `path` holds a certificate in PEM (gRPC would refuse
    it only once it binds, with a traceback and a log line of its own)."""
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=path)
    except (ssl.SSLError, ValueError) as error:
        raise ListenError(
            f"{option} {str(path)!r} is not a certificate in PEM ({error.args[-1]}): give the "
            "file that begins -----BEGIN CERTIFICATE-----"
        ) from None
    except OSError as error:
        raise ListenError(f"{option} {str(path)!r} cannot be read: {error.strerror}") from None


def check_key_pair(cert: Path, key: Path, cert_option: str, key_option: str) -> None:
    """ListenError naming the option at fault unless `cert` is a certificate in PEM and `key`
    its private key, in PEM and without a passphrase."""
    check_certificate(cert, cert_option)
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key, password=b"")
    except (ssl.SSLError, ValueError) as error:
        raise ListenError(
            f"{key_option} {str(key)!r} is not the private key of {cert_option} in PEM, without "
            f"a passphrase ({error.args[-1]})"
        ) from None
    except OSError as error:
        raise ListenError(f"{key_option} {str(key)!r} cannot be read: {error.strerror}") from None


def bind_problem(address: str) -> str | None:
    """Why this machine cannot listen on `address` (HOST:PORT) now, found by binding a socket
    there and closing it at once (the port in use, a host that is not this machine's, a name
    that does not resolve); None if it can, or for port 0 and unix: addresses. gRPC would only
    say "Failed to bind", with a traceback and a log line of its own."""
    host, _, port = address.rpartition(":")
    if address.startswith("unix:") or not port.isdigit() or int(port) == 0:
        return None
    try:
        found = socket.getaddrinfo(
            host.strip("[]"), int(port), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except (socket.gaierror, UnicodeError) as error:
        return f"cannot find the host {host!r} ({error}): give this machine's address or name"
    family, kind, protocol, _, where = found[0]
    with socket.socket(family, kind, protocol) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(where)
        except OSError as error:
            return f"cannot listen there ({error.strerror}): choose another port or address"
    return None


def dialable(address: str, port: int) -> str:
    """The address a client dials for a server bound to `address` (port 0 becomes the real one)."""
    if address.startswith("unix:"):
        return address
    return f"{address.rsplit(':', 1)[0]}:{port}"
