"""The ladder: a contest that runs for weeks, where authors submit bots over the network and a
rating settles their places (issue 24; `docs/ladder.md` is the whole of it).

A ladder is a folder: `ladder.toml` (its settings, `settings`), its database (authors, bots and
their versions, the sets played and each seat's rating before and after), the archives of the
versions it was sent, and one folder per set played. Where a tournament (`arena run`) plays a
fixed field once, a ladder never ends: versions come and go and each set moves the ratings.

The data flow, one version's:

1. An author uploads an archive (`arena submit`, or `POST /api/bots/{name}/versions`); it is
   unpacked with every hostile path refused (`uploads`), stored whole or not at all, and its
   version is `received` (`versions`: the statuses and the moves between them).
2. It is built sealed, checked as `arena check-bot` checks a bot, and plays one validation set
   against copies of itself (`vetting`): `error`, with its logs shown to its author alone, or
   `placement`.
3. The match loop picks tables (`matchmaking`: Halite III's policy, new versions first, never two
   bots of one author at a table), plays each as one duplicate set through the tournament layer
   (`match`, `loop`), ranks the seats by the bullheads summed over the set and rates them
   (`rating`: openskill's Plackett-Luce, shown as mu - 3 sigma), storing the set and every rating
   change in one transaction, so that `arena ladder rerate` recomputes them all from the sets.
4. After `placement_sets` sets it is `active`; a newer version of its bot supersedes it
   (`retired`, with its history kept); one that faults in too many of its recent sets is
   `benched`, with the reason shown to its author.

The pure modules (`settings`, `rating`, `matchmaking`, `versions`, `sessions`) import only the
standard library, `openskill`, `arena.rules`, `arena.errors` and `arena.server.declared`: no
HTTP, no database, no asyncio, so they are tested alone and the bench plays them in process.
The ladder sits above the tournament and spectator layers and below the command line; it never
starts a bot itself: it plays through `run_tournament`, on the local executor or a Dask cluster.
"""
