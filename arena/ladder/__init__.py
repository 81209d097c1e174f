"""The ladder: a contest that runs for weeks (issue 24; see docs/ladder.md)."""
