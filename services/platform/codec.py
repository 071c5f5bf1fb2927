"""Event bytes, the part every service shares: the stored form of an event (type name,
schema version, payload bytes) and reading a payload written at an older version.

Each service's ``codec.py`` keeps its own field mappings and owns its version table and
upcasters (``UPCASTERS``: ``(type name, version) -> upcaster`` to ``version + 1``); this
module holds the mechanics around them, written once:

- :func:`encode` stamps a protobuf payload with the version it is written at;
- :func:`stored_version` reads the version back (0, an envelope that left it unset, is 1;
  a reader whose log never stores 0 may pass ``unset_is_1=False`` to refuse it instead);
- :func:`upcast` brings a payload up to the current version, one upcaster per step, and
  refuses a step that has no upcaster (:class:`MissingUpcaster`);
- a version newer than the reader knows is the caller's policy (:data:`OnNewer`):
  :func:`refuse_newer` (:class:`NewerVersion`, run the newer release) or
  :func:`read_newer_as_current` (log it and read it as the current one, as protobuf
  readers do with additive changes).

A service holds its choices in one :class:`Reader` and calls ``READER.upcast``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import structlog
from google.protobuf.message import Message

__all__ = [
    "Encoded",
    "MissingUpcaster",
    "NewerVersion",
    "OnNewer",
    "Reader",
    "Upcaster",
    "encode",
    "read_newer_as_current",
    "refuse_newer",
    "stored_version",
    "type_name",
    "upcast",
]

log = structlog.get_logger()

Upcaster = Callable[[bytes], bytes]
"""Turns the payload bytes of one schema version of an event type into the next's."""

OnNewer = Callable[[str, int, int], None]
"""What a reader does with ``(type name, version, current)`` when ``version > current``:
raise to refuse it, or return to read the payload as the current version."""


@dataclass(frozen=True, slots=True)
class Encoded:
    """One event as it is stored: its type name, schema version and payload bytes."""

    type: str
    schema_version: int
    data: bytes


class NewerVersion(ValueError):
    """A payload written at a schema version newer than this reader knows."""


class MissingUpcaster(ValueError, KeyError):
    """No upcaster from a payload's version to the next. A ``ValueError`` like every
    refused payload, and a ``KeyError`` as a lookup in the upcaster table."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def type_name(message: Message) -> str:
    """The full protobuf name of a payload, the type an event is stored under."""
    return str(message.DESCRIPTOR.full_name)


def encode(message: Message, version: int) -> Encoded:
    """The stored form of ``message``, stamped with schema ``version``."""
    return Encoded(type_name(message), version, message.SerializeToString())


def stored_version(version: int) -> int:
    """The schema version recorded beside a payload; 0 (left unset) is version 1."""
    return max(version, 1)


def refuse_newer(name: str, version: int, current: int) -> None:
    """The :data:`OnNewer` policy that refuses a payload from a newer release."""
    raise NewerVersion(
        f"{name} at schema version {version} is newer than this service reads "
        f"({current}): run the newer release"
    )


def read_newer_as_current(service: str) -> OnNewer:
    """The :data:`OnNewer` policy that logs ``<service>.newer_event_version`` and reads
    the payload as the current version."""

    def read(name: str, version: int, current: int) -> None:
        log.warning(f"{service}.newer_event_version", event_type=name, version=version)

    return read


def upcast(
    name: str,
    version: int,
    data: bytes,
    *,
    current: int,
    upcasters: Mapping[tuple[str, int], Upcaster],
    on_newer: OnNewer,
    unset_is_1: bool = True,
) -> bytes:
    """``data`` of event type ``name`` written at ``version`` brought up to ``current``,
    one upcaster per version behind; a newer ``version`` goes to ``on_newer``. With
    ``unset_is_1`` false, version 0 is taken as written (and finds no upcaster)."""
    if unset_is_1:
        version = stored_version(version)
    if version > current:
        on_newer(name, version, current)
    while version < current:
        step = upcasters.get((name, version))
        if step is None:
            raise MissingUpcaster(f"no upcaster for {name} from schema version {version}")
        data, version = step(data), version + 1
    return data


@dataclass(frozen=True, slots=True)
class Reader:
    """One service's way of reading its payloads back: its upcaster table (read at each
    call, so an entry added later counts), its newer-version policy, and whether version
    0 reads as 1."""

    upcasters: Mapping[tuple[str, int], Upcaster]
    on_newer: OnNewer
    unset_is_1: bool = True

    def upcast(self, name: str, version: int, data: bytes, current: int) -> bytes:
        """:func:`upcast` with this reader's table and policies."""
        return upcast(
            name,
            version,
            data,
            current=current,
            upcasters=self.upcasters,
            on_newer=self.on_newer,
            unset_is_1=self.unset_is_1,
        )
