"""The event-bytes mechanics every service's codec shares: a payload is stamped with its
schema version, read back at it (0 is 1), brought up through one upcaster per step, and
a newer version is refused or read as current as the service chooses. Pure."""

from __future__ import annotations

import pytest
from triad.v1 import events_pb2 as ev

from services.platform import codec
from services.platform.tests.logcapture import captured_logs

CLOSED = "triad.v1.TableClosed"


def closed(host: str) -> bytes:
    return ev.TableClosed(table_id="tb-1", host_player_id=host).SerializeToString()


def suffix(tag: str) -> codec.Upcaster:
    def step(data: bytes) -> bytes:
        message = ev.TableClosed.FromString(data)
        message.host_player_id += tag
        return message.SerializeToString()

    return step


UPCASTERS = {(CLOSED, 1): suffix("-v2"), (CLOSED, 2): suffix("-v3")}


def read(
    version: int,
    current: int = 3,
    on_newer: codec.OnNewer = codec.refuse_newer,
    unset_is_1: bool = True,
) -> str:
    data = codec.upcast(
        CLOSED,
        version,
        closed("host"),
        current=current,
        upcasters=UPCASTERS,
        on_newer=on_newer,
        unset_is_1=unset_is_1,
    )
    return ev.TableClosed.FromString(data).host_player_id


def test_an_encoded_payload_carries_its_type_name_and_the_version_it_is_written_at() -> None:
    encoded = codec.encode(ev.TableExpired(table_id="tb-1"), 4)
    assert (encoded.type, encoded.schema_version) == ("triad.v1.TableExpired", 4)
    assert ev.TableExpired.FromString(encoded.data).table_id == "tb-1"


def test_an_older_payload_passes_through_one_upcaster_per_version_behind() -> None:
    assert read(1) == "host-v2-v3"
    assert read(2) == "host-v3"
    assert read(3) == "host", "a payload at the current version is not upcast"


def test_a_version_left_unset_reads_as_version_1() -> None:
    assert codec.stored_version(0) == 1
    assert read(0) == read(1)


def test_a_reader_that_never_stores_version_0_can_refuse_it() -> None:
    with pytest.raises(codec.MissingUpcaster, match="from schema version 0"):
        read(0, unset_is_1=False)


def test_a_step_without_an_upcaster_is_refused() -> None:
    with pytest.raises(codec.MissingUpcaster, match=r"no upcaster for triad\.v1\.TableClosed"):
        read(3, current=4)
    with pytest.raises(ValueError):
        read(3, current=4)
    with pytest.raises(KeyError):
        read(3, current=4)


def test_a_newer_version_is_refused_when_the_service_refuses_it() -> None:
    with pytest.raises(codec.NewerVersion, match=r"newer than this service reads \(3\): run"):
        read(4)


def test_a_newer_version_is_logged_and_read_as_current_when_the_service_allows_it() -> None:
    with captured_logs() as logs:
        assert read(4, on_newer=codec.read_newer_as_current("svc")) == "host"
    [line] = logs.events("svc.newer_event_version")
    assert (line["event_type"], line["version"]) == (CLOSED, 4)


def test_a_reader_holds_a_services_choices_and_sees_upcasters_added_later() -> None:
    table: dict[tuple[str, int], codec.Upcaster] = {}
    reader = codec.Reader(table, codec.refuse_newer, unset_is_1=False)
    with pytest.raises(codec.MissingUpcaster):
        reader.upcast(CLOSED, 1, closed("host"), 2)
    table[CLOSED, 1] = suffix("-v2")
    upcast = ev.TableClosed.FromString(reader.upcast(CLOSED, 1, closed("host"), 2))
    assert upcast.host_player_id == "host-v2"
    with pytest.raises(codec.MissingUpcaster, match="from schema version 0"):
        reader.upcast(CLOSED, 0, closed("host"), 2)
    with pytest.raises(codec.NewerVersion):
        reader.upcast(CLOSED, 3, closed("host"), 2)
