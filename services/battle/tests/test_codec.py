"""Battle events <-> stored bytes: every kind comes back equal, each is stamped with its
schema version, and a payload from a newer release is refused, not misread."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.battle import codec
from services.battle.domain.events import (
    Event,
    Finished,
    FinishReason,
    FormationSet,
    PlanSet,
    SeatTakenOver,
)
from services.battle.rules import Action, Target
from services.battle.tests.builders import ANN, BEA, commit, context, start
from services.platform.codec import NewerVersion

AT = datetime(2026, 1, 1, tzinfo=UTC)


async def logged() -> list[Event]:
    ctx, _, _ = context()
    await start(ctx)
    await commit(ctx, "b1", ANN)
    await commit(ctx, "b1", BEA)
    records = await ctx.store.events.read_stream(codec.stream_id("b1"))  # type: ignore[attr-defined]
    return [codec.decode_record(r) for r in records]


async def test_every_event_of_a_battle_comes_back_equal_from_its_bytes() -> None:
    events = [
        *(await logged()),
        FormationSet(1, ((0, 0), (1, 1), (2, 2)), by_default=True),
        PlanSet(0, 2, (Action("ember", "ember.jab", Target(1, 0)),), AT),
        PlanSet(0, 2, (), AT),
        SeatTakenOver(0, "greedy"),
        Finished(1, FinishReason.DISCONNECT, AT),
    ]
    kinds = set()
    for version, event in enumerate(events, start=1):
        stored = codec.new_event("b1", version, event, [ANN, BEA])
        assert stored.schema_version == codec.SCHEMA_VERSION
        assert stored.event_id == codec.event_id("b1", version)
        assert codec.decode(stored.type, stored.schema_version, stored.data) == event
        kinds.add(stored.type)
    assert kinds == {
        "triad.v1.BattleCreated",
        "triad.v1.BattleFormationSet",
        "triad.v1.BattleStarted",
        "triad.v1.BattlePlanSet",
        "triad.v1.BattlePlanCommitted",
        "triad.v1.BattleTurnResolved",
        "triad.v1.BattleSeatTakenOver",
        "triad.v1.BattleFinished",
    }


def test_a_payload_from_a_newer_release_is_refused() -> None:
    stored = codec.new_event("b1", 1, SeatTakenOver(0, "greedy"), [ANN, BEA])
    with pytest.raises(NewerVersion, match="run the newer release"):
        codec.decode(stored.type, codec.SCHEMA_VERSION + 1, stored.data)
