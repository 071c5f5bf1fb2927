"""The custom-table lobby in memory: rules checked with reasons, private challenges
(refused to a player in a match, declined), filters by any rule, Find Game, joining
starts the match, closing, expiry."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any
from unittest.mock import patch

import pytest

from services.matchmaker import handlers_find, handlers_lobby, handlers_queues
from services.matchmaker.clients import StarterDecks
from services.matchmaker.domain import (
    Card,
    DeckChoice,
    Mode,
    RuleSet,
    Table,
    TableFilter,
    TableSettings,
    TableState,
    TradeRule,
    Visibility,
)
from services.matchmaker.handlers import Context, DeckRequest
from services.matchmaker.tests.conftest import DECK, Clock, Fakes, player
from services.platform.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
)

TRADING = TableSettings(RuleSet(Visibility.CLOSED, True, True, True, trade=TradeRule.ONE))


@pytest.mark.parametrize(
    ("rules", "reason"),
    [
        (
            RuleSet(Visibility.THREE_OPEN, True, True, True, trade=TradeRule.ONE),
            "Closed visibility",
        ),
        (RuleSet(Visibility.CLOSED, True, False, True, trade=TradeRule.ONE), "lacks Plus"),
        (RuleSet(Visibility.CLOSED, True, True, False, trade=TradeRule.ONE), "lacks Combo"),
        (RuleSet(Visibility.ALL_OPEN, combo=True), "Combo needs Same or Plus"),
    ],
)
async def test_incompatible_tables_are_refused_with_the_reason(
    ctx: Context, rules: RuleSet, reason: str
) -> None:
    with pytest.raises(InvalidArgument, match=reason):
        await handlers_lobby.create_table(ctx, "t", player("ann"), TableSettings(rules), DECK)


async def test_a_host_holds_one_table_and_no_ticket_meanwhile(ctx: Context) -> None:
    ann = player("ann")
    table = await handlers_lobby.create_table(ctx, "t", ann, TRADING, DECK)
    assert table == await handlers_lobby.create_table(ctx, "t", ann, TRADING, DECK)  # a retry
    with pytest.raises(AlreadyExists, match="already host"):
        await handlers_lobby.create_table(ctx, "t2", ann, TRADING, DECK)
    with pytest.raises(FailedPrecondition, match="already host"):
        await handlers_queues.enqueue(ctx, "q", ann, Mode.RANKED, DECK)
    hosted = (await handlers_queues.queue_status(ctx, ann.player_id)).hosted
    assert hosted is not None and hosted.table_id == table.table_id
    with pytest.raises(InvalidArgument, match="Random table"):
        await handlers_lobby.create_table(
            ctx, "t3", player("bo"), TableSettings(TRADING.rules, True), DECK
        )
    with pytest.raises(InvalidArgument, match="challenge yourself"):
        await handlers_lobby.create_table(ctx, "t3", player("bo"), TRADING, DECK, player("bo"))


async def test_the_lobby_filters_by_any_rule_and_pages_newest_first(
    ctx: Context, clock: Clock
) -> None:
    kinds = [
        TRADING,
        TableSettings(RuleSet(Visibility.ALL_OPEN, same=True), random_deck=True),
        TableSettings(RuleSet(Visibility.THREE_OPEN, plus=True, elemental=True)),
        TableSettings(RuleSet(Visibility.CLOSED, same_wall=True, same=True, combo=True)),
    ]
    created = []
    for index, settings in enumerate(kinds):
        clock.advance(1)
        deck = None if settings.random_deck else DECK
        created.append(
            await handlers_lobby.create_table(ctx, "t", player(f"h{index}"), settings, deck)
        )
    viewer = player("viewer")

    async def ids(filters: TableFilter) -> list[str]:
        tables = (await handlers_lobby.list_tables(ctx, viewer, filters, 0, "")).tables
        return [t.table_id for t in tables]

    every = [t.table_id for t in reversed(created)]
    assert await ids(TableFilter()) == every
    assert await ids(TableFilter(same=True)) == [every[0], every[2], every[3]]
    assert await ids(TableFilter(plus=False, same=False)) == []
    assert await ids(TableFilter(elemental=True)) == [created[2].table_id]
    assert await ids(TableFilter(same_wall=True)) == [created[3].table_id]
    assert await ids(TableFilter(random_deck=True)) == [created[1].table_id]
    assert await ids(TableFilter(trades=frozenset({TradeRule.ONE}))) == [created[0].table_id]
    assert await ids(TableFilter(visibilities=frozenset({Visibility.CLOSED}))) == [
        created[3].table_id,
        created[0].table_id,
    ]
    page = await handlers_lobby.list_tables(ctx, viewer, TableFilter(), 3, "")
    first, token = page.tables, page.next_page_token
    page = await handlers_lobby.list_tables(ctx, viewer, TableFilter(), 3, token)
    rest, end = page.tables, page.next_page_token
    assert [t.table_id for t in first + rest] == every and token and not end
    with pytest.raises(InvalidArgument, match="page_token"):
        await handlers_lobby.list_tables(ctx, viewer, TableFilter(), 3, "not-a-token")


async def test_a_random_table_draws_both_decks(ctx: Context, fakes: Fakes) -> None:
    settings = TableSettings(RuleSet(Visibility.ALL_OPEN, same=True), random_deck=True)
    table = await handlers_lobby.create_table(ctx, "t", player("ra"), settings, None)
    with pytest.raises(InvalidArgument, match="Random table"):
        await handlers_lobby.join_table(ctx, "j", player("nd"), table.table_id, DECK)
    match_id = (
        await handlers_lobby.join_table(ctx, "j", player("nd"), table.table_id, None)
    ).match_id
    assert all(len(s.cards) == 5 for s in fakes.matches.created[match_id].seats)


async def test_only_the_host_closes_and_idle_tables_expire(ctx: Context, clock: Clock) -> None:
    host = player("host")
    table = await handlers_lobby.create_table(ctx, "t", host, TRADING, DECK)
    with pytest.raises(PermissionDenied):
        await handlers_lobby.close_table(ctx, "c", "id-other", table.table_id)
    closed = await handlers_lobby.close_table(ctx, "c", host.player_id, table.table_id)
    assert closed.state is TableState.CLOSED
    assert (await handlers_lobby.close_table(ctx, "c2", host.player_id, table.table_id)) == closed
    idle = await handlers_lobby.create_table(ctx, "t2", host, TRADING, DECK)
    clock.advance(ctx.config.table_ttl_seconds - 1)
    assert not await handlers_lobby.expire_tables(ctx)
    clock.advance(1)
    assert (await handlers_lobby.list_tables(ctx, player("x"), TableFilter(), 0, "")).tables == []
    assert await handlers_lobby.expire_tables(ctx)
    expired = await handlers_lobby.get_table(ctx, host, idle.table_id)
    assert expired.state is TableState.EXPIRED
    with pytest.raises(FailedPrecondition, match="expired"):
        await handlers_lobby.close_table(ctx, "c3", host.player_id, idle.table_id)
    await handlers_queues.enqueue(ctx, "q", host, Mode.UNRANKED, DECK)  # free again


async def test_a_host_who_cannot_play_closes_the_table_for_the_guest(
    ctx: Context, fakes: Fakes
) -> None:
    host = player("host")
    table = await handlers_lobby.create_table(ctx, "t", host, TRADING, DECK)
    fakes.obligations.blocked[host.player_id] = "trade t-9 is pending"
    with pytest.raises(FailedPrecondition, match="host cannot play right now") as refused:
        await handlers_lobby.join_table(
            ctx, "j", player("guest"), table.table_id, DeckChoice(deck_id="x")
        )
    assert "t-9" not in str(refused.value)  # the host's trade is the host's business
    closed = await handlers_lobby.get_table(ctx, host, table.table_id)
    assert closed.state is TableState.CLOSED and "trade t-9" in closed.closed_because
    assert await ctx.store.engagement("id-guest") is None


PLAIN = TableSettings(RuleSet(Visibility.ALL_OPEN, same=True))
RANDOM = TableSettings(RuleSet(Visibility.THREE_OPEN, plus=True), random_deck=True)


async def test_find_game_joins_the_oldest_public_table_that_fits(
    ctx: Context, fakes: Fakes, clock: Clock
) -> None:
    finder = player("finder")
    with pytest.raises(NotFound, match="no open table to join right now: open one yourself"):
        await handlers_find.find_game(ctx, "f0", finder, TableFilter(), DECK)
    await handlers_lobby.create_table(ctx, "t", player("duel"), PLAIN, DECK, finder)
    clock.advance(1)
    own = await handlers_lobby.create_table(ctx, "t", finder, PLAIN, DECK)
    clock.advance(1)
    oldest = await handlers_lobby.create_table(ctx, "t", player("ann"), TRADING, DECK)
    clock.advance(1)
    plain = await handlers_lobby.create_table(ctx, "t", player("bea"), PLAIN, DECK)
    clock.advance(1)
    random = await handlers_lobby.create_table(ctx, "t", player("cid"), RANDOM, None)
    with pytest.raises(
        FailedPrecondition, match=f"you already host open table {own.table_id}: close it first"
    ):
        await handlers_find.find_game(ctx, "f1", finder, TableFilter(), DECK)
    await handlers_lobby.close_table(ctx, "c", finder.player_id, own.table_id)

    # Neither a challenge (even to the finder) nor one's own: the oldest public table.
    found = await handlers_find.find_game(ctx, "f1", finder, TableFilter(), DECK)
    assert found.table.table_id == oldest.table_id and found.table.state is TableState.STARTED
    spec = fakes.matches.created[found.match_id]
    assert [s.player_id for s in spec.seats] == ["id-ann", finder.player_id]
    assert spec.rules == TRADING.rules
    assert await handlers_find.find_game(ctx, "f1", finder, TableFilter(), DECK) == found
    with pytest.raises(FailedPrecondition, match="you are playing match"):
        await handlers_find.find_game(ctx, "f2", finder, TableFilter(), DECK)

    # The lobby's filters; without a deck only Random tables fit, which draw it.
    other = player("other")
    filters = TableFilter(visibilities=frozenset({Visibility.THREE_OPEN}))
    found = await handlers_find.find_game(ctx, "f3", other, filters, DECK)
    assert found.table.table_id == random.table_id
    assert all(len(s.cards) == 5 for s in fakes.matches.created[found.match_id].seats)
    with pytest.raises(NotFound, match=r"fits your filters \(without a deck, only Random"):
        await handlers_find.find_game(ctx, "f4", player("dan"), TableFilter(), None)
    found = await handlers_find.find_game(ctx, "f5", player("dan"), TableFilter(), DECK)
    assert found.table.table_id == plain.table_id
    with pytest.raises(NotFound, match="no open table fits your filters: open one"):
        await handlers_find.find_game(ctx, "f6", player("eve"), TableFilter(same=True), DECK)


async def test_find_game_refuses_what_it_cannot_do_with_the_reason(ctx: Context) -> None:
    finder = player("finder")
    with pytest.raises(InvalidArgument, match="public tables only: accept a challenge"):
        await handlers_find.find_game(ctx, "f", finder, TableFilter(challenges_only=True), DECK)
    no_deck_fits = TableFilter(random_deck=False, house_hands=False)
    with pytest.raises(InvalidArgument, match="without a deck only Random tables and house hands"):
        await handlers_find.find_game(ctx, "f", finder, no_deck_fits, None)


async def test_find_game_takes_the_next_table_when_the_oldest_was_just_taken(
    ctx: Context, clock: Clock
) -> None:
    first = await handlers_lobby.create_table(ctx, "t", player("ann"), PLAIN, DECK)
    clock.advance(1)
    second = await handlers_lobby.create_table(ctx, "t", player("bea"), PLAIN, DECK)
    real = ctx.lobby.oldest_table
    picks = []

    async def stale(*args: Any) -> Table | None:
        """The oldest as another replica's read saw it: before a guest sat down."""
        found = await real(*args)
        picks.append(found)
        if len(picks) == 1:
            await handlers_lobby.join_table(ctx, "j", player("gus"), first.table_id, DECK)
            return first
        return found

    with patch.object(ctx.lobby, "oldest_table", stale):
        found = await handlers_find.find_game(ctx, "f", player("finder"), TableFilter(), DECK)
    assert found.table.table_id == second.table_id and len(picks) == 2


async def test_a_challenge_to_a_player_in_a_match_is_refused_saying_so(
    ctx: Context, fakes: Fakes
) -> None:
    fakes.matches.active["id-rival"] = "m-1"
    with pytest.raises(FailedPrecondition, match="rival is playing a match right now"):
        await handlers_lobby.create_table(ctx, "t", player("host"), PLAIN, DECK, player("rival"))
    assert await ctx.store.engagement("id-host") is None
    with pytest.raises(InvalidArgument, match="cannot challenge yourself"):
        await handlers_lobby.create_table(ctx, "t", player("host"), PLAIN, DECK, player("HOST"))


async def test_the_challenged_player_declines_and_the_host_is_free_again(
    ctx: Context, clock: Clock
) -> None:
    host, rival, other = player("host"), player("rival"), player("other")
    table = await handlers_lobby.create_table(ctx, "t", host, PLAIN, DECK, rival)
    assert (table.challenged_id, table.challenged_name) == (rival.player_id, "rival")
    with pytest.raises(PermissionDenied, match="addressed to another player"):
        await handlers_lobby.decline_challenge(ctx, "d", other, table.table_id)
    with pytest.raises(NotFound, match="no table"):
        await handlers_lobby.decline_challenge(ctx, "d", rival, "tb-none")
    declined = await handlers_lobby.decline_challenge(ctx, "d", rival, table.table_id)
    assert declined.state is TableState.DECLINED
    assert await handlers_lobby.decline_challenge(ctx, "d", rival, table.table_id) == declined
    assert await handlers_lobby.decline_challenge(ctx, "d2", rival, table.table_id) == declined
    with pytest.raises(FailedPrecondition, match="host's table is not open any more: the chal"):
        await handlers_lobby.join_table(ctx, "j", rival, table.table_id, DECK)
    await handlers_queues.enqueue(ctx, "q", host, Mode.UNRANKED, DECK)  # free again

    public = await handlers_lobby.create_table(ctx, "t", player("pub"), PLAIN, DECK)
    with pytest.raises(FailedPrecondition, match="public table, not a challenge"):
        await handlers_lobby.decline_challenge(ctx, "d3", rival, public.table_id)
    withdrawn = await handlers_lobby.create_table(ctx, "t", player("wit"), PLAIN, DECK, rival)
    await handlers_lobby.close_table(ctx, "c", "id-wit", withdrawn.table_id)
    with pytest.raises(FailedPrecondition, match="wit withdrew this challenge"):
        await handlers_lobby.decline_challenge(ctx, "d4", rival, withdrawn.table_id)
    with pytest.raises(FailedPrecondition, match="wit's table is not open any more: its host"):
        await handlers_lobby.join_table(ctx, "j4", rival, withdrawn.table_id, DECK)
    accepted = await handlers_lobby.create_table(ctx, "t", player("acc"), PLAIN, DECK, other)
    await handlers_lobby.join_table(ctx, "j", other, accepted.table_id, DECK)
    with pytest.raises(FailedPrecondition, match="you accepted this challenge"):
        await handlers_lobby.decline_challenge(ctx, "d", other, accepted.table_id)
    late = await handlers_lobby.create_table(ctx, "t", player("lat"), PLAIN, DECK, player("z"))
    clock.advance(ctx.config.table_ttl_seconds)
    await handlers_lobby.expire_tables(ctx)
    with pytest.raises(FailedPrecondition, match="this challenge expired"):
        await handlers_lobby.decline_challenge(ctx, "d", player("z"), late.table_id)
    with pytest.raises(FailedPrecondition, match="lat's table is not open any more: it expired"):
        await handlers_lobby.join_table(ctx, "j", player("z"), late.table_id, DECK)


async def test_a_table_opened_here_wakes_the_expiry_loop_only_if_it_expires_first(
    ctx: Context, clock: Clock
) -> None:
    loop, ttl = ctx.wakes.tables, timedelta(seconds=ctx.config.table_ttl_seconds)
    loop.sleeping_until(clock.now + ttl / 2)
    await handlers_lobby.create_table(ctx, "t", player("ho"), TRADING, DECK)
    assert not loop.woken.is_set()
    loop.sleeping_until(clock.now + ttl * 2)
    await handlers_lobby.create_table(ctx, "t", player("hu"), TRADING, DECK)
    assert loop.woken.is_set()


class _HostDeckLocked(StarterDecks):
    """The host listed a copy of their table deck on the Auction House meanwhile: the
    collection refuses the deck, naming the card."""

    async def resolve(self, asked: DeckRequest) -> tuple[Card, ...]:
        if asked.player_id == "id-host":
            raise FailedPrecondition(
                "Hailstone Golemite (821aa49e) is locked by listing 5f3a until it completes"
            )
        return await super().resolve(asked)


async def test_a_guest_is_never_told_the_hidden_cards_of_a_host_deck_that_cannot_play(
    ctx: Context,
) -> None:
    """RULES.md 3: a hidden card of the opponent never leaves the server in any message
    to that player (not its id, character or sides). The guest of a Closed table whose
    host's deck cannot play learns that it cannot, not which cards it holds."""
    ctx = replace(ctx, ports=replace(ctx.ports, decks=_HostDeckLocked()))
    host = player("host")
    table = await handlers_lobby.create_table(ctx, "t", host, TRADING, DECK)
    with pytest.raises(FailedPrecondition) as refused:
        await handlers_lobby.join_table(ctx, "j", player("guest"), table.table_id, DECK)
    told = str(refused.value)
    assert "host's deck cannot play" in told
    assert "Hailstone" not in told and "821aa49e" not in told
    # The same request asked again is answered from the start's record: no cards either.
    with pytest.raises(FailedPrecondition) as again:
        await handlers_lobby.join_table(ctx, "j", player("guest"), table.table_id, DECK)
    assert "Hailstone" not in str(again.value) and "821aa49e" not in str(again.value)


async def test_a_guest_whose_own_deck_cannot_play_is_told_which_cards(ctx: Context) -> None:
    class GuestDeckLocked(StarterDecks):
        async def resolve(self, asked: DeckRequest) -> tuple[Card, ...]:
            if asked.player_id == "id-guest":
                raise FailedPrecondition("Hailstone Golemite (821aa49e) is locked by listing 5f3a")
            return await super().resolve(asked)

    ctx = replace(ctx, ports=replace(ctx.ports, decks=GuestDeckLocked()))
    table = await handlers_lobby.create_table(ctx, "t", player("host"), PLAIN, DECK)
    with pytest.raises(FailedPrecondition, match=r"Hailstone Golemite \(821aa49e\)") as told:
        await handlers_lobby.join_table(ctx, "j", player("guest"), table.table_id, DECK)
    assert str(told.value).startswith("your deck cannot play: "), told.value  # not by name
