"""Integration tests: the real arena server and real bot processes, on loopback."""
