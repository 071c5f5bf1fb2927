"""``triad-client`` as a person sees it in an 80x24 terminal against the whole backend
(every service a process, TLS gateway): the winner of a Ranked match takes a card on the
screen, a host sees the second round of a Sudden Death table, and a Difference winner
picks their cards.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.copies import copy_name
from devtools.players import bearer
from devtools.stack import Stack
from devtools.terminal import Terminal
from services.rules import Board, Geometry, Position, Rules, Seat
from tests.e2e.client_runs import keep_reading, signed_in
from tests.e2e.end_to_end import active_view, enqueue, play, register
from tests.e2e.sessions import Player, mover, place_any
from tests.e2e.test_sudden_death import _cards, tied_line

pytestmark = pytest.mark.integration


async def test_a_person_who_wins_ranked_takes_the_card_on_the_clients_screen(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """The same in an 80x24 terminal: the loser's five cards, the choice timer
    counting down and the prompt are on the screen; the number typed is the card
    taken, and the client says so."""
    ann, bea = await register(api), await register(api)
    argv = signed_in(backend, tmp_path / "state.json", ann).argv

    def left(screen: str) -> int | None:
        found = re.search(r"take one card \(0\.\.4\); (\d+) s left", screen)
        return int(found.group(1)) if found else None

    for _ in range(4):  # until Ann (greedy) wins
        terminal = Terminal([*argv, "play"], {})

        # A person's terminal is always read, so the client never waits to draw.
        reader = asyncio.create_task(keep_reading(terminal))
        try:
            await terminal.until(lambda s: "waiting for one" in s, "the client waiting")
            for me in (ann, bea):
                await enqueue(api, me, pb.MODE_RANKED)
            view = await active_view(api, ann)
            final = await play(
                api, [ann, bea], view.match_id, greedy=frozenset({ann.player.player_id})
            )
            mine = (
                await api.GetMatchView(
                    g.GetMatchViewRequest(match_id=view.match_id), metadata=bearer(ann.tokens)
                )
            ).view
            result = final.outcome.WhichOneof("result")
            if result == "draw" or final.outcome.winner_seat != mine.my_seat:
                # A draw ends the screen at once; a loss once Bea has taken her card (the
                # loser waits on the trade screen for it), so that Ann may queue again.
                if result != "draw":
                    for _ in range(150):
                        trade = (
                            await api.GetPendingTrade(
                                g.GetPendingTradeRequest(), metadata=bearer(bea.tokens)
                            )
                        ).trade
                        if trade.offered_copies:
                            break
                        await asyncio.sleep(0.2)
                    await api.ChooseTradeCard(
                        g.ChooseTradeCardRequest(
                            request_id=uuid4().hex,
                            trade_id=trade.trade_id,
                            copy_id=trade.offered_copies[0].copy_id,
                        ),
                        metadata=bearer(bea.tokens),
                    )
                assert terminal.process.wait(timeout=30) == 0  # nothing more to do: it ends
                continue
            offer = await terminal.until(lambda s: "take card > " in s, "the offer")
            assert "You win!" in offer and bea.player.player_name in offer
            assert len(re.findall(r"^│ [0-4] ", offer, re.MULTILINE)) == 5, offer
            first = left(offer)
            assert first is not None, offer
            await terminal.until(lambda s, f=first: (left(s) or f) < f, "the choice timer running")
            pending = (
                await api.GetPendingTrade(g.GetPendingTradeRequest(), metadata=bearer(ann.tokens))
            ).trade
            name = copy_name(pending.offered_copies[3])  # 'Reedling (holo)' if holographic
            terminal.type("3\r")
            await terminal.until(
                lambda s, n=name: f"{n} moved to" in s or f"{n} is moving to" in s,
                "the card taken",
            )
            assert terminal.process.wait(timeout=30) == 0
            return
        finally:
            reader.cancel()
            terminal.close()
    pytest.skip("Ann never won in four games")


async def test_a_host_sees_the_second_round_of_a_sudden_death_table_on_the_clients_screen(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """Ann hosts a Sudden Death table with ``triad-client host`` in an 80x24 terminal
    (All Open, no Same or Plus, so a line of moves that ties can be found); Bea joins
    through the API and both play that line through the API. Ann's screen shows the
    table's rules, then round 1's final board (RULES.md 12), round 2 and how round 1
    ended; q forfeits it from the client."""
    ann, bea = await register(api), await register(api)
    argv = signed_in(backend, tmp_path / "state.json", ann).argv
    terminal = Terminal(
        [*argv, "host", "--sudden-death", "--visibility", "all-open", "--no-same", "--no-plus"],
        {},
    )
    reader = asyncio.create_task(keep_reading(terminal))
    try:
        opened = await terminal.until(lambda s: "Waiting for a guest" in s, "the open table")
        assert "All Open, Sudden Death, No trade" in opened, opened
        found = await api.ListTables(g.ListTablesRequest(), metadata=bearer(bea.tokens))
        [table] = [t for t in found.tables if t.host_name == ann.player.player_name]
        assert table.settings.rules.sudden_death and table.settings.random_deck
        joined = await api.JoinTable(
            g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table_id),
            metadata=bearer(bea.tokens),
        )
        match_id = joined.match_id
        players = [
            Player(api, me.player.player_id, me.player.player_name, me.tokens) for me in (ann, bea)
        ]
        first, second = await mover((players[0], players[1]), match_id)
        view = await first.view(match_id)
        seat = Seat.A if view.my_seat == pb.SEAT_A else Seat.B
        mine = _cards(c.card for c in view.my_hand)
        theirs = _cards(s.revealed for s in view.opponent_hand)
        hands = (mine, theirs) if seat is Seat.A else (theirs, mine)
        board = Board.empty(Geometry.of(3, 3, frozenset()), Rules())
        line = tied_line(Position.start(board, hands[0], hands[1], seat))
        assert line is not None, "no line of moves ties these two hands"
        await terminal.until(lambda s: "Round 1 of at most 5" in s, "round 1 on the screen")
        for turn, (card_id, cell) in enumerate(line):
            await [first, second][turn % 2].call(
                "PlaceCard",
                g.PlaceCardRequest(
                    request_id=uuid4().hex, match_id=match_id, card_id=card_id, cell=cell
                ),
            )
        final = await terminal.until(
            lambda s: "Round 1's final board (5-5)" in s, "round 1's final board", timeout=5
        )
        assert not any(f"({cell})" in final for cell in range(9)), "round 1's board is full"
        screen = await terminal.until(
            lambda s: "Round 2 of at most 5; round 1 ended 5-5" in s, "round 2 on the screen"
        )
        assert all(f"({cell})" in screen for cell in range(9)), "round 2's board is empty"
        assert "Sudden Death, No trade" in screen
        terminal.type("q\r")
        await terminal.until(lambda s: "Forfeit this match?" in s, "the question")
        terminal.type("y\r")  # q asks first
        ended = await terminal.until(lambda s: "you forfeited." in s, "the forfeit")
        assert re.search(r"You lose at \d+-\d+: you forfeited\.", ended), ended
        assert "Round 2 of at most 5" in ended
        assert terminal.process.wait(timeout=30) == 0
    finally:
        reader.cancel()
        terminal.close()


async def test_a_difference_winner_picks_d_cards_on_the_clients_screen(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """Ann hosts a Difference table with ``triad-client host`` in an 80x24 terminal; Bea
    joins through the API, both play through it until Ann leads by two (or eight cards
    are down) and Bea forfeits. Ann's screen shows Bea's deck and d, refuses a choice
    that is not d distinct cards before any call (the trade stays open), and the d
    numbers typed move exactly those copies to Ann."""
    ann, bea = await register(api), await register(api)
    argv = signed_in(backend, tmp_path / "state.json", ann).argv
    terminal = Terminal([*argv, "host", "--visibility", "closed", "--trade", "difference"], {})
    reader = asyncio.create_task(keep_reading(terminal))

    async def owned(me: g.RegisterResponse) -> set[str]:
        reply = await api.ListCollection(
            g.ListCollectionRequest(page_size=200), metadata=bearer(me.tokens)
        )
        return {e.copy.copy_id for e in reply.entries}

    try:
        opened = await terminal.until(lambda s: "Waiting for a guest" in s, "the open table")
        assert "Closed, Same, Plus, Combo" in opened and "Trade Difference" in opened, opened
        found = await api.ListTables(g.ListTablesRequest(), metadata=bearer(bea.tokens))
        [table] = [t for t in found.tables if t.host_name == ann.player.player_name]
        joined = await api.JoinTable(
            g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table_id),
            metadata=bearer(bea.tokens),
        )
        match_id = joined.match_id
        players = tuple(
            Player(api, me.player.player_id, me.player.player_name, me.tokens) for me in (ann, bea)
        )
        pair = (players[0], players[1])

        async def ann_lead() -> int:
            view = await players[0].view(match_id)
            scores = {p.seat: p.score for p in view.players}
            return 2 * scores[view.my_seat] - sum(scores.values())

        for _ in range(8):
            if await ann_lead() >= 2:
                break
            first, _ = await mover(pair, match_id)
            await place_any(first, await first.view(match_id))
        lead = await ann_lead()  # as the board stands at the forfeit, after the last move
        before = {"ann": await owned(ann), "bea": await owned(bea)}
        await players[1].call(
            "Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id)
        )
        # RULES.md 13: the difference at the forfeit, at least 1 (Decision), capped at the
        # deck size (a combo on the last move can lead by more than five).
        d = min(5, max(1, lead))
        asked = "take card > " if d == 1 else f"take {d} cards > "  # how many, at the prompt
        offer = await terminal.until(lambda s: asked in s, "the offer")
        pending = (
            await api.GetPendingTrade(g.GetPendingTradeRequest(), metadata=bearer(ann.tokens))
        ).trade
        assert pending.trade_rule == pb.TRADE_RULE_DIFFERENCE and pending.take_count == d
        cards = "one card" if d == 1 else f"{d} cards"
        flat = " ".join(offer.split())
        title = f"{ann.player.player_name} takes {cards} of {bea.player.player_name}'s deck"
        assert title in flat, offer
        assert len(re.findall(r"^│ [0-4] ", offer, re.MULTILINE)) == 5, offer
        for copy in pending.offered_copies:
            assert copy.copy_id[:8] in offer and copy.copy_id in before["bea"]
        terminal.type("0 0\r")  # a card twice (or, for one card, two numbers)
        refused = "Card 0 is named twice" if d > 1 else "Take one card: a single number"
        await terminal.until(lambda s: refused in s, "the choice refused on the screen")
        still = (
            await api.GetPendingTrade(g.GetPendingTradeRequest(), metadata=bearer(ann.tokens))
        ).trade
        assert still.status == pb.TRADE_STATUS_AWAITING_CHOICE, "nothing was sent"
        wanted = [c.copy_id for c in pending.offered_copies][-d:]
        terminal.type(" ".join(str(n) for n in range(5 - d, 5)) + "\r")
        await terminal.until(
            lambda s: f"moved to {ann.player.player_name}" in " ".join(s.split()),
            "the cards taken",
        )
        assert terminal.process.wait(timeout=30) == 0
        assert await owned(ann) == before["ann"] | set(wanted)
        assert await owned(bea) == before["bea"] - set(wanted)
    finally:
        reader.cancel()
        terminal.close()
