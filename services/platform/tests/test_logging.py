"""Logging: one JSON object per line, with the service and the ids bound for the request."""

from __future__ import annotations

import logging

import pytest
import structlog

from services.platform.tests.logcapture import captured_logs


def test_a_line_carries_time_level_service_and_the_bound_ids() -> None:
    with captured_logs("match") as logs:
        structlog.contextvars.bind_contextvars(match_id="m-1", player_id="p-2")
        structlog.get_logger("services.match").info("card placed", cell=4)
        [line] = logs.all()

    assert line["event"] == "card placed"
    assert line["cell"] == 4
    assert line["level"] == "info"
    assert line["service"] == "match"
    assert line["logger"] == "services.match"
    assert (line["match_id"], line["player_id"]) == ("m-1", "p-2")
    assert line["timestamp"].endswith("Z")


def test_stdlib_logging_comes_out_the_same_way_with_its_traceback() -> None:
    with captured_logs("gateway") as logs:
        structlog.contextvars.bind_contextvars(request_id="r-9")
        try:
            raise ValueError("bad frame")
        except ValueError:
            logging.getLogger("some.library").exception("%s failed", "decode")
        [line] = logs.all()

    assert line["event"] == "decode failed"
    assert line["level"] == "error"
    assert line["service"] == "gateway"
    assert line["request_id"] == "r-9"
    assert "ValueError: bad frame" in line["exception"]


def test_lines_below_the_level_are_dropped() -> None:
    with captured_logs(level="warning") as logs:
        structlog.get_logger().info("chatter")
        logging.getLogger("lib").info("chatter")
        structlog.get_logger().warning("worth reading")

        assert [line["event"] for line in logs.all()] == ["worth reading"]


def test_an_unknown_level_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'LOUD'"), captured_logs(level="LOUD"):
        pass
