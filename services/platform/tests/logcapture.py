"""Run ``configure_logging`` into a buffer for one test, and put everything back after."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import structlog

from services.platform.logging import configure_logging


class LogLines:
    def __init__(self, buffer: io.StringIO) -> None:
        self._buffer = buffer

    def all(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self._buffer.getvalue().splitlines()]

    def events(self, event: str) -> list[dict[str, Any]]:
        return [line for line in self.all() if line.get("event") == event]


@contextmanager
def captured_logs(service: str = "test", level: str = "DEBUG") -> Iterator[LogLines]:
    root = logging.getLogger()
    handlers, root_level = root.handlers[:], root.level
    buffer = io.StringIO()
    configure_logging(service, level, stream=buffer)
    try:
        yield LogLines(buffer)
    finally:
        root.handlers[:] = handlers
        root.setLevel(root_level)
        logging.captureWarnings(False)
        structlog.reset_defaults()
        structlog.contextvars.clear_contextvars()
