"""The operators' read of a battle's stored events (GetBattleEvents): a page at a time,
from a version, with where the next page starts; a battle with no events is NotFound."""

from __future__ import annotations

from uuid import uuid4

import pytest

from services.battle import codec, handlers
from services.battle.domain.events import Created, Started
from services.battle.tests.builders import context, start
from services.platform.errors import NotFound


async def test_a_battles_events_come_a_page_at_a_time_each_naming_the_next() -> None:
    ctx, _, _ = context()
    state = await start(ctx)  # created, two formations, turn 1 begun
    assert state.version == 4
    first = await handlers.battle_events(ctx, "b1", 0, 3)
    assert [r.version for r in first.events] == [1, 2, 3] and first.next_version == 4
    last = await handlers.battle_events(ctx, "b1", first.next_version, 3)
    assert [r.version for r in last.events] == [4] and last.next_version == 0
    whole = await handlers.battle_events(ctx, "b1", 1, 4)
    assert [r.version for r in whole.events] == [1, 2, 3, 4] and whole.next_version == 0
    events = [codec.decode_record(r) for r in whole.events]
    assert isinstance(events[0], Created) and isinstance(events[-1], Started)
    beyond = await handlers.battle_events(ctx, "b1", 9, 3)
    assert beyond.events == [] and beyond.next_version == 0, "past the end: empty, not lost"


async def test_a_battle_with_no_events_is_not_found_and_a_short_id_is_told_to_be_whole() -> None:
    ctx, _, _ = context()
    await start(ctx)
    unknown = str(uuid4())
    with pytest.raises(NotFound) as whole:
        await handlers.battle_events(ctx, unknown, 1, 10)
    assert str(whole.value) == f"no battle {unknown}"
    with pytest.raises(NotFound) as short:
        await handlers.battle_events(ctx, "b2", 0, 10)
    assert str(short.value) == (
        "no battle b2: give the whole battle id, not the start the screens show"
    )
