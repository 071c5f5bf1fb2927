"""A hard bot seat through the match service: timers, worker process, turn budget."""

from __future__ import annotations

import dataclasses
import time
from random import Random

import pytest

from services.match import codec, domain, handlers, handlers_timers
from services.match.bots import BotPool
from services.match.domain.events import MatchRules, Mode, SeatPlayer
from services.match.handlers import Context
from services.match.tests.builders import ALL, hand
from services.match.tests.conftest import Clock
from services.match.tests.test_realm import EVERYTHING, realm_card
from services.platform.requests import Request
from services.rules import Visibility
from services.rules.realm import CreatureType

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
        # The search's CPU is spent in the worker: this thread only loads and saves.
        # CPU time, not wall time, so a busy machine cannot fail or pass it by chance.
        waited = spent = 0.0
        while match.in_progress:
            if match.player(match.position.to_move).is_bot:
                started, cpu = time.perf_counter(), time.thread_time()
                assert await handlers_timers.fire_due_timer(ctx)
                waited += time.perf_counter() - started
                spent += time.thread_time() - cpu
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
    assert match.finished is not None and not match.finished.rated
    assert waited >= 0.3  # the bots did think
    assert spent < waited * 0.5  # ... and not on the event loop's thread


async def test_a_hard_bot_plays_a_realm_table_from_a_worker_and_the_log_rebuilds_it(
    ctx: Context,
) -> None:
    """RULES.md 17: the bot's Realm knowledge crosses into the worker process, its moves
    (Lair included) are saved, and a state loaded from the log is the one played."""
    players = (SeatPlayer("p-a", "Ann"), SeatPlayer("p-b", "[BOT] Hal", True, "hard"))
    pile = tuple(realm_card(f"pile{i}") for i in range(10))
    setup = MatchRules(
        Mode.PRACTICE, ALL, Visibility.CLOSED, sudden_death=True, realm=dataclasses.replace(
            EVERYTHING, same=True, plus=True
        ),
    )  # fmt: skip
    sides = [(i + 1, i + 2, i + 3, 9 - i) for i in range(5)]
    hands = (
        tuple(realm_card(f"a{i}", sides[i], CreatureType.CONSTRUCT) for i in range(5)),
        tuple(realm_card(f"b{i}", sides[i], CreatureType.DRAGON) for i in range(5)),
    )
    async with BotPool(workers=1, seconds=0.3) as pool:
        ctx = dataclasses.replace(ctx, bot_pool=pool)
        created = await handlers.start_match(
            ctx, Request.of("mm", "r1", "rm"), "rm", setup, players, hands, draw_pile=pile
        )
        match, rng = created.match, Random(5)
        while match.in_progress:
            if match.player(match.position.to_move).is_bot:
                assert await handlers_timers.fire_due_timer(ctx)
                latest = await ctx.store.load("rm")
                assert latest is not None
                match = latest
            else:
                seat = match.position.to_move
                card_id = match.position.hand(seat)[0].id
                cell = rng.choice(match.position.board.empty_cells)
                match = await handlers.place_card(
                    ctx, Request.of("p-a", f"h{match.version}", "rm", card_id, cell), "rm",
                    "p-a", card_id, cell,
                )  # fmt: skip
    assert match.finished is not None and match.realm is not None
    records = await ctx.store.records("rm", 0, 200)
    rebuilt = domain.fold([codec.decode_record(r, setup) for r in records])
    assert rebuilt is not None and rebuilt.realm == match.realm
    assert rebuilt.position == match.position and rebuilt.finished == match.finished
