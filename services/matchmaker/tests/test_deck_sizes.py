"""A saved deck holds 5, 8 or 13 cards and is played only on the board of that hand
size (RULES.md 2, 11): a deck that cannot be played where it is brought is refused when
it is brought (queue, table), never later at the start of a match; Find Game joins the
oldest open table the player *can* join with their deck (RULES.md 14), passing over
older tables on a board of another size."""

from __future__ import annotations

from dataclasses import replace
from typing import cast

import pytest

from services.matchmaker import handlers_find, handlers_lobby, handlers_queues
from services.matchmaker.clients import StarterDecks
from services.matchmaker.domain import (
    Card,
    DeckChoice,
    Mode,
    RuleSet,
    TableFilter,
    TableSettings,
    TableState,
    Visibility,
)
from services.matchmaker.handlers import Context, DeckRequest
from services.matchmaker.tests.conftest import Clock, Fakes, player
from services.platform.errors import AlreadyExists, FailedPrecondition, NotFound

FIVE, EIGHT, THIRTEEN = DeckChoice(deck_id="five"), DeckChoice(deck_id="eight"), DeckChoice("13")
SIZES = {"five": 5, "eight": 8, "13": 13}


class SizedDecks(StarterDecks):
    """Saved decks of 5, 8 and 13 cards, checked and resolved as the collection does
    (ValidateDeck with a hand size; 0 accepts any legal size)."""

    def __init__(self) -> None:
        self.checks: list[int] = []
        self.sold: set[str] = set()
        """Players who sold a card of their saved deck since they brought it."""
        self.spent: set[str] = set()
        """Players whose free copies hold no legal deck to draw (all listed, say)."""

        self.starters: set[str] = set()
        """Players with a starter collection's ten characters: no Random hand of 13."""

    def _refuse(self, choice: DeckChoice, hand_size: int, player_id: str = "") -> None:
        short = player_id in self.starters and hand_size > 10
        if (player_id in self.spent or short) and choice.random:
            raise FailedPrecondition(f"your free copies hold no legal deck of {hand_size}")
        if player_id in self.sold and not choice.random:
            raise FailedPrecondition("Geezard (0a1b2c3d) is no longer in your collection")
        held = SIZES.get(choice.deck_id, hand_size)
        if hand_size and not choice.random and held != hand_size:
            raise FailedPrecondition(f"needs a deck of {hand_size}; this one holds {held}")

    async def check(self, player_id: str, choice: DeckChoice, hand_size: int = 0) -> None:
        self.checks.append(hand_size)
        self._refuse(choice, hand_size, player_id)

    async def resolve(self, asked: DeckRequest) -> tuple[Card, ...]:
        self._refuse(asked.choice, asked.hand_size, asked.player_id)
        return await super().resolve(asked)


@pytest.fixture
def sized(ctx: Context) -> Context:
    return replace(ctx, ports=replace(ctx.ports, decks=SizedDecks()))


def table(board: int) -> TableSettings:
    return TableSettings(RuleSet(Visibility.ALL_OPEN, same=True, board=board))


async def test_a_queue_refuses_a_deck_that_is_not_of_five_cards(sized: Context) -> None:
    with pytest.raises(FailedPrecondition, match="needs a deck of 5; this one holds 8"):
        await handlers_queues.enqueue(sized, "q", player("ann"), Mode.UNRANKED, EIGHT)
    assert await sized.store.engagement("id-ann") is None  # nothing queued
    await handlers_queues.enqueue(sized, "q", player("ann"), Mode.UNRANKED, FIVE)


async def test_a_3x3_table_refuses_a_deck_of_eight_when_opened_or_joined(sized: Context) -> None:
    with pytest.raises(FailedPrecondition, match="needs a deck of 5; this one holds 8"):
        await handlers_lobby.create_table(sized, "t0", player("ann"), table(3), EIGHT)
    hosted = await handlers_lobby.create_table(sized, "t", player("ann"), table(3), FIVE)
    with pytest.raises(FailedPrecondition, match="needs a deck of 5; this one holds 8"):
        await handlers_lobby.join_table(sized, "j0", player("bea"), hosted.table_id, EIGHT)
    assert (await handlers_lobby.get_table(sized, player("bea"), hosted.table_id)).state is (
        TableState.OPEN
    )


async def test_a_second_ticket_or_table_is_refused_for_itself_before_the_deck(
    sized: Context,
) -> None:
    """Found from outside: a second Enqueue with a deck broken since the first was told
    of the deck (FAILED_PRECONDITION), not of the ticket queued (ALREADY_EXISTS); so was a
    second table."""
    ticket = await handlers_queues.enqueue(sized, "q1", player("ann"), Mode.UNRANKED, FIVE)
    hosted = await handlers_lobby.create_table(sized, "t1", player("bea"), table(3), FIVE)
    cast(SizedDecks, sized.ports.decks).sold.update({"id-ann", "id-bea"})
    with pytest.raises(AlreadyExists, match=f"queued ticket {ticket.ticket_id}"):
        await handlers_queues.enqueue(sized, "q2", player("ann"), Mode.UNRANKED, FIVE)
    with pytest.raises(AlreadyExists, match=f"open table {hosted.table_id}"):
        await handlers_lobby.create_table(sized, "t2", player("bea"), table(3), FIVE)


async def test_find_game_passes_over_older_tables_the_deck_does_not_fit(
    sized: Context, fakes: Fakes, clock: Clock
) -> None:
    cloth = await handlers_lobby.create_table(sized, "t", player("ann"), table(4), EIGHT)
    clock.advance(1)
    quintra = await handlers_lobby.create_table(sized, "t", player("bea"), table(5), THIRTEEN)
    clock.advance(1)
    standard = await handlers_lobby.create_table(sized, "t", player("cid"), table(3), FIVE)

    found = await handlers_find.find_game(sized, "f", player("dan"), TableFilter(), FIVE)
    assert found.table.table_id == standard.table_id
    assert [len(s.cards) for s in fakes.matches.created[found.match_id].seats] == [5, 5]
    for older in (cloth, quintra):  # passed over, untouched
        assert (await handlers_lobby.get_table(sized, player("x"), older.table_id)).state is (
            TableState.OPEN
        )
    found = await handlers_find.find_game(sized, "f", player("eve"), TableFilter(), THIRTEEN)
    assert found.table.table_id == quintra.table_id
    with pytest.raises(NotFound, match="no open table fits your deck"):
        await handlers_find.find_game(sized, "f", player("fay"), TableFilter(), FIVE)
    found = await handlers_find.find_game(sized, "f", player("gus"), TableFilter(), EIGHT)
    assert found.table.table_id == cloth.table_id


async def test_find_game_passes_over_a_table_whose_host_deck_cannot_play_any_more(
    sized: Context, clock: Clock
) -> None:
    """A table's saved deck is not locked while the table is open: a host who sold one of
    its cards meanwhile has a table nobody can join. Find Game joins the next oldest
    instead of answering that the host's deck cannot play."""
    broken = await handlers_lobby.create_table(sized, "t", player("ann"), table(3), FIVE)
    clock.advance(1)
    sound = await handlers_lobby.create_table(sized, "t", player("bea"), table(3), FIVE)
    cast(SizedDecks, sized.ports.decks).sold.add("id-ann")

    found = await handlers_find.find_game(sized, "f", player("cid"), TableFilter(), FIVE)
    assert found.table.table_id == sound.table_id
    with pytest.raises(NotFound, match="no open table"):
        await handlers_find.find_game(sized, "f", player("dan"), TableFilter(), FIVE)
    # The guest is told what to do (found from outside: nothing said the table closed).
    closed = "ann's deck cannot play now; the table is closed: look for another table"
    with pytest.raises(FailedPrecondition, match=closed):
        await handlers_lobby.join_table(sized, "j", player("eve"), broken.table_id, FIVE)
    assert (await handlers_lobby.get_table(sized, player("eve"), broken.table_id)).state is (
        TableState.CLOSED
    )


async def test_a_random_table_needs_a_host_whose_free_copies_hold_a_deck(
    sized: Context, clock: Clock
) -> None:
    """Found from outside: a host whose copies were all listed opened a Random table,
    and Find Game then failed for everyone else with "<host>'s deck cannot play now".
    Opening such a table is refused as a queue is; a host who lost their copies after
    opening one has their table passed over."""
    random = TableSettings(RuleSet(Visibility.ALL_OPEN, same=True), random_deck=True)
    decks = cast(SizedDecks, sized.ports.decks)
    decks.spent.add("id-ann")
    with pytest.raises(FailedPrecondition, match="hold no legal deck of 5"):
        await handlers_lobby.create_table(sized, "t", player("ann"), random, None)
    decks.spent.clear()
    first = await handlers_lobby.create_table(sized, "t", player("ann"), random, None)
    clock.advance(1)
    second = await handlers_lobby.create_table(sized, "t", player("bea"), random, None)
    decks.spent.add("id-ann")
    found = await handlers_find.find_game(sized, "f", player("cid"), TableFilter(), None)
    assert found.table.table_id == second.table_id
    assert (await handlers_lobby.get_table(sized, player("x"), first.table_id)).state is (
        TableState.OPEN
    )
    decks.spent.add("id-dan")
    with pytest.raises(FailedPrecondition, match="hold no legal deck of 5"):
        await handlers_lobby.join_table(sized, "j", player("dan"), first.table_id, None)


async def test_find_game_passes_over_a_random_table_the_guest_cannot_draw_a_hand_for(
    sized: Context, clock: Clock
) -> None:
    """RULES.md 14: the oldest table the player *can* join. At a Random 5x5 table the
    guest draws 13 different characters; a starter's ten cannot, so Find Game takes the
    next table that fits (or says none does) instead of failing on the oldest."""
    quintra = TableSettings(RuleSet(Visibility.ALL_OPEN, same=True, board=5), random_deck=True)
    decks = cast(SizedDecks, sized.ports.decks)
    await handlers_lobby.create_table(sized, "t", player("ann"), quintra, None)
    clock.advance(1)
    standard = await handlers_lobby.create_table(sized, "t", player("bea"), table(3), FIVE)
    decks.starters.update({"id-cid", "id-dan"})
    found = await handlers_find.find_game(sized, "f", player("cid"), TableFilter(), FIVE)
    assert found.table.table_id == standard.table_id
    with pytest.raises(NotFound) as refused:
        await handlers_find.find_game(sized, "f", player("dan"), TableFilter(), None)
    assert str(refused.value) == (  # dan brought no deck: not 'fits your deck'
        "no open table fits what you can bring: without a deck only Random tables and "
        "house hands fit, and a Random table draws 5, 8 or 13 different characters from "
        "your free copies: open one yourself with CreateTable, or try Find Game again soon"
    )


async def test_find_game_filters_and_the_deck_size_both_hold(sized: Context, clock: Clock) -> None:
    """RULES.md 11, 14: the filters and the deck's board size together choose the table;
    a house-hands table fits a deck of any size, as it takes none."""
    plus4 = TableSettings(RuleSet(Visibility.ALL_OPEN, plus=True, board=4))
    await handlers_lobby.create_table(sized, "t", player("ann"), plus4, EIGHT)
    clock.advance(1)
    await handlers_lobby.create_table(sized, "t", player("bea"), table(3), FIVE)
    clock.advance(1)
    same4 = await handlers_lobby.create_table(sized, "t", player("cid"), table(4), EIGHT)
    clock.advance(1)
    dealt = TableSettings(RuleSet(Visibility.ALL_OPEN, same=True, board=5, house_hands=True))
    house = await handlers_lobby.create_table(sized, "t", player("dee"), dealt, None)
    same = TableFilter(same=True)
    found = await handlers_find.find_game(sized, "f", player("eve"), same, EIGHT)
    assert found.table.table_id == same4.table_id, "the 3x3 same table is passed over"
    with pytest.raises(NotFound, match="no open table fits your deck"):
        await handlers_find.find_game(
            sized, "f", player("fay"), TableFilter(boards=frozenset({3, 4}), plus=False), THIRTEEN
        )
    found = await handlers_find.find_game(sized, "f", player("gus"), same, THIRTEEN)
    assert found.table.table_id == house.table_id
    # Ann's Plus table is on 4x4: a deck of five finds none.
    with pytest.raises(NotFound, match="no open table fits your deck"):
        await handlers_find.find_game(sized, "f", player("hal"), TableFilter(plus=True), FIVE)
    with pytest.raises(NotFound, match="no open table fits your filters"):
        await handlers_find.find_game(sized, "f", player("ida"), TableFilter(combo=True), FIVE)
