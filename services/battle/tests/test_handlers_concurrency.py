"""Commands on one battle arriving at once (both players commit in the same instant):
they take turns in the process, so neither decides on a state the other is replacing."""

from __future__ import annotations

import asyncio

from services.battle import handlers
from services.battle.store.memory import MemoryBattles
from services.battle.store.port import Write
from services.battle.tests.builders import ANN, BEA, context, key, start
from services.platform.eventstore import WrongExpectedVersion
from services.platform.keyedlocks import KeyedLocks


class SlowSaves(MemoryBattles):
    """Saves that yield to the event loop first (as a round trip does), counting those
    that found the battle moved on."""

    def __init__(self) -> None:
        super().__init__()
        self.conflicts = 0

    async def save(self, write: Write) -> None:
        await asyncio.sleep(0)
        try:
            await super().save(write)
        except WrongExpectedVersion:
            self.conflicts += 1
            raise


async def test_both_players_committing_at_once_resolve_the_turn_once_without_a_conflict() -> None:
    store = SlowSaves()
    ctx, _, announced = context(store)
    state = await start(ctx)
    first, second = await asyncio.gather(
        handlers.commit_plan(ctx, key(ANN), "b1", ANN, state.turn, ()),
        handlers.commit_plan(ctx, key(BEA), "b1", BEA, state.turn, ()),
    )
    assert store.conflicts == 0
    assert first.state.turn == 1 and first.state.plans[0] == ()
    assert second.state.turn == 2 and second.state.plans == (None, None)
    resolved = [s for s in announced.states if s.turn == 2 and s.version > state.version]
    assert len(resolved) == 1, "the turn resolved once"
    assert len(ctx.locks) == 0, "no lock outlives its commands"


async def test_a_key_s_lock_serialises_its_holders_and_leaves_other_keys_free() -> None:
    locks, order = KeyedLocks(), []

    async def hold(key: str, tag: str) -> None:
        async with locks.hold(key):
            order.append(f"{tag}+")
            await asyncio.sleep(0.01)
            order.append(f"{tag}-")

    await asyncio.gather(hold("a", "a1"), hold("a", "a2"), hold("b", "b1"))
    assert order.index("a1-") < order.index("a2+"), order
    assert order.index("b1+") < order.index("a1-"), "another key does not wait"
    assert len(locks) == 0
