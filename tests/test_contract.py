"""The gRPC contract in proto/triad/v1 keeps its promises as a whole.

Reads the compiled descriptors with source info (what `make proto` compiles) and checks
what a reviewer would otherwise check by eye: every element documented, every mutating
RPC idempotent by request id, enums with an UNSPECIFIED zero, hidden cards with nothing
in them, and the public API free of internal types.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[1]
PROTO = ROOT / "proto"
READ_ONLY_PREFIXES = ("Get", "List", "BatchGet", "Watch", "Stream", "Validate", "HasPending")
STREAMS = {"OpenSession"}  # a server stream that changes nothing


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[descriptor_pb2.FileDescriptorProto]:
    out = tmp_path_factory.mktemp("contract") / "set.pb"
    well_known = Path(protoc.__file__).parent / "_proto"
    sources = sorted(str(p.relative_to(PROTO)) for p in PROTO.glob("triad/v1/*.proto"))
    code = protoc.main(
        [
            "protoc",
            f"-I{PROTO}",
            f"-I{well_known}",
            "--include_source_info",
            f"--descriptor_set_out={out}",
            *sources,
        ]
    )
    assert code == 0, "the contract does not compile"
    descriptors = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    return list(descriptors.file)


def _messages(
    prefix: str, messages: list[descriptor_pb2.DescriptorProto], path: tuple[int, ...]
) -> Iterator[tuple[str, descriptor_pb2.DescriptorProto, tuple[int, ...]]]:
    for index, message in enumerate(messages):
        here = (*path, index)
        yield f"{prefix}{message.name}", message, here
        yield from _messages(f"{prefix}{message.name}.", list(message.nested_type), (*here, 3))


def _documented(file: descriptor_pb2.FileDescriptorProto) -> set[tuple[int, ...]]:
    return {
        tuple(loc.path)
        for loc in file.source_code_info.location
        if loc.leading_comments.strip() or loc.trailing_comments.strip()
    }


def _elements(file: descriptor_pb2.FileDescriptorProto) -> Iterator[tuple[str, tuple[int, ...]]]:
    """Every documentable element of a file with its source-info path."""
    for name, message, path in _messages("", list(file.message_type), (4,)):
        yield name, path
        for i, field in enumerate(message.field):
            yield f"{name}.{field.name}", (*path, 2, i)
        for e, enum in enumerate(message.enum_type):
            yield f"{name}.{enum.name}", (*path, 4, e)
            for v, value in enumerate(enum.value):
                yield f"{name}.{enum.name}.{value.name}", (*path, 4, e, 2, v)
    for e, enum in enumerate(file.enum_type):
        yield enum.name, (5, e)
        for v, value in enumerate(enum.value):
            yield f"{enum.name}.{value.name}", (5, e, 2, v)
    for s, service in enumerate(file.service):
        yield service.name, (6, s)
        for m, method in enumerate(service.method):
            yield f"{service.name}.{method.name}", (6, s, 2, m)


def test_every_message_field_enum_value_service_and_rpc_is_documented(
    files: list[descriptor_pb2.FileDescriptorProto],
) -> None:
    documented = {file.name: _documented(file) for file in files}
    missing = [
        f"{file.name}: {name}"
        for file in files
        for name, path in _elements(file)
        if path not in documented[file.name]
    ]
    assert missing == []


def test_every_mutating_rpc_carries_a_request_id(
    files: list[descriptor_pb2.FileDescriptorProto],
) -> None:
    by_name = {
        f".{file.package}.{name}": message
        for file in files
        for name, message, _ in _messages("", list(file.message_type), ())
    }
    lacking = []
    for file in files:
        for service in file.service:
            for method in service.method:
                read_only = method.name.startswith(READ_ONLY_PREFIXES) or method.name in STREAMS
                fields = {f.name for f in by_name[method.input_type].field}
                if not read_only and "request_id" not in fields:
                    lacking.append(f"{service.name}.{method.name}")
    assert lacking == []


def test_every_enum_starts_with_an_unspecified_zero(
    files: list[descriptor_pb2.FileDescriptorProto],
) -> None:
    enums = [e for file in files for e in file.enum_type] + [
        e
        for file in files
        for _, message, _ in _messages("", list(file.message_type), ())
        for e in message.enum_type
    ]
    assert enums
    for enum in enums:
        assert enum.value[0].number == 0
        assert enum.value[0].name.endswith("_UNSPECIFIED"), enum.name


def test_a_hidden_card_carries_nothing() -> None:
    from triad.v1 import common_pb2

    assert list(common_pb2.HiddenCard.DESCRIPTOR.fields) == []
    slot = common_pb2.OpponentHandSlot.DESCRIPTOR
    assert {f.name for f in slot.fields} == {"revealed", "hidden"}
    assert {f.name for f in slot.oneofs[0].fields} == {"revealed", "hidden"}


def test_the_public_api_depends_only_on_common_types(
    files: list[descriptor_pb2.FileDescriptorProto],
) -> None:
    gateway = next(f for f in files if f.name == "triad/v1/gateway.proto")
    ours = [d for d in gateway.dependency if d.startswith("triad/")]
    assert ours == ["triad/v1/common.proto"]
    assert [s.name for s in gateway.service] == ["TriadGateway"]


def test_generated_code_is_importable_from_one_place() -> None:
    import triad.v1 as package
    from triad.v1 import (  # noqa: F401
        collection_pb2_grpc,
        events_pb2,
        gateway_pb2_grpc,
        match_pb2_grpc,
        matchmaker_pb2_grpc,
        rating_pb2_grpc,
    )

    assert Path(os.path.dirname(package.__file__)).resolve() == (ROOT / "gen" / "triad" / "v1")
