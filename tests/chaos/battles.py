"""The chaos run's Skirmish checks (issue 23): every CommitPlan the gateway acknowledged
is in its battle's log as that player's plan for that turn, with the cards sent, and no
battle resolved a turn twice (each battle's turns resolve 1, 2, 3... once each)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bench.load_records import AckedPlan
from services.battle import codec
from services.battle.domain.events import Created, PlanCommitted, TurnResolved
from services.platform.migrations import quote_schema
from tests.chaos.invariants import Check


async def battles_consistent(conn: Any, schema: str, acked: Sequence[AckedPlan]) -> Check:
    check = Check("acknowledged plans in the battle log, no turn resolved twice")
    rows = await conn.fetch(
        f"SELECT stream_id, type, schema_version, data FROM {quote_schema(schema)}.events "
        "WHERE stream_id LIKE 'battle-%' ORDER BY stream_id, version"
    )
    seats: dict[str, dict[str, int]] = {}
    plans: dict[tuple[str, int, int], tuple[str, ...]] = {}
    turns: dict[str, list[int]] = {}
    for row in rows:
        battle_id = row["stream_id"].removeprefix("battle-")
        event = codec.decode(row["type"], row["schema_version"], row["data"])
        if isinstance(event, Created):
            seats[battle_id] = {s.player_id: i for i, s in enumerate(event.seats) if s.player_id}
        elif isinstance(event, PlanCommitted):
            key = (battle_id, event.seat, event.turn)
            if key in plans:
                check.problem(
                    f"battle {battle_id}: seat {event.seat} committed turn {event.turn} twice"
                )
            plans[key] = tuple(a.card for a in event.plan)
        elif isinstance(event, TurnResolved):
            turns.setdefault(battle_id, []).append(event.turn)
    for battle_id, resolved in turns.items():
        if resolved != list(range(1, len(resolved) + 1)):
            check.problem(f"battle {battle_id}: turns resolved in the order {resolved}")
    found = 0
    for plan in acked:
        seat = seats.get(plan.battle_id, {}).get(plan.player_id)
        logged = None if seat is None else plans.get((plan.battle_id, seat, plan.turn))
        if logged is None:
            check.problem(f"battle {plan.battle_id}: {plan.request_id} (turn {plan.turn}) lost")
        elif logged != plan.cards:
            check.problem(f"battle {plan.battle_id} turn {plan.turn}: {logged} for {plan.cards}")
        else:
            found += 1
    check.counts = {
        "battles": len(seats),
        "turns_resolved": sum(len(t) for t in turns.values()),
        "plans_acknowledged": len(acked),
        "plans_found": found,
    }
    return check
