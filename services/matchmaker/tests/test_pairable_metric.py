"""``triad_matchmaker_pairable_tickets``: what TriadNoPairingProgress pages on. Tickets a
round could seat are counted, players far from everyone are not (the window has a cap,
so they may wait for ever at a quiet hour), and a round that starts them leaves 0."""

from __future__ import annotations

from dataclasses import replace

from prometheus_client import CollectorRegistry

from services.matchmaker import handlers_pairing, handlers_queues
from services.matchmaker.domain import Mode
from services.matchmaker.handlers import Context
from services.matchmaker.metrics import MatchmakerMetrics
from services.matchmaker.tests.conftest import DECK, Clock, Fakes, player


def pairable(registry: CollectorRegistry, mode: Mode) -> float | None:
    return registry.get_sample_value("triad_matchmaker_pairable_tickets", {"mode": mode.value})


async def test_two_players_far_apart_are_not_pairable_however_long_they_wait(
    ctx: Context, fakes: Fakes, clock: Clock
) -> None:
    registry = CollectorRegistry()
    ctx = replace(ctx, metrics=MatchmakerMetrics.register(registry))
    assert pairable(registry, Mode.RANKED) == 0  # exported before the first round
    fakes.ratings.known.update({"id-ann": 1200, "id-bea": 1900})
    for name in ("ann", "bea"):
        await handlers_queues.enqueue(ctx, "q", player(name), Mode.RANKED, DECK)
    for _ in range(3):
        clock.advance(600)
        assert not await handlers_pairing.pair_all(ctx)
        assert pairable(registry, Mode.RANKED) == 0


async def test_players_a_round_can_seat_are_counted_and_gone_once_started(
    ctx: Context, fakes: Fakes
) -> None:
    registry = CollectorRegistry()
    ctx = replace(ctx, metrics=MatchmakerMetrics.register(registry))
    fakes.ratings.known.update({"id-ann": 1500, "id-bea": 1520})
    for name in ("ann", "bea"):
        await handlers_queues.enqueue(ctx, "q", player(name), Mode.RANKED, DECK)
    assert await handlers_pairing.pair_all(ctx)
    assert pairable(registry, Mode.RANKED) == 2
    assert not await handlers_pairing.pair_all(ctx)
    assert pairable(registry, Mode.RANKED) == 0
