"""Whether the backend drained once the load stopped (chaos invariants,
tests/chaos/invariants.py): nothing left running, seated, queued, hosted, locked or
open (``stuck``, ``nobody_stuck``), and the event pipeline caught up: every relay has
published the whole log, every durable consumer has nothing pending, every event a
consumer is for carries its processed mark (``caught_up``). tests/chaos/pipeline.py
polls the same readings until they hold.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from tests.chaos.invariants import Check, Layout, _t


async def stuck(conn: Any, layout: Layout) -> dict[str, int]:
    """What should be empty once the load has drained: any count above 0 is stuck."""
    m, mm, c = layout.match, layout.matchmaker, layout.collection
    queries = {
        "matches_running": f"SELECT count(*) FROM {_t(m, 'match_timers')}",
        "players_in_a_match": f"SELECT count(*) FROM {_t(m, 'active_matches')}",
        "matches_never_finished": (
            f"SELECT count(DISTINCT stream_id) FROM {_t(m, 'events')} e "
            "WHERE e.type = 'triad.v1.MatchCreated' AND NOT EXISTS (SELECT 1 FROM "
            f"{_t(m, 'events')} f WHERE f.stream_id = e.stream_id "
            "AND f.type = 'triad.v1.MatchFinished')"
        ),
        "tickets_waiting": (
            f"SELECT count(*) FROM {_t(mm, 'tickets')} WHERE state IN ('queued', 'claimed')"
        ),
        "players_engaged": f"SELECT count(*) FROM {_t(mm, 'engaged_players')}",
        "match_starts_pending": (
            f"SELECT count(*) FROM {_t(mm, 'match_starts')} WHERE state = 'pending'"
        ),
        "tables_open": (
            f"SELECT count(*) FROM {_t(mm, 'lobby_tables')} WHERE state IN ('open', 'joining')"
        ),
        # An open Auction House listing holds its copy for up to 48 hours by design.
        "copies_locked": f"SELECT count(*) FROM {_t(c, 'locks')} WHERE holder_kind <> 'listing'",
        "trades_open": f"SELECT count(*) FROM {_t(c, 'trades')} WHERE completed_at IS NULL",
        "drafts_open": f"SELECT count(*) FROM {_t(c, 'drafts')} WHERE open",
        "battles_in_progress": f"SELECT count(*) FROM {_t(layout.battle, 'open_battles')}",
    }
    return {name: int(await conn.fetchval(sql)) for name, sql in queries.items()}


def nobody_stuck(counts: Mapping[str, int]) -> Check:
    check = Check("no player left in a match or a queue")
    check.counts = dict(counts)
    for name, value in counts.items():
        if value:
            check.problem(f"{value} {name.replace('_', ' ')}")
    return check


async def relay_backlog(
    conn: Any, layout: Layout, before: datetime | None = None
) -> dict[str, int]:
    """Per relay: events committed (before ``before``, if given) not yet published."""
    backlog = {}
    for name, schema in layout.relays.items():
        backlog[name] = int(
            await conn.fetchval(
                f"SELECT count(*) FROM {_t(schema, 'events')} e "
                f"LEFT JOIN {_t(schema, 'relay_checkpoints')} c ON c.name = $1 "
                "WHERE (c.name IS NULL OR (e.tx_id, e.seq) > (c.tx_id, c.seq)) "
                "AND ($2::timestamptz IS NULL OR e.recorded_at < $2)",
                name,
                before,
            )
        )
    return backlog


async def unmarked(conn: Any, layout: Layout, before: datetime | None = None) -> dict[str, int]:
    """Per durable consumer: events of its type (before ``before``) without its mark."""
    missing = {}
    for durable, (schema, event_type) in layout.consumers.items():
        total = 0
        for source in {layout.match, layout.matchmaker, layout.collection}:
            total += int(
                await conn.fetchval(
                    f"SELECT count(*) FROM {_t(source, 'events')} e WHERE e.type = $1 "
                    "AND ($3::timestamptz IS NULL OR e.recorded_at < $3) AND NOT EXISTS ("
                    f"SELECT 1 FROM {_t(schema, 'processed_events')} p "
                    "WHERE p.consumer = $2 AND p.event_id = e.event_id)",
                    event_type,
                    durable,
                    before,
                )
            )
        missing[durable] = total
    return missing


async def jetstream_state(js: Any, layout: Layout) -> dict[str, Any]:
    """The stream's message count and each durable consumer's pending counts."""
    info = await js.stream_info(layout.stream)
    consumers = {}
    for durable in layout.consumers:
        ci = await js.consumer_info(layout.stream, durable)
        consumers[durable] = {
            "pending": int(ci.num_pending or 0),
            "ack_pending": int(ci.num_ack_pending or 0),
            "redelivered": int(ci.num_redelivered or 0),
        }
    return {"messages": int(info.state.messages), "consumers": consumers}


async def caught_up(conn: Any, js: Any, layout: Layout) -> Check:
    """The whole pipeline idle: nothing to publish, nothing pending, every mark written."""
    check = Check("every consumer caught up")
    backlog = await relay_backlog(conn, layout)
    missing = await unmarked(conn, layout)
    state = await jetstream_state(js, layout)
    events = 0
    for schema in set(layout.relays.values()):
        events += int(await conn.fetchval(f"SELECT count(*) FROM {_t(schema, 'events')}"))
    for name, behind in backlog.items():
        if behind:
            check.problem(f"relay {name}: {behind} events not published")
    for durable, count in missing.items():
        if count:
            check.problem(f"consumer {durable}: {count} events without a processed mark")
    for durable, pending in state["consumers"].items():
        if pending["pending"] or pending["ack_pending"]:
            check.problem(f"consumer {durable}: {json.dumps(pending)}")
    if state["messages"] < events:
        check.problem(f"the stream holds {state['messages']} messages for {events} events")
    check.counts = {
        "events_logged": events,
        "stream_messages": state["messages"],
        **{f"relay_{k}_unpublished": v for k, v in backlog.items()},
        **{f"consumer_{k}_unmarked": v for k, v in missing.items()},
        **{
            f"consumer_{k}_{field}": v
            for k, pending in state["consumers"].items()
            for field, v in pending.items()
        },
    }
    return check
