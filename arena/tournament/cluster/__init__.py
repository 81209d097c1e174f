"""Tournaments on a Dask cluster: `arena run --cluster ADDRESS` or `--workers N`.

The organizer's machine keeps the schedule, the one results database and the referees; the games
run on the cluster's workers, each an arena of its own. Dask does the rest: it places each game
on a worker with a free thread, streams results back as they finish, and plays again elsewhere
the games of a worker that is lost.

- **A game is a task, a worker's session is its batch.** Each game is one small Dask task; the
  worker plays it in its own arena session (its own servers on unix sockets, its own bot
  processes, sealed and in cgroups as on one machine: the same `open_session` and
  `LocalExecutor.play`), opened for the first game of the run and kept for the next ones, so the
  bots start once per worker, not once per game. A worker plays as many games at once as it has
  threads (`dask worker --nthreads`, by default its cores). Tasks of one game each stream
  results back as they finish (`as_completed`), and a lost worker costs only its unfinished games,
  which Dask reschedules: no batch to split, no queue to drain. The organizer keeps a window of
  about two games per thread submitted, so the scheduler never holds the whole tournament.
- **Only specs and outcomes travel**: a `GameSpec` (and the referees' state for its seats) in, a
  `GameOutcome` (with its bots' log lines) out. The bots' files reach the workers as
  content-addressed archives (`shipping.py`) in the run's worker plugin, which every worker, also
  one that joins later, receives; submissions are built on each worker, once per content hash.
- **One store, nothing counted twice.** Outcomes are stored as they arrive, keyed by game id (a
  game is yielded once, and the store keeps a game once); a resume plays what is missing, with
  whatever executor. Seeds come from the schedule, never from where or when a game ran.
- **The referees stay with the organizer**: each outcome's faults are charged to the organizer's
  referee of each bot, which disqualifies at `--max-faults` for the whole tournament; each game
  carries its seats' fault counts, failed starts in a row and disqualifications to the worker
  (`arena.tournament.judging`), so a bot put out on one worker is out on all of them from their
  next game.
- **Secure by default**: `tls://` uses Dask's TLS with the organizer's certificate, key and CA
  (`--cluster-cert`, `--cluster-key`, `--cluster-ca`); `tcp://` beyond loopback needs
  `--insecure`, as `--listen` does. `--workers N` runs a local cluster on loopback.

The package in three: the organizer's side (`organizer.py`: the connection, the entry of
submissions and the run's bundle; `executor.py`: the games on the workers and the organizer's
referees), each worker's side (`worker.py`: the run's plugin and its arena), and the bots'
archives that travel between them (`shipping.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.lazy import exports

if TYPE_CHECKING:
    from arena.tournament.cluster.executor import DaskExecutor
    from arena.tournament.cluster.organizer import (
        Cluster,
        ClusterError,
        ClusterForRun,
        WorkerGone,
        open_cluster,
        security,
        split_cores,
    )

__all__ = [
    "Cluster",
    "ClusterError",
    "ClusterForRun",
    "DaskExecutor",
    "WorkerGone",
    "open_cluster",
    "security",
    "split_cores",
]
__getattr__ = exports(
    __name__, {name: "organizer" for name in __all__} | {"DaskExecutor": "executor"}
)
"""Each name from its module when first asked for: they load Dask (about a second of CPU), and
`arena submit` packs a bot with `shipping` alone, never loading Dask."""
