"""How the arena tells a bot process where to connect: two environment variables."""

ADDRESS_VARIABLE = "ARENA_ADDRESS"
"""Where the arena listens: `host:port`, or `unix:/path` for a unix socket."""
TOKEN_VARIABLE = "ARENA_TOKEN"
"""The bot's secret token, sent in its hello."""
