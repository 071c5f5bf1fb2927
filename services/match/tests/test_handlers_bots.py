"""A hard bot seat through the match service: timers, worker process, turn budget."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from random import Random

import pytest

from services.match import handlers
from services.match.bots import BotPool
from services.match.domain.events import MatchRules, Mode, SeatPlayer
from services.match.handlers import Context
from services.match.rules import Visibility
from services.match.tests.builders import ALL, hand
from services.match.tests.conftest import Clock
from services.platform.requests import Request

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("visibility", [Visibility.ALL_OPEN, Visibility.CLOSED])
async def test_a_hard_bot_seat_plays_from_a_worker_without_blocking_the_loop(
    ctx: Context, clock: Clock, visibility: Visibility
) -> None:
    players = (SeatPlayer("p-a", "Ann"), SeatPlayer("p-b", "[BOT] Hal", True, "hard"))
    setup = MatchRules(Mode.PRACTICE, ALL, visibility)
    async with BotPool(workers=1, seconds=0.3) as pool:
        ctx = dataclasses.replace(ctx, bot_pool=pool)
        created = await handlers.start_match(
            ctx, Request.of("mm", "c1", "m1"), "m1", setup, players, (hand("a"), hand("b"))
        )
        match = created.match
        rng = Random(3)
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        running = asyncio.create_task(ticker())
        thinking = 0.0
        while match.in_progress:
            if match.player(match.position.to_move).is_bot:
                started = time.perf_counter()
                assert await handlers.fire_due_timer(ctx)
                thinking += time.perf_counter() - started
                latest = await ctx.store.load("m1")
                assert latest is not None
                match = latest
            else:
                seat = match.position.to_move
                index, cell = rng.choice(match.position.legal_moves())
                card_id = match.position.hand(seat)[index].id
                match = await handlers.place_card(
                    ctx, Request.of("p-a", f"h{match.version}", "m1", card_id, cell), "m1",
                    "p-a", card_id, cell,
                )  # fmt: skip
        running.cancel()
    assert match.finished is not None and not match.finished.rated
    assert ticks >= thinking / 0.01 * 0.5  # the event loop kept running while bots thought
