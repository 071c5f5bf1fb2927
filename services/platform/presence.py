"""A player's presence as the match and battle services keep it: their latest gateway
session and whether it is open, and the game they missed.

Which report wins (:data:`REPORT_WINS` in SQL, :func:`report_wins` in memory): a
session opened later always replaces what is known; the same session's ending does,
and so does its opening again while it is open, but an opening that arrives after its
own ending (the two reports crossed) is the past and changes nothing.

A player's missed game, kept on their presence row: the match or battle that finished
while their latest session was closed, told once on their return (``ReportPresence``).

The match and battle services keep it in a ``presence`` table's ``missed_<kind>_id``
column (a trigger sets it when the game ends); :func:`take_missed` reads and clears it
in one statement. Their in-memory adapters keep it on a session record's ``missed``
attribute; :func:`take_missed_memory` does the same there.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

REPORT_WINS = (
    "p.opened_at < EXCLUDED.opened_at OR (p.session_id = EXCLUDED.session_id "
    "AND (p.connected OR NOT EXCLUDED.connected))"
)
"""The upsert's condition (``INSERT INTO <presence> AS p ... ON CONFLICT (player_id) DO
UPDATE ... WHERE`` this): the report, ``EXCLUDED``, replaces the row ``p``."""


class Known(Protocol):
    """An in-memory session record."""

    session_id: str
    opened_at: datetime
    connected: bool


def report_wins(known: Known | None, session_id: str, opened_at: datetime, connected: bool) -> bool:
    """:data:`REPORT_WINS` for the in-memory adapters: the report replaces ``known``."""
    if known is None:
        return True
    same = known.session_id == session_id
    return known.opened_at < opened_at or (same and (known.connected or not connected))


async def take_missed(pool: Any, table: str, column: str, player_id: str) -> str | None:
    """The id in the player's ``column`` of ``table`` (a schema-qualified presence
    table), cleared: the next call answers None until the column is set again."""
    value = await pool.fetchval(
        f"UPDATE {table} p SET {column} = NULL "
        f"FROM (SELECT player_id, {column} FROM {table} "
        f"WHERE player_id = $1 AND {column} IS NOT NULL FOR UPDATE) was "
        f"WHERE p.player_id = was.player_id RETURNING was.{column}",
        player_id,
    )
    return None if value is None else str(value)


class Missing(Protocol):
    """An in-memory session record: the game its player missed, if any."""

    missed: str | None


def take_missed_memory(known: Missing | None) -> str | None:
    """The game ``known`` (the player's latest session, if any) records as missed,
    cleared as :func:`take_missed` clears it."""
    if known is None:
        return None
    missed, known.missed = known.missed, None
    return missed
