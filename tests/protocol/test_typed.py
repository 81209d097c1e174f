"""The wire is typed: mypy, with the project's configuration, sees the messages, the generated
service code and grpc itself, so a misspelt field or a wrong argument is a type error."""

from __future__ import annotations

import re
from pathlib import Path

import mypy.api
import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """\
import grpc
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection

from arena.protocol import pb, rpc


async def probe(channel: grpc.aio.Channel) -> None:
    pb.View().no_such_field  # line 9
    pb.Hello(no_such_field="x")  # line 10
    await rpc.ArenaStub(channel).Play().write(pb.Answer())  # line 11
    grpc.aio.insecure_channel(42)  # line 12
    health_pb2.HealthCheckRequest(no_such_field="x")  # line 13
    reflection.enable_server_reflection(["x"], 42)  # line 14
    hello: pb.Hello = pb.Hello(token="t")  # line 15: all well
    await rpc.ArenaStub(channel).Play().write(pb.BotMessage(hello=hello))  # line 16: all well
"""
"""A module of type errors on the wire, one a line, and two lines that are right."""


def test_mypy_sees_the_messages_the_service_stub_and_grpc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    monkeypatch.chdir(ROOT)  # so that `arena` is this working tree
    config = ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / "c")]
    stdout, stderr, _ = mypy.api.run([*config, "--no-pretty", str(probe)])
    # Only the probe's own errors: the modules it imports are checked by `make typecheck`.
    by_line: dict[int, str] = {}
    for number, error in re.findall(rf"^{re.escape(str(probe))}:(\d+): error: (.*)$", stdout, re.M):
        by_line[int(number)] = by_line.get(int(number), "") + error
    assert sorted(by_line) == list(range(9, 15)), stdout + stderr
    assert '"View" has no attribute "no_such_field"' in by_line[9]
    assert '"no_such_field" for "Hello"' in by_line[10]
    assert '"Answer"; expected "BotMessage"' in by_line[11]
    assert '"insecure_channel" has incompatible type "int"' in by_line[12]
    assert '"no_such_field" for "HealthCheckRequest"' in by_line[13]
    assert '"enable_server_reflection" has incompatible type "int"' in by_line[14]
