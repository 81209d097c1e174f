"""Core hosts: in fair mode, an arena process a core, pinned there with the bots of its games.

Fair mode gives each game a core of its own and asks its seats one after another (see
`arena.server.isolation.fairness`). One arena process serving every core is then the slowest
link of each decision: its one Python thread handles every game's requests and answers, and each
answer has to wake it on whatever core it last ran on while the bot waits on its own; the chain of
cross-core wake-ups, not the CPU, set fair mode's pace (0.72 to 0.76 of shared mode's decisions a
second for fast bots, issue 23), and the one thread caps it whatever the cores. So the
organizer starts a **host** for each core a game may hold (`--concurrency`, at most the cores
fair mode uses), and each host plays that core's games:

- **Pinned with its bots.** A host pins itself to its core before any thread exists, so its
  event loop, gRPC's threads and every bot it starts run there (its session's plan has that one
  core). A decision then never leaves the core: the host writes the request, sleeps, the bot
  wakes, answers, sleeps, the host wakes; and while a bot decides, nothing else of its game has
  anything to do. The rules of fair mode are unchanged: a game holds a core, one decider at a
  time, everyone else frozen.
- **The organizer keeps the run.** This process keeps the schedule, the results store, the live
  standings and the referees (faults count over the whole tournament: `arena.tournament.
  judging`, as for a cluster's workers); a host gets one game at a time (its spec and the
  organizer's record of its seats' bots) and gives back its outcome, the bots' log lines with it.
  A host keeps the seat rotations equal to its number modulo the hosts (`executor.pick`), so a
  bot's process for a rotation starts on one host only, and takes any other game rather than
  idle.
- **Nothing left behind.** A host dies with the organizer (`PR_SET_PDEATHSIG`), whatever kills
  it; its sealed bots die with it (`--die-with-parent`), and a frozen one is thawed and killed by
  the next run, as a killed arena's are (its cgroups carry the host's pid). Stopping, the
  organizer tells each host to close: it stops its bots, hands back what they wrote as they
  stopped, and exits (killed if it has not within `CLOSE_TIMEOUT`). The terminal's Ctrl-C is the
  organizer's alone (hosts run in sessions of their own). A host that dies unasked, or a game
  that raises in it, ends the run in one line (`HostError`), every game stored kept: run the same
  command again to carry on.
- **Where they are not used**: in shared mode (every seat asked at once: one process serves the
  cores it needs), with one game at a time, with a bot started by hand (it connects to this
  process) or `--listen`, with `--no-core-processes`, and in a ladder's sets
  (`arena.ladder.match`). Each host opens a session of its own (a sandbox probe, a server per
  bot): a few tenths of a CPU second a host per run, more than a set of a few games saves.

Three modules: what the two sides say (`wire.py`), the organizer's side (`executor.py`) and the
host's (`host.py`, run as `python -m arena.tournament.hosts.host`).
"""
