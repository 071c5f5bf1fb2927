"""A practice Skirmish battle against the CPU is started by the matchmaker, as every
match is: under its hold on the player, so no Triad match, ticket or table can begin
beside it however close the requests come (RULES.md 5: one game at a time)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from services.matchmaker import handlers_lobby, handlers_queues
from services.matchmaker.domain import BattleLevel, DeckChoice, Mode
from services.matchmaker.handlers import Context
from services.matchmaker.tests.conftest import Fakes, player
from services.matchmaker.tests.test_lobby import PLAIN
from services.platform.errors import DomainError, FailedPrecondition, InvalidArgument

TEAM = ("ember", "bastion", "wisp")
RANDOM = DeckChoice(random=True)


async def battle(ctx: Context, request_id: str, name: str = "ann") -> str:
    return await handlers_queues.start_practice_battle(
        ctx, request_id, player(name), BattleLevel.SEARCH, TEAM
    )


async def test_the_battle_seats_the_player_with_their_team_and_the_cpu_once(
    ctx: Context, fakes: Fakes
) -> None:
    battle_id = await battle(ctx, "r1")
    assert await battle(ctx, "r1") == battle_id, "a retry answers the same battle"
    [me, cpu] = fakes.battles.seats[battle_id]
    assert (me.player_id, me.characters, me.battle_level) == (player("ann").player_id, TEAM, None)
    assert (cpu.player_id, cpu.battle_level, cpu.is_bot) == ("", BattleLevel.SEARCH, True)
    assert len(fakes.battles.created) == 1
    with pytest.raises(FailedPrecondition, match="playing battle"):
        await battle(ctx, "r2")


async def test_a_battle_and_a_triad_practice_asked_at_once_start_one_game(
    ctx: Context, fakes: Fakes
) -> None:
    """Found from outside: both started (the battle was begun by the gateway, outside
    the matchmaker's hold), and the player had a match and a battle at once."""
    for round_ in range(6):
        name = f"p{round_}"
        results = await asyncio.gather(
            battle(ctx, f"b{round_}", name),
            handlers_queues.start_practice(
                ctx, f"m{round_}", player(name), Mode.UNRANKED, None, RANDOM, None
            ),
            return_exceptions=True,
        )
        started = [r for r in results if isinstance(r, str)]
        assert len(started) == 1, results
        assert all(isinstance(r, DomainError) for r in results if not isinstance(r, str))
        games = bool(fakes.battles.active.get(player(name).player_id)) + len(
            fakes.matches.of(player(name).player_id)
        )
        assert games == 1


async def test_no_battle_beside_a_queued_ticket_or_an_open_table(
    ctx: Context, fakes: Fakes
) -> None:
    await handlers_queues.enqueue(ctx, "q1", player("ann"), Mode.BATTLE, None)
    with pytest.raises(FailedPrecondition, match="queued ticket"):
        await battle(ctx, "r1", "ann")
    await handlers_lobby.create_table(
        ctx, "t1", player("bea"), replace(PLAIN, random_deck=True), None
    )
    with pytest.raises(FailedPrecondition, match="open table"):
        await battle(ctx, "r2", "bea")
    assert not fakes.battles.created


async def test_a_team_the_battle_service_refuses_is_an_invalid_argument(
    ctx: Context, fakes: Fakes
) -> None:
    fakes.battles.refuse = InvalidArgument("no character 'nobody' in the roster")
    with pytest.raises(InvalidArgument, match="nobody"):
        await battle(ctx, "r1")
    fakes.battles.refuse = None
    assert await battle(ctx, "r2"), "the player was let go: a new request starts"
