"""Isolation: everything that keeps a bot process apart from the arena, the machine and the
other bots. Processes and their limits (`process`, `rlimit`, `procfs`), the sandbox
(`sandbox`), cgroups (`cgroups`) and fair CPU (`fairness`); sessions, builds and cluster workers
enter it by one door, `isolate.isolate`, whose `Isolation` says what is on, what is off and why."""
