"""Structured logs: one JSON object per line on stdout, for structlog and stdlib loggers alike.

Every line carries a UTC timestamp, the level, the logger, the service name and whatever
is bound in ``structlog.contextvars`` (``match_id``, ``player_id``, ``request_id``...).
Each RPC runs in its own asyncio task, hence its own context, so ids bound while
handling one request never show up in another's lines.

Everything is rendered by one stdlib handler (structlog's ``ProcessorFormatter``), so
libraries that log through ``logging`` (grpc, asyncpg, nats) come out in the same
format, level filter and stream as our own lines.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger


def configure_logging(
    service: str,
    level: str = "INFO",
    json: bool = True,
    *,
    stream: TextIO | None = None,
) -> None:
    """Route structlog and stdlib logging to ``stream`` (stdout by default).

    ``json=False`` renders for a human at a terminal. Call once at the start of
    ``main()``; calling again replaces the previous set-up rather than adding to it.
    """
    numeric_level = _level(level)
    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _ServiceName(service),
    ]
    structlog.configure(
        processors=[
            # Drop disabled levels before any work is done on the event.
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        # Not cached: loggers made at import time (module-level get_logger) must follow
        # a configuration made later in main(), and tests reconfigure freely.
        cache_logger_on_first_use=False,
    )

    final: list[Processor] = [structlog.stdlib.ProcessorFormatter.remove_processors_meta]
    if json:
        final += [structlog.processors.format_exc_info, structlog.processors.JSONRenderer()]
    else:
        final.append(structlog.dev.ConsoleRenderer())
    handler = logging.StreamHandler(sys.stdout if stream is None else stream)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(foreign_pre_chain=shared, processors=final)
    )

    root = logging.getLogger()
    # Replacing, not adding: a second handler would print every line twice.
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(numeric_level)
    logging.captureWarnings(True)


class _ServiceName:
    """Stamps the service on every line, so one log stream can hold every service."""

    def __init__(self, service: str) -> None:
        self._service = service

    def __call__(self, _logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
        event_dict.setdefault("service", self._service)
        return event_dict


def _level(name: str) -> int:
    levels = logging.getLevelNamesMapping()
    try:
        return levels[name.strip().upper()]
    except KeyError:
        known = ", ".join(sorted(levels, key=levels.__getitem__))
        raise ValueError(f"unknown log level {name!r}; use one of {known}") from None
