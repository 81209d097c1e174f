"""Where the arena listens for bots that connect from elsewhere, and how it secures that.

Bots the arena launches always dial a loopback port. Listening anywhere else, for bots on other
machines, needs TLS (a certificate and key) or an explicit, named choice to go without it: tokens
would otherwise cross the network in the clear.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena.server.errors import BotError


class ListenError(BotError):
    """A listening address or TLS setting that cannot be used, with what to change."""


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
            raise ListenError("TLS needs both --tls-cert and --tls-key")
        for path in (self.tls_cert, self.tls_key):
            if path is not None and not path.is_file():
                raise ListenError(f"no such file {str(path)!r} for TLS")
        if self.tls_cert is None and not self.insecure and not is_loopback(self.address):
            raise ListenError(
                f"listening on {self.address} reaches beyond this machine: give --tls-cert and "
                "--tls-key, or --insecure to send tokens and cards in the clear"
            )

    def bind(self, server: grpc.aio.Server) -> str:
        """Add this address to a server that has not started; the address to dial."""
        self.check()
        if self.tls_cert is not None and self.tls_key is not None:
            credentials = grpc.ssl_server_credentials(
                [(self.tls_key.read_bytes(), self.tls_cert.read_bytes())]
            )
            port = server.add_secure_port(self.address, credentials)
        else:
            port = server.add_insecure_port(self.address)
        return dialable(self.address, port)


def dialable(address: str, port: int) -> str:
    """The address a client dials for a server bound to `address` (port 0 becomes the real one)."""
    if address.startswith("unix:"):
        return address
    return f"{address.rsplit(':', 1)[0]}:{port}"
