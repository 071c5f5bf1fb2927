"""The match service's reads: a match as one player may see it, the match a player is
seated in, and a page of a match's stored events for operators (paged as the platform's
``eventpages`` pages every stream). Like ``handlers.py``, no protobuf, SQL or NATS here;
they share its :class:`~services.match.handlers.Context`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from services.match import domain
from services.match.handlers import Context
from services.platform.eventpages import EventsPage, events_page
from services.rules import Seat


async def view(
    ctx: Context, match_id: str, player_id: str, known: int | None = None
) -> domain.Match:
    """The match as ``player_id`` may see it; ``known``: a version known committed, so a
    cached state that reached it needs no read of the log (``MatchStore.load``)."""
    match = await ctx.store.load(match_id, known)
    if match is None:
        raise domain.no_match(match_id)
    match.seat_of(player_id)  # strangers get the same NotFound
    return match


@dataclass(frozen=True, slots=True)
class ActiveMatch:
    """The match a player is seated in and not finished, as they see it."""

    match: domain.Match
    seat: Seat


async def active_match(ctx: Context, player_id: str) -> ActiveMatch | None:
    match_id = await ctx.store.active_match(player_id)
    if match_id is None:
        return None
    match = await view(ctx, match_id, player_id)
    return ActiveMatch(match, match.seat_of(player_id))


async def away_since(ctx: Context, player_id: str) -> datetime | None:
    """Since when the player's latest session has been closed for good, if it has."""
    return await ctx.store.away_since(player_id)


async def match_events(ctx: Context, match_id: str, from_version: int, limit: int) -> EventsPage:
    """Up to ``limit`` stored events of a match from ``from_version`` (1 = the start)."""
    return await events_page(ctx.store.records, match_id, from_version, limit, "match")
