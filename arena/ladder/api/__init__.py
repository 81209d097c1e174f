"""The ladder's HTTP API (FastAPI): `create_app` builds it, one router per area (`public`: the
leaderboard, bots, sets and status; `versions`: a version, and uploads), with a dependency for
the database session and one for the signed-in author (`deps`). Every 4xx is
`{"detail": "one line naming the problem and the fix"}`; the OpenAPI page (`/docs`) is the API's
reference."""
