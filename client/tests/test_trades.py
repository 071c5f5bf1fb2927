"""The trade after a match as the client's frame draws it from hand-built views and
Trades (client/tests/trades.py): who stays for a trade at a match's end, what Direct
and All moved shown without a prompt, a 13-card Difference offer within 80x24, and the
choice read from what is typed (refused here unless it is d distinct offered cards)."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.commands_trades import picked, trade
from client.connection import CommandError, State
from client.frame import awaits_trade, frame
from client.main import parser
from client.summary import after_trade
from client.tests.trades import (
    ANN,
    BEA,
    completed,
    copy_id,
    deck,
    difference,
    finished,
    moved_at_once,
)

A, B = pb.SEAT_A, pb.SEAT_B


def drawn(view: pb.MatchView, trade: pb.Trade, typing: str = "", note: str = "") -> list[str]:
    out = io.StringIO()
    console = Console(width=80, height=24, file=out, color_system=None)
    console.print(frame(view, datetime.now(UTC), None, typing, note, trade, console), end="")
    return [line.rstrip() for line in out.getvalue().splitlines()]


def test_who_stays_for_the_trade_when_the_match_ends() -> None:
    captured = {4: (A, A), 5: (B, A)}  # Ann captured Bea's card in cell 5
    assert awaits_trade(finished(pb.TRADE_RULE_ONE))  # the winner chooses
    # The loser stays to see which card was taken (found from outside: let go before
    # the choice, she was never told).
    assert awaits_trade(finished(pb.TRADE_RULE_ONE, mine=B))
    assert awaits_trade(finished(pb.TRADE_RULE_DIFFERENCE))
    assert awaits_trade(finished(pb.TRADE_RULE_DIFFERENCE, mine=B))  # the stake, the taking
    assert awaits_trade(finished(pb.TRADE_RULE_ALL, mine=B))
    for rule in (pb.TRADE_RULE_ONE, pb.TRADE_RULE_DIFFERENCE, pb.TRADE_RULE_ALL):
        assert not awaits_trade(finished(rule, winner=None)), "a draw trades nothing"
    assert not awaits_trade(finished(pb.TRADE_RULE_UNSPECIFIED))
    # Direct, a draw too, whenever a card changed sides on the board
    assert awaits_trade(finished(pb.TRADE_RULE_DIRECT, winner=None, placed=captured, mine=B))
    assert not awaits_trade(finished(pb.TRADE_RULE_DIRECT, placed={4: (A, A), 5: (B, B)}))
    round_two = finished(pb.TRADE_RULE_DIRECT, placed={4: (A, A)})
    round_two.round_number = 2  # hands rebuilt from what each owns: may hold the other's
    assert awaits_trade(round_two)


def test_what_direct_moved_is_shown_with_who_received_each_card_and_no_prompt() -> None:
    view = finished(pb.TRADE_RULE_DIRECT, winner=None, placed={5: (B, A), 7: (A, B)}, mine=B)
    moved = [deck(BEA)[0], deck(ANN)[1]]
    moved[0].copy_id, moved[1].copy_id = copy_id(5, BEA), copy_id(7, ANN)
    lines = drawn(view, moved_at_once(pb.TRADE_RULE_DIRECT, moved, pb.TRADE_ROLE_GIVER))
    screen = "\n".join(lines)
    assert lines[0] == "Draw. (bea 5 - ann 5)"  # Bea's own score first
    assert "Trade Direct: the opponent's cards each player owns on the final board" in screen
    # Bea is "you" (found from outside: two names that begin alike were cut to the same)
    assert "│ 0 │ c5bea-00 │ Quistis Trepe │" in screen and screen.count("│ them │") == 1
    assert "│ 1 │ c7ann-00 │ Chocobo" in screen and screen.count("│ you  │") == 1
    assert lines[-1] == (
        "Quistis Trepe, Chocobo moved, each to the player who owns it on the board."
    )
    assert "take card" not in screen
    # Found from outside: a 12-letter opponent's name was cut to 'uw170481…' there.
    view.players[0].player_name = "uw1704817782"
    long = "\n".join(drawn(view, moved_at_once(pb.TRADE_RULE_DIRECT, moved, pb.TRADE_ROLE_GIVER)))
    assert "│ them │" in long and "uw170481…" not in long, long
    alone = drawn(view, moved_at_once(pb.TRADE_RULE_DIRECT, moved[:1], pb.TRADE_ROLE_GIVER))
    assert alone[-1] == "Quistis Trepe moved to the player who owns it on the board."


def test_the_end_of_a_direct_trade_says_what_moved_once() -> None:
    """The trade's screen stays as last drawn, its last line what moved; the summary
    printed under it does not say it again (it used to, as 'Trade Direct: ...')."""
    view = finished(pb.TRADE_RULE_DIRECT, winner=None, placed={5: (B, A)}, mine=B)
    moved = [deck(BEA)[0]]
    moved[0].copy_id = copy_id(5, BEA)
    trade = moved_at_once(pb.TRADE_RULE_DIRECT, moved, pb.TRADE_ROLE_GIVER)
    end = [*drawn(view, trade), *(said.plain for said in after_trade(view, None, trade))]
    assert sum("Quistis Trepe moved" in line for line in end) == 1, "\n".join(end)
    assert end[-2:] == ["Draw 5-5: the board is full.", "Unrated: no rating change."]
    waiting = difference(role=pb.TRADE_ROLE_GIVER)  # the loser leaves before the choice
    told = after_trade(finished(pb.TRADE_RULE_DIFFERENCE, mine=B), None, waiting)
    assert (
        told[-1].plain
        == "Trade Difference: ann takes 2 of your cards; triad-client trade shows the "
        "offer until they choose, your collection after."
    )


def test_what_all_moved_is_the_losers_whole_deck_shown_to_both() -> None:
    for mine, result in ((A, "You win!"), (B, "You lose.")):
        role = pb.TRADE_ROLE_CHOOSER if mine == A else pb.TRADE_ROLE_GIVER
        lines = drawn(
            finished(pb.TRADE_RULE_ALL, mine=mine),
            moved_at_once(pb.TRADE_RULE_ALL, deck(BEA), role),
        )
        assert lines[0].startswith(result)
        assert lines[1] == "Trade All: ann takes bea's whole deck"
        assert lines[-1] == "Quistis Trepe, Chocobo, Behemoth (holo), Ifrit, Shiva moved to ann."


def test_a_13_card_difference_offer_fits_80x24_with_a_refusal_and_the_prompt() -> None:
    note = "Take 4 cards at once, not 3: type 4 different numbers of 0..12, e.g. 0 1 2 3."
    lines = drawn(finished(pb.TRADE_RULE_DIFFERENCE), difference(take=4, size=13), "1 2", note)
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80, "\n".join(lines)
    assert lines[-1] == "take 4 cards > 1 2_" and lines[-3] == note
    assert lines[-2].startswith("Take 4 cards: 4 numbers of 0..12, e.g. 0 1 2 3; ")
    assert sum(line.startswith("│ ") for line in lines) == 13


def test_the_trade_screen_says_what_the_last_move_did_within_80x24() -> None:
    """Found from outside: the board gave way to the trade at once, so the winner never
    saw what the match's last move captured. Its line stays above the offer."""
    ended = finished(pb.TRADE_RULE_DIFFERENCE)
    ended.last_placement.CopyFrom(pb.Placement(seat=pb.SEAT_B, cell=4, card=ended.my_hand[0].card))
    ended.last_placement.captures.add(cell=1, cause=pb.CAPTURE_CAUSE_SAME)
    ended.last_placement.captures.add(cell=5, cause=pb.CAPTURE_CAUSE_COMBO)
    note = "Take 4 cards at once, not 3: type 4 different numbers of 0..12, e.g. 0 1 2 3."
    lines = drawn(ended, difference(take=4, size=13), "1 2", note)
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80, "\n".join(lines)
    said = " ".join(" ".join(lines).split())
    assert f"Last move: {BEA} put " in said and "took 1 (Same), 5 (Combo)." in said, said
    assert lines[-1] == "take 4 cards > 1 2_"


def test_a_difference_over_the_deck_says_it_is_capped_and_still_fits_80x24() -> None:
    """RULES.md 13: d is the score difference, at most the deck's size. Found from
    outside: a 13-3 win on 4x4 took 8 cards with nothing said of the cap."""
    ended = finished(pb.TRADE_RULE_DIFFERENCE)
    for player, score in zip(ended.players, (20, 6), strict=True):
        player.score = score
    note = "Take 13 cards at once, not 3: type 13 different numbers of 0..12."
    lines = drawn(ended, difference(take=13, size=13), "1 2", note)
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80, "\n".join(lines)
    said = " ".join(" ".join(lines).split())
    assert "(you choose; the difference, 14, is capped at the deck)" in said, said
    for player, score in zip(ended.players, (7, 3), strict=True):
        player.score = score
    said = " ".join(" ".join(drawn(ended, difference(take=4, size=5))).split())
    assert "capped" not in said, said


@pytest.mark.parametrize(
    ("typed", "refused"),
    [
        ("4", "take 2 cards at once, not 1"),
        ("0 1 2", "take 2 cards at once, not 3"),
        ("2 2", "card 2 is named twice"),
        ("0 5", r"there is no card 5: the cards are 0\.\.4"),
        ("0 c0bea", "card 0 is named twice"),  # a copy id's start names a card too
        ("0 zz", "choose one of the offered cards"),
    ],
)
def test_a_choice_that_is_not_d_distinct_offered_cards_is_refused(typed: str, refused: str) -> None:
    with pytest.raises(CommandError, match=refused):
        picked(difference(take=2), typed)


def test_d_numbers_or_copy_ids_name_the_copies_in_the_order_typed() -> None:
    assert picked(difference(take=2), "4 0") == [copy_id(4), copy_id(0)]
    assert picked(difference(take=3), "c2bea 1 4") == [copy_id(2), copy_id(1), copy_id(4)]
    trade_one = difference(take=1)
    trade_one.trade_rule, trade_one.take_count = pb.TRADE_RULE_ONE, 0  # an older server's
    assert picked(trade_one, "3") == [copy_id(3)]
    with pytest.raises(CommandError, match=r"take one card: a single number of 0\.\.4"):
        picked(trade_one, "3 4")


def test_a_winner_who_leaves_the_pick_is_not_told_to_wait_for_themselves() -> None:
    """Found from outside: after q at the Trade One pick the winner's client ended with
    "Waiting for ann's choice." (she is ann)."""
    open_for_ann = difference(pb.TRADE_ROLE_CHOOSER, take=1)
    said = [t.plain for t in after_trade(finished(pb.TRADE_RULE_ONE), None, open_for_ann)]
    assert f"Waiting for {ANN}'s choice." not in " ".join(said), said
    assert any(re.search(r"Your choice is open for \d+ s more", line) for line in said), said
    assert "trade chooses" not in " ".join(said), said  # found from outside: no such command
    open_for_bea = difference(pb.TRADE_ROLE_GIVER, take=1)
    said = [t.plain for t in after_trade(finished(pb.TRADE_RULE_ONE, mine=B), None, open_for_bea)]
    assert any(f"{ANN} takes one of your cards" in line for line in said), said  # as before


def test_the_loser_is_kept_to_see_what_is_taken_and_told_how_to_leave() -> None:
    """The loser of a One or Difference match is kept until the winner's choice, told
    whose it is, the time left and that q leaves (before, One's loser was let go at once
    and never told which card left)."""
    stake = difference(pb.TRADE_ROLE_GIVER, take=1)
    stake.trade_rule = pb.TRADE_RULE_ONE
    for finished_view, stake_shown in (
        (finished(pb.TRADE_RULE_ONE, mine=B), stake),
        (finished(pb.TRADE_RULE_DIFFERENCE, mine=B), difference(pb.TRADE_ROLE_GIVER)),
    ):
        kept = " ".join(drawn(finished_view, stake_shown))
        assert f"Waiting for {ANN}'s choice." in kept and "q leaves." in kept, kept
        assert "You lose." in kept and "(you give)" in kept, kept


class Pending:
    """A gateway with one Difference trade waiting: the first ChooseTradeCard moves the
    cards but its answer is lost (the client's deadline); a retried request id is
    answered with the trade as it left it (gateway.proto: Idempotency)."""

    def __init__(self, state: State) -> None:
        self.stub, self.state = self, state
        self.trade, self.chosen = difference(take=2), list[g.ChooseTradeCardRequest]()

    async def GetPendingTrade(self, request: g.GetPendingTradeRequest) -> g.GetPendingTradeResponse:
        return (
            g.GetPendingTradeResponse()
            if self.chosen
            else g.GetPendingTradeResponse(trade=self.trade)
        )

    async def ChooseTradeCard(self, request: g.ChooseTradeCardRequest) -> g.ChooseTradeCardResponse:
        self.chosen.append(request)
        if len(self.chosen) == 1:
            raise TimeoutError("the answer was lost")
        return g.ChooseTradeCardResponse(trade=completed(self.trade, list(request.copy_ids)))

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)


async def test_a_choice_retried_with_its_request_id_answers_what_moved(tmp_path: Path) -> None:
    """Found from outside: `trade choose 1 --request-id R` run again after the first try
    moved the card (its answer lost) said 'no Trade One or Difference is waiting for your
    choice', exit 2, and never which card moved."""
    path = tmp_path / "state.json"
    State(path, "default").save(g.Player(player_id="a", player_name=ANN), g.AuthTokens())
    typed = parser().parse_args(["trade", "choose", "1", "3", "--request-id", "R1"])
    gateway, out = Pending(State(path, "default")), io.StringIO()
    with pytest.raises(TimeoutError):
        await trade(gateway, typed, Console(file=out))
    gateway.state = State(path, "default")  # the next command
    await trade(gateway, typed, Console(file=out, width=100))
    first, second = gateway.chosen
    assert first == second and list(second.copy_ids) == [copy_id(1), copy_id(3)]
    assert second.request_id == "R1" and second.trade_id == gateway.trade.trade_id
    with pytest.raises(CommandError, match="no Trade One or Difference is waiting"):
        await trade(gateway, parser().parse_args(["trade", "choose", "1"]), Console(file=out))


async def test_a_number_out_of_the_offer_is_refused_not_read_as_a_copy_ids_start(
    tmp_path: Path,
) -> None:
    """Found from outside: `trade choose 7` at a Trade One of five cards (0..4) took
    the offered copy whose id began with 7, a card the winner never chose."""
    path = tmp_path / "state.json"
    State(path, "default").save(g.Player(player_id="a", player_name=ANN), g.AuthTokens())
    gateway = Pending(State(path, "default"))
    gateway.trade = difference(take=1)
    gateway.trade.offered_copies[2].copy_id = "73f8aaa7-5d87-5f32-aba1-900adc3fbea6"
    with pytest.raises(CommandError, match=r"there is no card 7: the cards are 0\.\.4"):
        await trade(gateway, parser().parse_args(["trade", "choose", "7"]), Console())
    assert gateway.chosen == [], "nothing was sent"
    assert picked(gateway.trade, "73f8") == ["73f8aaa7-5d87-5f32-aba1-900adc3fbea6"]
