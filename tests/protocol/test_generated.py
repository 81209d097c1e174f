"""The committed generated code matches proto/, and the proto file documents everything."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

from arena.protocol import SERVICE_NAME, pb, rpc

ROOT = Path(__file__).resolve().parents[2]
PROTO = "proto/sixnimmt/v1/arena.proto"
GENERATED = Path("arena/_proto/sixnimmt/v1")
FILES = ("arena_pb2.py", "arena_pb2.pyi", "arena_pb2_grpc.py", "arena_pb2_grpc.pyi")
MYPY_GRPC = Path(sys.executable).parent / "protoc-gen-mypy_grpc"
"""mypy-protobuf's plugin, which writes the stub for the gRPC code (grpcio-tools writes none)."""


def protoc(*args: str) -> None:
    """Run the pinned grpcio-tools protoc from the repository root, as `make proto` does (with
    mypy-protobuf's plugin at hand)."""
    plugin = f"--plugin=protoc-gen-mypy_grpc={MYPY_GRPC}"
    command = [sys.executable, "-m", "grpc_tools.protoc", "-Iarena/_proto=proto", plugin, *args]
    command.append(PROTO)
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True)


@pytest.mark.integration
def test_the_committed_generated_code_matches_the_proto_file(tmp_path: Path) -> None:
    out = str(tmp_path)
    protoc(
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_grpc_out={out}",
    )
    generated = sorted(p.name for p in (tmp_path / GENERATED).iterdir())
    assert generated == sorted(FILES)
    committed = {p.name for p in (ROOT / GENERATED).iterdir() if p.suffix in (".py", ".pyi")}
    assert committed - {"__init__.py"} == set(FILES), "stray files in the generated folder"
    stale = [
        name
        for name in FILES
        if (tmp_path / GENERATED / name).read_bytes() != (ROOT / GENERATED / name).read_bytes()
    ]
    assert not stale, (
        f"{', '.join(stale)} in {GENERATED} differ from what {PROTO} generates with "
        f"grpcio-tools {version('grpcio-tools')} and mypy-protobuf {version('mypy-protobuf')}: "
        "run `make proto` and commit the result"
    )


def test_the_generated_modules_import_package_absolute() -> None:
    grpc_module = (ROOT / GENERATED / "arena_pb2_grpc.py").read_text()
    assert "from arena._proto.sixnimmt.v1 import arena_pb2 as" in grpc_module
    assert pb.__name__ == "arena._proto.sixnimmt.v1.arena_pb2"
    assert rpc.__name__ == "arena._proto.sixnimmt.v1.arena_pb2_grpc"
    assert SERVICE_NAME == "sixnimmt.v1.Arena"
    assert hasattr(rpc, "ArenaStub") and hasattr(rpc, "add_ArenaServicer_to_server")


def undocumented(tmp_path: Path) -> list[str]:
    """Every message, field, oneof, enum, enum value, service and rpc with no comment before it."""
    out = tmp_path / "arena.desc"
    protoc(f"--descriptor_set_out={out}", "--include_source_info")
    (proto,) = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file
    comments = {
        tuple(loc.path): loc.leading_comments.strip() for loc in proto.source_code_info.location
    }
    elements: list[tuple[tuple[int, ...], str]] = []
    for i, message in enumerate(proto.message_type):  # 4: message_type
        elements.append(((4, i), message.name))
        elements += [
            ((4, i, 2, j), f"{message.name}.{f.name}") for j, f in enumerate(message.field)
        ]
        elements += [
            ((4, i, 8, j), f"{message.name}.{o.name}") for j, o in enumerate(message.oneof_decl)
        ]
    for i, enum in enumerate(proto.enum_type):  # 5: enum_type
        elements.append(((5, i), enum.name))
        elements += [((5, i, 2, j), v.name) for j, v in enumerate(enum.value)]
    for i, service in enumerate(proto.service):  # 6: service
        elements.append(((6, i), service.name))
        elements += [
            ((6, i, 2, j), f"{service.name}.{m.name}") for j, m in enumerate(service.method)
        ]
    return [name for path, name in elements if not comments.get(path)]


@pytest.mark.integration
def test_every_element_of_the_proto_file_is_documented(tmp_path: Path) -> None:
    assert undocumented(tmp_path) == [], f"document these in {PROTO}"


@pytest.mark.parametrize("name", ["ARENA_ADDRESS", "ARENA_TOKEN", "UNAUTHENTICATED"])
def test_the_proto_header_explains_the_connection(name: str) -> None:
    assert name in (ROOT / PROTO).read_text()
