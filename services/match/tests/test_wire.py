"""services.wire's timestamps and durations: the values protobuf's own conversions give."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp

from services import wire
from services.platform.errors import InvalidArgument

MOMENTS = [
    datetime(1970, 1, 1, tzinfo=UTC),
    datetime(2026, 11, 30, 12, 0, 0, 123_456, tzinfo=UTC),
    datetime(1969, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
    datetime(1, 1, 1, tzinfo=UTC),
    datetime(9999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
    datetime(2026, 3, 29, 2, 30, 0, 1, tzinfo=timezone(timedelta(hours=5, minutes=30))),
    datetime(2026, 3, 29, 2, 30, 0, 1, tzinfo=timezone(timedelta(hours=-8))),
    datetime(2026, 3, 29, 2, 30, 0, 500_000),  # naive: taken as UTC
]


@pytest.mark.parametrize("moment", MOMENTS, ids=str)
def test_a_timestamp_is_what_from_datetime_gives(moment: datetime) -> None:
    expected = Timestamp()
    expected.FromDatetime(moment)
    assert wire.timestamp(moment) == expected
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    stamp = wire.timestamp(moment)
    assert stamp is not None and wire.moment(stamp) == aware


def test_no_moment_is_no_timestamp() -> None:
    assert wire.timestamp(None) is None


@pytest.mark.parametrize(
    "seconds", [0, 60, 60.0, 0.5, 1e-6, 120.000_001, 86_400 * 3 + 0.25, -0.5, -1, -90.75]
)
def test_a_duration_is_what_from_timedelta_gives(seconds: float) -> None:
    expected = Duration()
    expected.FromTimedelta(timedelta(seconds=seconds))
    assert wire.duration(seconds) == expected
    assert wire.duration(seconds).ToTimedelta() == timedelta(seconds=seconds)


@pytest.mark.parametrize("seconds", [0, 60, 0.25, 172_800, -1.5, 315_576_000_000])
def test_a_span_is_what_to_timedelta_gives(seconds: float) -> None:
    assert wire.span(wire.duration(seconds), "d") == wire.duration(seconds).ToTimedelta()


@pytest.mark.parametrize(
    ("seconds", "nanos"),
    [(60, -1), (-60, 1), (0, 1_000_000_000), (315_576_000_001, 0), (2**63 - 1, 0)],
)
def test_a_span_that_is_no_valid_duration_is_refused_naming_the_field(
    seconds: int, nanos: int
) -> None:
    with pytest.raises(InvalidArgument, match="lasting is not a valid duration"):
        wire.span(Duration(seconds=seconds, nanos=nanos), "lasting")
