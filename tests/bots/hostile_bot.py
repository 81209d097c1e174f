"""Every way a bot can attack or break the arena, one mode at a time (the first argument).

Wherever a mode still answers, it answers what the arena's fallback would (lowest card, cheapest
row, lowest draft card), so that a tournament with this bot must end exactly like one where the
fallback plays its seat: any difference is damage the hostility did.

The attacks on the machine (hijack, signal-all, renice, read-db, tamper-db, write-outside,
symlink-log, read-others, read-seed, remember, escape, hello-flood, network, fill-disk) are tried
once, when the first request comes, and each writes one line to the bot's log, `attack MODE:
blocked: WHY` or `attack MODE: SUCCEEDED: WHAT`, for the test to read; then the bot plays the
fallback's game. They are written as a bot author who has read this repository would write
them, and the test tells them where to aim (`--target=` the output folder, `--marker=` a word
for the processes they leave, `--port=` a TCP port the test listens on, `--others=` other
submissions' folders): a sealed bot must fail even knowing all that. Run as root and unsealed,
the attacks that signal every process they can reach refuse to run, rather than stop the
machine.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from queue import Queue
from typing import Any, cast

import grpc

import arena
from arena.players import fallback
from arena.protocol import PROTOCOL_VERSION, convert, pb

MODE = sys.argv[1]
OPTIONS = dict(arg[2:].split("=", 1) for arg in sys.argv[2:] if arg.startswith("--"))
TARGET = Path(OPTIONS.get("target", "/nonexistent"))
MARKER = OPTIONS.get("marker", "arena-hostile-marker")
ADDRESS = os.environ["ARENA_ADDRESS"]
TOKEN = {"no-token": "", "wrong-token": "not-a-token"}.get(MODE, os.environ["ARENA_TOKEN"])
FOREVER = 3600.0
ATTACKS: dict[str, Callable[[pb.Request], str | None]] = {}
"""Attacks on the machine by mode: each returns what it achieved (None: nothing)."""
_attacked = threading.Event()


def hello() -> pb.BotMessage:
    return pb.BotMessage(hello=pb.Hello(token=TOKEN, name=MODE, protocol_version=PROTOCOL_VERSION))


def fallback_answer(request: pb.Request) -> pb.BotMessage:
    decision = convert.decision_from_proto(request.decision)
    value = fallback(decision, convert.view_from_proto(request.view))
    return pb.BotMessage(answer=convert.answer_to_proto(request.request_id, decision, value))


def answers(request: pb.Request) -> list[bytes]:
    """What this mode sends in reply to one request, as raw bytes."""
    if MODE in ATTACKS:
        remember(request)
        if not _attacked.is_set() and MODE != "remember":
            _attacked.set()
            attack(request)  # within the first decision's deadline: no fault for the record
    honest = fallback_answer(request)
    if MODE == "sleep":  # past the deadline, then the right answer
        time.sleep(request.deadline_ms / 1000 + 0.2)
    elif MODE in ("hang", "spin"):
        end = time.monotonic() + FOREVER
        while MODE == "spin" and time.monotonic() < end:
            pass
        time.sleep(FOREVER)
    elif MODE == "exit":
        os._exit(3)
    elif MODE == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif MODE == "garbage":
        return [b"\x0a\xff\xff\xff\xff\x0f" + os.urandom(16)]
    elif MODE == "huge":  # a valid answer, swollen by an unknown field to 2 MiB
        size = 1 << 21
        padding = varint(1000 << 3 | 2) + varint(size) + b"x" * size
        return [honest.SerializeToString() + padding]
    elif MODE == "twice":
        return [honest.SerializeToString()] * 2
    elif MODE == "unsolicited":
        stranger = pb.BotMessage(answer=pb.Answer(request_id=10**9, card=1))
        return [honest.SerializeToString(), stranger.SerializeToString()]
    elif MODE == "bad-card":
        bad = pb.Answer(request_id=request.request_id, card=105)
        if request.decision == pb.DECISION_ROW:
            return [honest.SerializeToString()]
        return [pb.BotMessage(answer=bad).SerializeToString()]
    elif MODE == "bad-row" and request.decision == pb.DECISION_ROW:
        bad = pb.Answer(request_id=request.request_id, row=7)
        return [pb.BotMessage(answer=bad).SerializeToString()]
    elif MODE == "memory":
        hoard = []
        while True:
            hoard.append(bytearray(1 << 24))
    return [honest.SerializeToString()]


def varint(value: int) -> bytes:
    """Protobuf's base-128 encoding of a number."""
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def flood() -> None:
    line = b"flood " * 1000 + b"\n"
    for _ in range(2000):  # 12 MB on each stream
        os.write(1, line)
        os.write(2, line)


def spawn_survivors() -> None:
    """Children that try to outlive the bot: one in its group, one that leaves it (setsid).
    Their command lines end with the marker, for the test to look for."""
    pids = Path("survivors.txt")
    code = "import signal, time; signal.signal(15, 1); time.sleep(3600)"
    keep = [sys.executable, "-c", code, MARKER]
    child = subprocess.Popen(keep)
    escaper = subprocess.Popen(keep, start_new_session=True)
    with pids.open("a") as out:
        out.write(f"{child.pid}\n{escaper.pid}\n")


def report(line: str) -> None:
    print(line, flush=True)


def attack(request: pb.Request) -> None:
    """Run this mode's attack once, and say in the log how it went."""
    try:
        achieved = ATTACKS[MODE](request)
    except Exception as error:  # an attack that broke is an attack that failed
        achieved = None
        why = f"{type(error).__name__}: {error}"
    else:
        why = _why.pop() if _why else "nothing reachable"
    if achieved:
        report(f"attack {MODE}: SUCCEEDED: {achieved}")
    else:
        report(f"attack {MODE}: blocked: {why}")


_why: list[str] = []


def because(why: str) -> None:
    """Say why the attack got nowhere (the last one said is reported)."""
    _why[:] = [why]


def attacking(function: Callable[[pb.Request], str | None]) -> Callable[[pb.Request], str | None]:
    ATTACKS[function.__name__.replace("_", "-")] = function
    return function


def others() -> list[int]:
    """Every process this one can see, but itself."""
    me = os.getpid()
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != me)


def unsealed_root() -> bool:
    """Whether signalling all it can reach would stop the machine (root, no sandbox)."""
    return os.getuid() == 0


@attacking
def hijack(request: pb.Request) -> str | None:
    """Find other bots' tokens (environment, command line, memory) and play with one."""
    found = set()
    readable = 0
    for pid in others():
        for part in ("environ", "cmdline"):
            with contextlib.suppress(OSError):
                data = Path(f"/proc/{pid}/{part}").read_bytes()
                readable += 1
                found |= set(re.findall(rb"ARENA_TOKEN[= \x00]([A-Za-z0-9_-]{20,})", data))
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/mem", "rb") as memory:
                memory.read(1)
            return f"read the memory of process {pid}"
    found.discard(TOKEN.encode())
    for token in found:
        hello = pb.BotMessage(hello=pb.Hello(token=token.decode(), protocol_version=1))
        with grpc.insecure_channel(ADDRESS) as channel:
            play = channel.stream_stream(
                "/sixnimmt.v1.Arena/Play",
                request_serializer=lambda raw: raw,
                response_deserializer=pb.ArenaMessage.FromString,
            )
            with contextlib.suppress(grpc.RpcError):
                for message in play(iter([hello.SerializeToString()]), timeout=3):
                    if message.WhichOneof("kind") == "welcome":
                        return f"connected with another bot's token ({message.welcome.bot_name})"
    because(
        f"{len(others())} other processes visible, {readable} of their files readable, "
        f"{len(found)} foreign tokens found"
    )
    return f"found {len(found)} tokens of other bots" if found else None


@attacking
def signal_all(request: pb.Request) -> str | None:
    """SIGSTOP, then SIGKILL, every other process it can see, its parent and the arena."""
    if unsealed_root():
        because("refused to run as root without a sandbox")
        return None
    hit = []
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        for pid in [*others(), os.getppid()]:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
                hit.append(pid)
        with contextlib.suppress(OSError):
            os.kill(-1, sig)  # everything it may signal, as POSIX defines it
            hit.append(-1)
    because(f"visible: {others()}; every signal refused")
    return f"signalled {sorted(set(hit))}" if hit else None


@attacking
def renice(request: pb.Request) -> str | None:
    """Lower every other process's priority, by process, group and user, and its autogroup."""
    done = []
    for pid in others():
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, pid, 19)
            done.append(f"pid {pid}")
        with contextlib.suppress(OSError):
            Path(f"/proc/{pid}/autogroup").write_text("19")
            done.append(f"autogroup of {pid}")
    for uid in range(61000, 61020):  # (0 would mean its own uid, to setpriority)
        if uid != os.getuid():
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_USER, uid, 19)
                done.append(f"uid {uid}")
    because(f"visible: {others()}; every change refused")
    return ", ".join(done) or None


def database_paths() -> list[Path]:
    """Where a bot would look for the results: the output folder it was told, and the paths
    relative to its own working folder that reach it when bots run in OUTPUT/work/NAME."""
    return [
        TARGET / "results.sqlite",
        Path("../../results.sqlite"),
        Path("../../../results.sqlite"),
        Path("/proc/1/root") / str(TARGET).lstrip("/") / "results.sqlite",
        Path(f"/proc/{os.getppid()}/cwd/results.sqlite"),
    ]


@attacking
def read_db(request: pb.Request) -> str | None:
    """Read every hand of the finished rotations from the results database."""
    for path in database_paths():
        with contextlib.suppress(OSError, sqlite3.Error):
            data = path.read_bytes()
            return f"read {len(data)} bytes of {path}"
    because("no results database visible at any of its paths")
    return None


@attacking
def tamper_db(request: pb.Request) -> str | None:
    """Rewrite the stored games, hold an exclusive lock on the database, then overwrite it."""
    for path in database_paths():
        if not path.exists():
            continue
        with contextlib.suppress(sqlite3.Error, OSError):
            db = sqlite3.connect(path, timeout=1)
            db.execute("UPDATE games SET outcome = replace(outcome, 'heuristic', 'hostile')")
            db.commit()
            db.execute("BEGIN EXCLUSIVE")  # held until the process ends
            threading.Thread(target=time.sleep, args=(FOREVER,), daemon=True).start()
            _keep.append(db)
            return f"rewrote and locked {path}"
        with contextlib.suppress(OSError):
            path.write_bytes(b"overwritten")
            return f"overwrote {path}"
    because("no results database visible")
    return None


_keep: list[object] = []


@attacking
def write_outside(request: pb.Request) -> str | None:
    """Write into the output folder, the arena's own code, its own program, the system."""
    targets = [
        TARGET / "standings.json",
        TARGET / "logs" / "heuristic.log",
        TARGET / "planted.txt",
        Path(arena.__file__),
        Path(__file__).with_name("planted.txt"),
        Path("/etc/planted.txt"),
        Path("/usr/planted.txt"),
    ]
    written = []
    for path in targets:
        with contextlib.suppress(OSError):
            with path.open("a") as file:
                file.write("planted by hostile_bot\n")
            written.append(str(path))
    because(f"none of {len(targets)} places writable")
    return ", ".join(written) or None


@attacking
def symlink_log(request: pb.Request) -> str | None:
    """Swap its own log for a symlink to a file outside the logs, then crash, so that the arena
    reopens the log for its next process and writes through the link."""
    log = TARGET / "logs" / "hostile.log"
    victim = TARGET / "victim.txt"
    try:
        log.unlink()
        log.symlink_to(victim)
    except OSError as error:
        because(f"its log is out of reach ({error.strerror})")
        return None
    report("swapped its log for a symlink; crashing")
    os._exit(3)


@attacking
def read_others(request: pb.Request) -> str | None:
    """Read the other submissions (their programs, their notes) and the arena's folders."""
    found = []
    own = Path(sys.argv[0]).resolve().parent
    places = [own.parent, own.parent.parent, TARGET, TARGET / "builds"]
    places += [Path(p) for p in OPTIONS.get("others", "").split(",") if p]
    for place in places:
        with contextlib.suppress(OSError):
            for entry in place.iterdir():
                if entry.resolve() == own:
                    continue
                for file in [entry] if entry.is_file() else list(entry.iterdir()):
                    with contextlib.suppress(OSError):
                        if file.is_file():
                            file.read_bytes()
                            found.append(str(file))
    because("no other submission or arena folder visible")
    return ", ".join(found[:5]) or None


@attacking
def read_seed(request: pb.Request) -> str | None:
    """Find the tournament seed (environment, the arena's command line and memory, the results)
    or guess it (the old default 0, small numbers), and predict its own hand from it with the
    arena's public code, as an author would before predicting everyone's."""
    import random

    from arena.rules import Game
    from arena.tournament.schedule import deal_seed

    view = convert.view_from_proto(request.view)
    table, deal, rotation = (int(x) for x in re.findall(r"\d+", request.game_id)[:3])
    del table
    names = list(view.names)
    guesses = list(range(0, 256))
    for pid in [os.getppid(), *others()]:
        with contextlib.suppress(OSError):
            data = (
                Path(f"/proc/{pid}/cmdline").read_bytes()
                + Path(f"/proc/{pid}/environ").read_bytes()
            )
            guesses += [int(n) for n in re.findall(rb"\d{6,20}", data)]
    for guess in guesses:
        rng = random.Random(deal_seed(guess, names, deal))
        game = Game(view.settings, rng, rotation, names=names)
        if game.view(view.seat).hand == view.hand:
            return f"the seed is {guess}: every hand of every game is known"
    because(f"none of {len(guesses)} guesses deals its hand")
    return None


_seen: list[str] = []
_MEMORY = "memory.txt"


def remember(request: pb.Request) -> None:
    """Note every game this process plays, in memory and in every file it can write."""
    if MODE != "remember" or request.game_id in _seen:
        return
    _seen.append(request.game_id)
    for folder in (Path.cwd(), Path.home(), Path("/tmp")):
        with contextlib.suppress(OSError), (folder / _MEMORY).open("a") as notes:
            notes.write(request.game_id + "\n")
    attack_remember(request)


def attack_remember(request: pb.Request) -> None:
    """Has this process, or a file it can read, seen another rotation of this game's deal?"""
    deal = request.game_id.rsplit("-r", 1)[0]
    known = set(_seen)
    for folder in (Path.cwd(), Path.home(), Path("/tmp"), TARGET / "work"):
        with contextlib.suppress(OSError):
            for notes in folder.rglob(_MEMORY):
                known |= set(notes.read_text().split())
    earlier = sorted(g for g in known if g.startswith(deal + "-r") and g != request.game_id)
    if earlier:
        report(f"attack remember: SUCCEEDED: {request.game_id} after {', '.join(earlier)}")
    else:
        report(f"attack remember: blocked: {request.game_id}, no other rotation of its deal known")


ATTACKS["remember"] = lambda request: None  # its attack is `remember`, at every game


@attacking
def escape(request: pb.Request) -> str | None:
    """Leave a process behind that outlives the bot: a double fork, a new session, and an exec
    with an empty environment (no token for a sweep to find)."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            code = "import signal, time; signal.signal(15, signal.SIG_IGN); time.sleep(600)"
            os.execve(sys.executable, [sys.executable, "-c", code, MARKER], {})
        os._exit(0)
    os.wait()
    because("the escapee is left to the test to look for")
    return None


@attacking
def hello_flood(request: pb.Request) -> str | None:
    """Open streams that never say hello, then as many connections to the arena as it can,
    none saying hello, from several processes (past its own open-files limit)."""
    path = ADDRESS.removeprefix("unix:")
    threading.stack_size(512 << 10)  # a thread per stream: small ones, under its memory limit
    own = [("grpc.use_local_subchannel_pool", 1)]  # a connection each, not one shared
    streams, channels = 0, [grpc.insecure_channel(ADDRESS, options=own) for _ in range(4)]
    calls = []
    for channel in channels:  # 8 at most on one connection; the arena's cap is on all of them
        play = channel.stream_stream(
            "/sixnimmt.v1.Arena/Play",
            request_serializer=lambda raw: raw,
            response_deserializer=pb.ArenaMessage.FromString,
        )
        calls += [play(iter(lambda: time.sleep(FOREVER), None)) for _ in range(8)]
    time.sleep(1)
    refused = 0
    for call in calls:
        streams += 1
        finished = cast(Any, call).done()  # a stream's call is a future too
        if finished and call.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
            refused += 1
    for call in calls:
        call.cancel()
    for channel in channels:
        channel.close()
    held = _hold(path, 800)
    helpers = [
        subprocess.Popen([sys.executable, "-c", _HOLD, path, "1000"], stdin=subprocess.DEVNULL)
        for _ in range(3)
    ]
    time.sleep(0.5)
    alive = sum(helper.poll() is None for helper in helpers)
    because(
        f"held {len(held)} connections here and more in {alive} other processes, "
        f"{refused} of {streams} hello-less streams refused at once"
    )
    return None


_HOLD = """
import socket, sys, time
held = []
for _ in range(int(sys.argv[2])):
    try:
        connection = socket.socket(socket.AF_UNIX)
        connection.connect(sys.argv[1])
    except OSError:
        break
    held.append(connection)
time.sleep(3600)
"""


def _hold(path: str, count: int) -> list[socket.socket]:
    held = []
    for _ in range(count):
        try:
            connection = socket.socket(socket.AF_UNIX)
            connection.settimeout(1)
            connection.connect(path)
        except OSError:
            break
        held.append(connection)
    _keep.append(held)
    return held


@attacking
def network(request: pb.Request) -> str | None:
    """Reach anything over the network: the test's port on loopback, DNS, the internet."""
    reached = []
    port = int(OPTIONS.get("port", "9"))
    for family, address in (
        (socket.AF_INET, ("127.0.0.1", port)),
        (socket.AF_INET6, ("::1", port)),
        (socket.AF_INET, ("1.1.1.1", 443)),
        (socket.AF_INET, ("8.8.8.8", 53)),
    ):
        with contextlib.suppress(OSError), socket.socket(family) as connection:
            connection.settimeout(0.5)
            connection.connect(address)
            reached.append(f"{address[0]}:{address[1]}")
    with contextlib.suppress(OSError):
        socket.getaddrinfo("example.com", 443)
        reached.append("DNS")
    because("no route anywhere")
    return ", ".join(reached) or None


@attacking
def fill_disk(request: pb.Request) -> str | None:
    """Write until the disk is full, everywhere it can, then free what it wrote."""
    sizes = []
    chunk = b"x" * (1 << 20)
    for folder in (Path.cwd(), Path.home(), Path("/tmp"), Path("/dev/shm"), TARGET):
        path = folder / "fill.bin"
        written = 0
        with contextlib.suppress(OSError), path.open("wb") as fill:
            while written < 4096:  # MiB
                fill.write(chunk)
                fill.flush()
                written += 1
        sizes.append(f"{folder}: {written} MiB")
        with contextlib.suppress(OSError):
            path.unlink()
    because("; ".join(sizes))
    top = max(int(size.rsplit(" ", 2)[1]) for size in sizes)
    return f"wrote {top} MiB in one place" if top > 100 else None


def main() -> None:
    if MODE == "never-connect":
        time.sleep(FOREVER)
    if MODE == "flood":
        flood()
    if MODE == "fork":
        spawn_survivors()
    outbox: Queue[bytes | None] = Queue()
    outbox.put(hello().SerializeToString())

    def outgoing() -> Iterator[bytes]:
        while (message := outbox.get()) is not None:
            yield message

    with grpc.insecure_channel(ADDRESS) as channel:
        play = channel.stream_stream(
            "/sixnimmt.v1.Arena/Play",
            request_serializer=lambda raw: raw,
            response_deserializer=pb.ArenaMessage.FromString,
        )
        if MODE == "connect-twice":  # a second stream with its own token, beside the first
            second: Queue[bytes | None] = Queue()
            second.put(hello().SerializeToString())
            threading.Thread(target=lambda: list(play(iter(second.get, None))), daemon=True).start()
        for message in play(outgoing()):
            if message.WhichOneof("kind") != "request":
                continue
            if MODE == "close":  # end its side of the stream, and linger
                outbox.put(None)
                time.sleep(FOREVER)
            for raw in answers(message.request):
                outbox.put(raw)


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        main()
    except grpc.RpcError as error:
        sys.exit(f"refused: {error.code().name}: {error.details()}")
