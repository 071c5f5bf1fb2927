"""When a challenge to the player expires if they do not take it up (the table's
``expire_time``, RULES.md 14), in the player's local time with its zone: the lists
(``challenges``, ``tables``, ``status``) and the screen's notice of a challenge say it."""

from __future__ import annotations

from datetime import UTC, datetime

from triad.v1 import common_pb2 as pb


def expiry(table: pb.Table, lead: str = "; ", now: datetime | None = None) -> str:
    """``lead`` and 'expires at 14:05:31 CET' (the date too, where it is not today), or
    '' if the server sent no expiry."""
    if not table.HasField("expire_time"):
        return ""
    at = table.expire_time.ToDatetime(tzinfo=UTC).astimezone()
    today = (now or datetime.now(UTC)).astimezone().date()
    shape = "%H:%M:%S %Z" if at.date() == today else "%Y-%m-%d %H:%M:%S %Z"
    return f"{lead}expires at {at.strftime(shape)}"
