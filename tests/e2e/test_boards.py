"""Every board as players meet it (issue 19, item 1; RULES.md 11): a 5x5 table with
three blocked cells and house hands, and a 4x4 table with saved decks of eight, each
hosted, shown in the lobby, joined and played to its end through the TLS gateway, with
the whole backend as processes (devtools/stack.py). Both views show the same drawn
blocked cells; hands hold 13 and 8 cards; the final scores add up to 26 and 16. House
hands never touch a collection; what no table can play is refused saying why.
"""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import collect
from devtools.stack import Overrides
from tests.e2e.sessions import Player, join, mover, place_any

pytestmark = pytest.mark.integration

QUINTRA = pb.Rules(
    visibility=pb.VISIBILITY_THREE_OPEN,
    same=True,
    plus=True,
    combo=True,
    board=pb.BoardShape(rows=5, columns=5, blocked_count=3),
    house_hands=True,
)
CLOTH = pb.Rules(
    visibility=pb.VISIBILITY_ALL_OPEN,
    same=True,
    plus=True,
    combo=True,
    elemental=True,
    board=pb.BoardShape(rows=4, columns=4),
)


STACK_OVERRIDES: Overrides = {}
"""The backend of this module: no quick populated bot (tests/e2e/conftest.py)."""


async def copies(player: Player) -> list[str]:
    reply = await player.call("ListCollection", g.ListCollectionRequest(page_size=200))
    return [e.copy.copy_id for e in reply.entries]


async def refused(player: Player, rpc: str, request: Any) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await player.call(rpc, request)
    assert error.value.code() in (
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.FAILED_PRECONDITION,
    ), error.value.details()
    return str(error.value.details())


def blocked(view: pb.MatchView) -> set[int]:
    return {c.index for c in view.board if c.WhichOneof("content") == "blocked"}


async def play_to_the_end(players: tuple[Player, Player], match_id: str) -> pb.MatchView:
    for _ in range(30):
        first, _other = await mover(players, match_id)
        view = await first.view(match_id)
        if view.status == pb.MATCH_STATUS_FINISHED:
            return view
        await place_any(first, view)
    raise AssertionError("the match did not end")


async def test_a_5x5_table_with_three_blocked_cells_and_house_hands_plays_to_its_end(
    api: Any,
) -> None:
    ann, bea = await join(api), await join(api)
    owned = {p.name: sorted(await copies(p)) for p in (ann, bea)}
    table = (
        await ann.call(
            "CreateTable",
            g.CreateTableRequest(request_id=uuid4().hex, settings=pb.TableSettings(rules=QUINTRA)),
        )
    ).table
    listed = await bea.call(
        "ListTables", g.ListTablesRequest(filter=pb.TableFilter(board_sizes=[5]))
    )
    shown = next(t for t in listed.tables if t.table_id == table.table_id).settings.rules
    assert (shown.board.rows, shown.board.columns, shown.board.blocked_count) == (5, 5, 3)
    assert shown.house_hands
    joined = await bea.call(
        "JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table_id)
    )
    match_id = joined.match_id
    views = [await p.view(match_id) for p in (ann, bea)]
    cells = blocked(views[0])
    assert len(cells) == 3 and blocked(views[1]) == cells
    for view in views:
        assert len(view.board) == 25
        assert sorted(view.rules.board.blocked_cells) == sorted(cells)
        assert view.rules.house_hands and view.rules.board.blocked_count == 3
        assert len(view.my_hand) == 13
        assert {c.card.origin for c in view.my_hand} == {pb.CARD_ORIGIN_HOUSE}
        revealed = [s for s in view.opponent_hand if s.WhichOneof("slot") == "revealed"]
        assert len(view.opponent_hand) == 13 and len(revealed) == 3  # Three Open: three

    final = await play_to_the_end((ann, bea), match_id)
    scores = final.outcome.final_scores
    assert scores.seat_a + scores.seat_b == 26
    assert blocked(final) == cells, "the blocked cells are never drawn again"
    placed = [c for c in final.board if c.WhichOneof("content") == "card"]
    assert len(placed) == 22
    # House hands never enter or leave a collection.
    assert {p.name: sorted(await copies(p)) for p in (ann, bea)} == owned


async def test_a_4x4_table_with_saved_decks_of_eight_plays_to_its_end(api: Any) -> None:
    ann, bea = await join(api), await join(api)
    decks: dict[str, str] = {}
    hands: dict[str, list[str]] = {}
    for player in (ann, bea):
        mine = await copies(player)
        saved = await player.call(
            "SaveDeck",
            g.SaveDeckRequest(request_id=uuid4().hex, name="Cloth", copy_ids=mine[:8]),
        )
        assert list(saved.deck.copy_ids) == mine[:8] and not saved.deck.violations
        decks[player.name], hands[player.name] = saved.deck.deck_id, mine[:8]
    short = g.SaveDeckRequest(request_id=uuid4().hex, name="Five", copy_ids=hands[ann.name][:5])
    five = (await ann.call("SaveDeck", short)).deck.deck_id
    says = await refused(
        ann,
        "CreateTable",
        g.CreateTableRequest(
            request_id=uuid4().hex,
            settings=pb.TableSettings(rules=CLOTH),
            deck=pb.DeckChoice(deck_id=five),
        ),
    )
    assert "a 4x4 table needs a deck of 8; this one holds 5" in says
    checked = await ann.call("ValidateDeck", g.ValidateDeckRequest(deck_id=five, hand_size=8))
    assert not checked.valid and "needs a deck of 8" in checked.violations[0].message

    table = (
        await ann.call(
            "CreateTable",
            g.CreateTableRequest(
                request_id=uuid4().hex,
                settings=pb.TableSettings(rules=CLOTH),
                deck=pb.DeckChoice(deck_id=decks[ann.name]),
            ),
        )
    ).table
    joined = await bea.call(
        "JoinTable",
        g.JoinTableRequest(
            request_id=uuid4().hex,
            table_id=table.table_id,
            deck=pb.DeckChoice(deck_id=decks[bea.name]),
        ),
    )
    match_id = joined.match_id
    for player in (ann, bea):
        view = await player.view(match_id)
        assert len(view.board) == 16 and not blocked(view)
        assert [c.card.card_id for c in view.my_hand] == hands[player.name]
        assert len(view.opponent_hand) == 8
        marks = [c.mark for c in view.board]
        assert all(0 <= m <= 8 for m in marks)

    final = await play_to_the_end((ann, bea), match_id)
    scores = final.outcome.final_scores
    assert scores.seat_a + scores.seat_b == 16
    assert not final.my_hand and not final.opponent_hand  # RULES.md 11: none left


async def test_what_no_table_can_play_is_refused_with_a_reason(api: Any) -> None:
    ann = await join(api)
    cases = [
        (pb.Rules(board=pb.BoardShape(rows=5, columns=5, blocked_count=6)), "not 6"),
        (pb.Rules(board=pb.BoardShape(rows=4, columns=4, blocked_count=2)), "5x5 board only"),
        (pb.Rules(board=pb.BoardShape(rows=3, columns=3), house_hands=True), "4x4 and 5x5"),
        (
            pb.Rules(
                visibility=pb.VISIBILITY_CLOSED,
                same=True,
                plus=True,
                combo=True,
                trade_rule=pb.TRADE_RULE_ONE,
                board=pb.BoardShape(rows=5, columns=5),
                house_hands=True,
            ),
            "house hands never trade",
        ),
        # found from outside: shown on the table, it did nothing without Same
        (pb.Rules(plus=True, combo=True, same_wall=True), "Same Wall needs Same on"),
    ]
    for rules, says in cases:
        if not rules.visibility:
            rules.visibility = pb.VISIBILITY_ALL_OPEN
        message = await refused(
            ann,
            "CreateTable",
            g.CreateTableRequest(
                request_id=uuid4().hex, settings=pb.TableSettings(rules=rules, random_deck=True)
            ),
        )
        assert says in message, message


async def saved(player: Player, size: int) -> pb.DeckChoice:
    mine = await copies(player)
    request = g.SaveDeckRequest(request_id=uuid4().hex, name=f"D{size}", copy_ids=mine[:size])
    return pb.DeckChoice(deck_id=(await player.call("SaveDeck", request)).deck.deck_id)


async def test_a_deck_goes_only_where_its_size_is_played_and_find_game_knows_it(
    api: Any,
) -> None:
    """RULES.md 11 (each player brings a saved deck of the board's size) and 14 (Find
    Game joins the oldest open table the player can join with their deck): a deck of 8
    is refused at once by a queue and a 3x3 table, and Find Game with a deck of 5
    passes over an older 4x4 table to the 3x3 one."""
    ann, bea, cid = await join(api), await join(api), await join(api)
    eight, five = await saved(ann, 8), await saved(bea, 5)
    enqueue = g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_UNRANKED, deck=eight)
    assert "needs a deck of 5" in await refused(ann, "Enqueue", enqueue)
    standard = pb.TableSettings(rules=pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, same=True))
    open_3x3 = g.CreateTableRequest(request_id=uuid4().hex, settings=standard, deck=eight)
    assert "needs a deck of 5" in await refused(ann, "CreateTable", open_3x3)

    cloth = g.CreateTableRequest(
        request_id=uuid4().hex, settings=pb.TableSettings(rules=CLOTH), deck=eight
    )
    older = (await ann.call("CreateTable", cloth)).table
    open_3x3 = g.CreateTableRequest(request_id=uuid4().hex, settings=standard, deck=five)
    younger = (await bea.call("CreateTable", open_3x3)).table
    found = await cid.call(
        "FindGame", g.FindGameRequest(request_id=uuid4().hex, deck=await saved(cid, 5))
    )
    assert found.table.table_id == younger.table_id and len(found.view.my_hand) == 5
    close = g.CloseTableRequest(request_id=uuid4().hex, table_id=older.table_id)
    closed = await ann.call("CloseTable", close)  # still open, untouched: ann closes it
    assert closed.table.status == pb.TABLE_STATUS_CLOSED


async def test_find_game_seats_a_saved_deck_at_a_house_hands_table(api: Any) -> None:
    """Found from outside: Find Game checked the guest's saved deck of 5 against a
    house-hands table's hand of 13 and found nothing, though house hands ignore the deck
    (JoinTable seated the same guest)."""
    ann, dan = await join(api), await join(api)
    create = g.CreateTableRequest(request_id=uuid4().hex, settings=pb.TableSettings(rules=QUINTRA))
    table = (await ann.call("CreateTable", create)).table
    wanted = pb.TableFilter(board_sizes=[5], house_hands=True)
    find = g.FindGameRequest(request_id=uuid4().hex, filter=wanted, deck=await saved(dan, 5))
    found = await dan.call("FindGame", find)
    assert found.table.table_id == table.table_id
    assert len(found.view.my_hand) == 13
    assert {c.card.origin for c in found.view.my_hand} == {pb.CARD_ORIGIN_HOUSE}


async def test_find_game_passes_over_a_table_whose_host_sold_a_card_of_its_deck(
    api: Any,
) -> None:
    """A table's saved deck is not locked while the table is open: ann lists one of its
    cards on the Auction House, so her table cannot start. Find Game (RULES.md 14: the
    oldest table the player *can* join) joins bea's younger table instead of answering
    that ann's deck cannot play; a direct join of ann's table is refused, naming no card.
    The table then closes on ann's behalf, and her session says why (found from outside:
    it only showed the table closed, as if she had closed it)."""
    ann, bea, cid, dan = await join(api), await join(api), await join(api), await join(api)
    pushes: list[g.OpenSessionResponse] = []
    reading = asyncio.create_task(collect(api, ann.tokens, pushes))
    rules = pb.Rules(visibility=pb.VISIBILITY_CLOSED, same=True, same_wall=True)
    settings = pb.TableSettings(rules=rules)
    deck = await saved(ann, 5)
    create = g.CreateTableRequest(request_id=uuid4().hex, settings=settings, deck=deck)
    older = (await ann.call("CreateTable", create)).table
    create = g.CreateTableRequest(
        request_id=uuid4().hex, settings=settings, deck=await saved(bea, 5)
    )
    younger = (await bea.call("CreateTable", create)).table
    sold = (await copies(ann))[0]  # the deck's first card
    listing = g.CreateListingRequest(request_id=uuid4().hex, copy_id=sold, price=50)
    await ann.call("CreateListing", listing)

    wanted = pb.TableFilter(same_wall=True)
    find = g.FindGameRequest(request_id=uuid4().hex, filter=wanted, deck=await saved(cid, 5))
    found = await cid.call("FindGame", find)
    assert found.table.table_id == younger.table_id and found.match_id
    join_older = g.JoinTableRequest(
        request_id=uuid4().hex, table_id=older.table_id, deck=await saved(dan, 5)
    )
    told = await refused(dan, "JoinTable", join_older)
    assert "deck cannot play" in told and sold not in told and sold[:8] not in told
    for _ in range(100):
        if any(p.HasField("notice") for p in pushes):
            break
        await asyncio.sleep(0.05)
    reading.cancel()
    shown = [p.table for p in pushes if p.HasField("table")]
    assert shown[-1].table_id == older.table_id
    assert shown[-1].status == pb.TABLE_STATUS_CLOSED
    assert "your deck cannot play" in shown[-1].close_reason, shown[-1]
    notice = next(p.notice for p in pushes if p.HasField("notice"))
    assert notice.code == "TABLE_CLOSED" and notice.subject_id == older.table_id
    assert notice.message == (
        f"Your table {older.table_id[:8]} was closed when a guest sat down: "
        f"{shown[-1].close_reason}."
    )


async def test_a_house_hands_practice_refuses_a_deck_rather_than_ignore_it(api: Any) -> None:
    """Found from outside: a practice dealing house hands took a saved deck (or Random)
    and silently played without it; a hosted table refused the same. Refused alike now,
    nothing started; without the deck it is dealt 13 house cards."""
    ann = await join(api)
    practice = g.StartPracticeRequest(
        request_id=uuid4().hex,
        origin_mode=pb.MODE_CUSTOM,
        bot_level=pb.BOT_LEVEL_NOVICE,
        custom_settings=pb.TableSettings(rules=QUINTRA),
        deck=await saved(ann, 5),
    )
    said = await refused(ann, "StartPractice", practice)
    assert "house hands" in said and "send no deck" in said, said
    practice.deck.Clear()
    practice.deck.random.SetInParent()
    assert "send no deck" in await refused(ann, "StartPractice", practice)
    status = (await ann.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status
    assert not status.active_match_id, "nothing started"
    practice.ClearField("deck")
    practice.request_id = uuid4().hex
    started = await ann.call("StartPractice", practice)
    view = await ann.view(started.match_id)
    assert len(view.my_hand) == 13
    assert {c.card.origin for c in view.my_hand} == {pb.CARD_ORIGIN_HOUSE}
