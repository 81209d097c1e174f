"""How the arena tells a bot process where to connect: two environment variables."""

ADDRESS_VARIABLE = "ARENA_ADDRESS"
"""Where the arena listens: `host:port`, or `unix:/path` for a unix socket."""
TOKEN_VARIABLE = "ARENA_TOKEN"
"""The bot's secret token, sent in its hello."""
TLS_CA_VARIABLE = "ARENA_TLS_CA"
"""For a bot that connects by itself to an arena listening with TLS: the CA certificate file
(PEM) to trust. The arena never sets it for bots it launches, which dial a loopback port."""
