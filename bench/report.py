"""How `make bench` prints its figures: one table of every figure beside its baseline, the
targets met or not, and what the machine was doing meanwhile (`bench.run` measures)."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate


def best_floor(results: dict[str, Any]) -> dict[str, Any]:
    best: dict[str, Any] = max(results["floor"]["levels"], key=lambda r: r["round_trips_per_s"])
    return best


def one_at_a_time(results: dict[str, Any]) -> dict[str, Any]:
    level: dict[str, Any] = results["floor"]["levels"][0]
    return level


def table(results: dict[str, Any]) -> str:
    """The figures as one table: what, how much, against what baseline, the ratio."""
    rows: list[list[Any]] = []
    for entry in results.get("engine", []):
        base = entry["baseline_games_per_s"]
        for name, label in (("engine", "engine"), ("engine_async", "engine, async driver")):
            value = entry[f"{name}_games_per_s"]
            rows.append(
                [
                    f"{label}, {entry['players']} players",
                    "games/CPU-s",
                    f"{value:,.0f}",
                    f"{base:,.0f} plain loop",
                    f"{value / base:.2f}",
                ]
            )
    if "floor" in results:
        for level in results["floor"]["levels"]:
            what = f"gRPC floor, {level['in_flight']} in flight"
            rows.append([what, "round trips/s", f"{level['round_trips_per_s']:,.0f}", "", ""])
            if "median_rtt_s" in level:
                rows.append([what, "median round trip", _ms(level["median_rtt_s"]), "", ""])
            cpu = level["server_cpu_per_round_trip_s"] + level["client_cpu_per_round_trip_s"]
            rows.append([what, "CPU per round trip", _us(cpu), "both sides", ""])
    best = best_floor(results)["round_trips_per_s"] if "floor" in results else None
    rtt = one_at_a_time(results)["median_rtt_s"] if "floor" in results else None
    for entry in results.get("e2e", []):
        what = f"end to end, concurrency {entry['concurrency']}"
        rate = entry["decisions_per_s"]
        rows.append(
            [
                what,
                "decisions/s",
                f"{rate:,.0f}",
                f"{best:,.0f} floor best" if best else "",
                f"{rate / best:.2f}" if best else "",
            ]
        )
        rows.append([what, "games/s", f"{entry['games_per_s']:.1f}", "", ""])
        for key, label in (
            ("median_latency_s", "median latency"),
            ("p99_latency_s", "p99 latency"),
            ("median_row_latency_s", "median, row decisions"),
        ):
            latency = entry[key]
            if latency is None:
                continue
            rows.append(
                [
                    what,
                    label,
                    _ms(latency),
                    f"{_ms(rtt)} floor round trip" if rtt else "",
                    f"{latency / rtt:.1f}" if rtt else "",
                ]
            )
        cpu = entry["arena_cpu_per_decision_s"] + entry["bots_cpu_per_decision_s"]
        rows.append(
            [
                what,
                "CPU per decision",
                _us(cpu),
                f"arena {_us(entry['arena_cpu_per_decision_s'])}",
                "",
            ]
        )
        if entry["faults"]:
            kinds = ", ".join(f"{n} {kind}" for kind, n in entry["faults_by_kind"].items())
            rows.append([what, "faults", kinds, "", ""])
    memory = results.get("memory", [])
    for entry in memory:
        short = memory[0]["peak_rss_bytes"]
        rows.append(
            [
                f"arena memory, {entry['games']:,} games",
                "peak RSS",
                f"{entry['peak_rss_bytes'] / 2**20:.1f} MiB",
                f"{short / 2**20:.1f} MiB, {memory[0]['games']} games",
                f"{entry['peak_rss_bytes'] / short:.2f}",
            ]
        )
    rows.extend(_cluster_rows(results.get("cluster")))
    rows.extend(_sealing_rows(results.get("sealing")))
    rows.extend(_fair_rows(results.get("fair")))
    rows.extend(_ladder_rows(results.get("ladder")))
    rows.extend(_pages_rows(results.get("pages")))
    rows.extend(_convergence_rows(results.get("ladder-convergence")))
    headers = ["measured", "figure", "value", "baseline", "ratio"]
    return tabulate(rows, headers=headers, disable_numparse=True, colalign=_ALIGN)


def _fair_rows(fair: dict[str, Any] | None) -> list[list[Any]]:
    """The fair-CPU section's rows: fast bots' decisions/s fair against shared, a freeze and
    thaw per decision, and the recorded answer times against the bot's own clock."""
    if not fair:
        return []
    rates = fair["rates"]
    shared = rates["shared"]["decisions_per_s"]
    value = rates["fair"]["decisions_per_s"]
    rows: list[list[Any]] = [
        [
            "fast bots, fair CPU (one decider at a time)",
            "decisions/s",
            f"{value:,.0f}",
            f"{shared:,.0f} shared (all at once)",
            f"{rates['ratio']:.2f}",
        ]
    ]
    if "arena_cpu_per_decision_s" in rates["fair"]:
        fair_cpu = rates["fair"]["arena_cpu_per_decision_s"]
        shared_cpu = rates["shared"]["arena_cpu_per_decision_s"]
        rows.append(
            [
                "fast bots, fair CPU",
                "arena CPU per decision",
                _us(fair_cpu),
                f"{_us(shared_cpu)} shared",
                f"{fair_cpu / shared_cpu:.2f}",
            ]
        )
    freeze = fair["freeze"]
    if "skipped" in freeze:
        rows.append(["freeze and thaw", "skipped", freeze["skipped"], "", ""])
    else:
        kinds = (
            ("idle", "an idle bot"),
            ("busy", "a bot with 16 busy processes"),
            ("idle_v2", "an idle process, cgroup v2"),
        )
        for kind, label in kinds:
            if kind not in freeze:
                continue
            cycle = freeze[kind]
            rows.append(
                [
                    f"thaw and freeze {label}, per decision",
                    "median / p99",
                    f"{cycle['median_us']:,.0f} / {cycle['p99_us']:,.0f} µs",
                    f"arena CPU {cycle['cpu_median_us']:,.0f} µs"
                    if "cpu_median_us" in cycle
                    else "",
                    "",
                ]
            )
    for entry in fair["accuracy"]:
        rows.append(
            [
                f"recorded answer time - the bot's own, {entry['mode']} CPU",
                "median / p99",
                f"{entry['median_us'] / 1000:+.2f} / {entry['p99_us'] / 1000:+.2f} ms",
                f"{entry['own_median_ms']:.1f} ms thought",
                "",
            ]
        )
    return rows


def _sealing_rows(sealing: dict[str, Any] | None) -> list[list[Any]]:
    """The sealing section's rows: start-up sealed against unsealed, and each tournament's
    decisions/s against the baseline's (unsealed, one process for all games)."""
    if not sealing:
        return []
    if "skipped" in sealing:
        return [["sealing", "skipped", sealing["skipped"], "", ""]]
    startup = sealing["startup"]
    sealed, unsealed = startup["sealed"]["median_s"], startup["unsealed"]["median_s"]
    rows: list[list[Any]] = [
        [
            "bot start-up to hello, sealed",
            "median",
            _ms(sealed),
            f"{_ms(unsealed)} unsealed",
            f"{sealed / unsealed:.2f}",
        ]
    ]
    base, *others = sealing["runs"]
    rate = base["decisions_per_s"]
    rows.append([base["label"], "decisions/s", f"{rate:,.0f}", "(the baseline)", ""])
    for run in others:  # the ratio: the median of each round's, against that round's baseline
        value = run["decisions_per_s"]
        rows.append(
            [run["label"], "decisions/s", f"{value:,.0f}", f"{rate:,.0f}", f"{run['ratio']:.2f}"]
        )
    return rows


def _cluster_rows(cluster: dict[str, Any] | None) -> list[list[Any]]:
    """The cluster section's rows: each executor's rate against the local one's, the overhead
    a game, a worker's memory against its short tournament's."""
    if not cluster:
        return []
    rows: list[list[Any]] = []
    local, *workers = cluster["speed"]
    base = f"{local['games_per_s']:.1f} local executor"
    rows.append(["local executor", "games/s", f"{local['games_per_s']:.1f}", "", ""])
    for entry in workers:
        what = f"cluster, {entry['workers']} worker{'s' * (entry['workers'] > 1)}"
        what += f" x {entry['threads']} thread{'s' * (entry['threads'] > 1)}"
        ratio = entry["games_per_s"] / local["games_per_s"]
        rows.append([what, "games/s", f"{entry['games_per_s']:.1f}", base, f"{ratio:.2f}"])
        overhead = entry["ms_per_game"] - local["ms_per_game"]
        rows.append(
            [
                what,
                "overhead a game",
                f"{overhead:+.1f} ms",
                f"{local['ms_per_game']:.1f} ms local",
                f"{entry['ms_per_game'] / local['ms_per_game']:.2f}",
            ]
        )
        cpu = entry["organizer_cpu_ms_per_game"] + entry.get("worker_cpu_ms_per_game", 0.0)
        rows.append(
            [
                what,
                "arena CPU a game",
                f"{cpu:.1f} ms",
                f"{local['organizer_cpu_ms_per_game']:.1f} ms local",
                f"{cpu / local['organizer_cpu_ms_per_game']:.2f}",
            ]
        )
    memory = cluster["memory"]
    short = memory[0]["worker_peak_rss_bytes"]
    for entry in memory:
        rows.append(
            [
                f"worker memory, {entry['games']:,} games",
                "peak RSS",
                f"{entry['worker_peak_rss_bytes'] / 2**20:.1f} MiB",
                f"{short / 2**20:.1f} MiB, {memory[0]['games']} games",
                f"{entry['worker_peak_rss_bytes'] / short:.2f}",
            ]
        )
    return rows


def _ladder_rows(found: dict[str, Any] | None) -> list[list[Any]]:
    """The ladder's match loop: sets per hour, and the server's own CPU per set against what
    the set's games cost (the bots' CPU, start-ups included)."""
    if not found:
        return []
    what = f"ladder, {found['sets']} sets at {found['players']} seats"
    games = f"{found['games_cpu_per_set_s'] * 1000:.0f} ms the games' CPU"
    ratio = found["server_over_games"]
    return [
        [what, "sets per hour", f"{found['sets_per_hour']:.0f}", "", ""],
        [
            what,
            "server's CPU per set",
            f"{found['server_cpu_per_set_s'] * 1000:.0f} ms",
            games,
            f"{ratio:.2f}" if ratio is not None else "",
        ],
    ]


def _pages_rows(found: dict[str, Any] | None) -> list[list[Any]]:
    """The ladder's pages and API: each route's p50 and p99 (its ratio the p50's to the static
    file's) and its server CPU, beside the static file's from the same server; and what
    recording a set costs with the ladder stored."""
    if not found:
        return []
    stored = f"{found['bots']} bots, {found['sets']:,} sets"
    routes = {route["route"]: route for route in found["routes"]}
    base = routes.pop("static file")
    rows = []
    for name, route in routes.items():
        what = f"{name}, {stored}"
        rows.append(
            [
                what,
                f"p50 / p99 of {route['requests']}",
                f"{_ms(route['p50_s'])} / {_ms(route['p99_s'])}",
                f"{_ms(base['p50_s'])} / {_ms(base['p99_s'])} static file",
                f"{route['p50_over_baseline']:.2f}",
            ]
        )
        rows.append(
            [
                what,
                "server's CPU a request",
                _ms(route["cpu_median_s"]),
                f"{_ms(base['cpu_median_s'])} static file",
                f"{route['cpu_over_baseline']:.2f}",
            ]
        )
    rows.append(
        [
            f"record_set, {stored} stored",
            f"CPU a set, {found['recorded']} sets",
            _ms(found["record_cpu_per_set_s"]),
            "",
            "",
        ]
    )
    return rows


def _convergence_rows(found: dict[str, Any] | None) -> list[list[Any]]:
    """The ladder's convergence: matchmaking's median sets to the true order against uniform
    tables' (`bench.convergence`), with how many runs never settled within the cap."""
    if not found:
        return []

    def sets(policy: dict[str, Any]) -> str:
        unsettled = f", {policy['unsettled']} over {found['cap']}" if policy["unsettled"] else ""
        return f"{policy['median_sets']:g}{unsettled}"

    what = f"ladder convergence, {found['bots']} bots at {found['players']} seats"
    figure = f"sets to tau >= {found['target_tau']:g}, median of {found['seeds']}"
    uniform = f"{sets(found['uniform'])} uniform tables"
    return [[what, figure, sets(found["matchmaking"]), uniform, f"{found['ratio']:.2f}"]]


_ALIGN = ("left", "left", "right", "left", "right")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs"


def report(results: dict[str, Any]) -> str:
    """The table, the targets, and what the machine was doing."""
    lines = [table(results), ""]
    for target in results["targets"]:
        sign = "≥" if target["at_least"] else "≤"
        verdict = "met" if target["met"] else "NOT met"
        lines.append(
            f"{verdict:>7}: {target['target']}: {target['ratio']:.2f} "
            f"(target {sign} {target['limit']})"
        )
    info, load = results["machine"], results["load"]
    lines.append("")
    lines.append(
        f"{info['date']}, {info['cores']} cores ({info['cpu']}), Python {info['python']}; "
        f"{load['seconds']:.0f} s; other processes kept {load['other_processes_cores']:.1f} "
        f"cores busy (load average {load['load_average_before']:.1f} before, "
        f"{load['load_average_after']:.1f} after)"
    )
    return "\n".join(lines)
