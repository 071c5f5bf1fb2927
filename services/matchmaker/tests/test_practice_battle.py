"""A practice Skirmish battle against the CPU is started by the matchmaker, as every
match is: under its hold on the player, so no Triad match, ticket or table can begin
beside it however close the requests come (RULES.md 5: one game at a time)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from services.matchmaker import handlers_lobby, handlers_pairing, handlers_queues
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
        # Found from outside: the practice refused beside a battle starting was told
        # "your practice match is starting right now".
        refused = [str(r) for r in results if not isinstance(r, str)]
        if fakes.battles.active.get(player(name).player_id):
            assert not any("practice match" in said for said in refused), refused


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


def a_battle_begins_after_the_first_check(fakes: Fakes, name: str) -> None:
    """The battle service answers the first busy check "no battle", and a battle is in
    progress from then on: a practice battle that ran from end to end between a
    ticket's (or table's) check and its claim, which holds the player only until its
    battle exists."""
    first = [True]
    unpatched = fakes.battles.active_battle

    async def active_battle(player_id: str) -> str | None:
        if first[0]:
            first[0] = False
            fakes.battles.active[player(name).player_id] = "b-meanwhile"
            return None
        return await unpatched(player_id)

    fakes.battles.active_battle = active_battle  # type: ignore[method-assign]


@pytest.mark.parametrize("claim", ["ticket", "table"])
async def test_a_battle_begun_between_the_check_and_the_claim_withdraws_the_claim(
    ctx: Context, fakes: Fakes, claim: str
) -> None:
    """Found from outside: a practice battle and a Battle ticket asked in the same
    instant both succeeded now and then, and the player held a battle and a ticket."""
    ann = player("ann")
    a_battle_begins_after_the_first_check(fakes, "ann")

    async def ask() -> object:
        if claim == "ticket":
            return await handlers_queues.enqueue(ctx, "q1", ann, Mode.BATTLE, None)
        table = replace(PLAIN, random_deck=True)
        return await handlers_lobby.create_table(ctx, "q1", ann, table, None)

    with pytest.raises(FailedPrecondition, match="you are playing battle b-meanwh"):
        await ask()
    held = await handlers_queues.queue_status(ctx, ann.player_id)
    assert held.hosted is None
    assert held.view is None or held.view.ticket.state.value == "cancelled", held.view
    del fakes.battles.active[ann.player_id]  # the battle ends
    assert await ask(), "the refused request's id was freed: asked again, it succeeds"


async def test_a_ticket_paired_before_its_second_check_stands(ctx: Context, fakes: Fakes) -> None:
    """Found from outside: a Draft ticket paired in the instant after its claim met its
    own draft at the second check and was refused, while its pairing went on."""
    await handlers_queues.enqueue(ctx, "q-bea", player("bea"), Mode.DRAFT, None)
    unpatched = fakes.obligations.blocking
    ann_checks = [0]

    async def blocking(player_id: str, current_match_id: str = "") -> str | None:
        if player_id == player("ann").player_id:
            ann_checks[0] += 1
            if ann_checks[0] == 2:  # her second check: a pairing round came first
                assert await handlers_pairing.pair_all(ctx)
                fakes.obligations.blocked[player_id] = "finish your draft first"
        return await unpatched(player_id, current_match_id)

    fakes.obligations.blocking = blocking  # type: ignore[method-assign]
    ticket = await handlers_queues.enqueue(ctx, "q-ann", player("ann"), Mode.DRAFT, None)
    assert ann_checks[0] >= 2, "the pairing ran between the claim and the second check"
    assert fakes.drafts.created, "the draft the two tickets made"
    status = await handlers_queues.queue_status(ctx, player("ann").player_id)
    assert status.view is not None and status.view.ticket.ticket_id == ticket.ticket_id
    assert status.view.ticket.state.value != "cancelled"
