"""``triad-client play`` opened while a trade is pending after a finished match
(RULES.md 13, Difference; RULES.md 7, One), through the TLS gateway with every service a process on
real PostgreSQL and NATS: the winner gets the choice as right after the match (the
result line and the pick), the loser what is at stake and, at the deadline, what was
taken. The trade as the API meets it: test_trade_rules.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides, Stack
from devtools.terminal import Terminal
from tests.e2e.client_runs import signed_in
from tests.e2e.sessions import Player
from tests.e2e.test_trade_rules import difference_won, opened

pytestmark = pytest.mark.integration
CHOICE_SECONDS = 15.0

STACK_OVERRIDES: Overrides = {"collection": {"TRIAD_TRADE_CHOICE_SECONDS": str(CHOICE_SECONDS)}}
"""A choice window long enough for both screens to open, short enough to wait out."""


def screen_of(running: Stack, player: Player, directory: Path) -> Terminal:
    """``triad-client play`` in an 80x24 terminal, logged in as ``player``."""
    me = g.RegisterResponse(
        player=g.Player(player_id=player.id, player_name=player.name), tokens=player.tokens
    )
    client = signed_in(running, directory / f"state-{player.name}.json", me)
    return Terminal([*client.argv, "play"], {"COLUMNS": "80", "LINES": "24"})


def flat(screen: str) -> str:
    return " ".join(screen.split())


async def test_play_resumes_a_pending_difference_trade_for_the_winner_and_the_loser(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: ``play`` said 'No active match and no ticket: waiting for
    one' to both players of a trade left pending, and never offered it."""
    winner, loser, sessions, match_id, d = await difference_won(api)
    await opened(winner, match_id)
    for session in sessions.values():
        await session.close()  # the players were away when the match ended
    losing = screen_of(backend, loser, tmp_path)
    winning = screen_of(backend, winner, tmp_path)
    try:
        stake = await losing.until(lambda s: "choice." in flat(s), "the stake", timeout=30)
        assert "You lose." in stake and "No active match" not in stake, stake
        assert f"Waiting for {winner.name}'s choice." in flat(stake)
        prompt = "take card > " if d == 1 else f"take {d} cards > "
        offer = await winning.until(lambda s: prompt in s, "the offer", timeout=30)
        assert "You win!" in offer and "Trade Difference" in offer, offer
        # nobody chooses: at the deadline the server picks, and both are told what moved
        for terminal, who in ((losing, "loser"), (winning, "winner")):
            taken = await terminal.until(
                lambda s: "time ran out" in flat(s), f"what the {who} was told", timeout=40
            )
            assert f"moved to {winner.name} (picked by the server: time ran out)" in flat(taken)
            assert terminal.process.wait(timeout=30) == 0
    finally:
        losing.close()
        winning.close()


async def test_the_loser_of_trade_one_stays_to_be_told_which_card_was_taken(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: One's loser was let go before the winner chose ('takes one of
    your cards ... your collection after'), and nothing ever named the card that left,
    though no new match could start before it moved."""
    winner, loser, sessions, match_id, _ = await difference_won(api, pb.TRADE_RULE_ONE)
    trade = await opened(winner, match_id)
    for session in sessions.values():
        await session.close()  # the players were away when the match ended
    losing = screen_of(backend, loser, tmp_path)
    try:
        stake = await losing.until(lambda s: "choice." in flat(s), "the stake", timeout=30)
        assert "You lose." in stake and "q leaves" in flat(stake), stake
        taken = trade.offered_copies[2]
        choose = g.ChooseTradeCardRequest(
            request_id="pick-2", trade_id=trade.trade_id, copy_id=taken.copy_id
        )
        await winner.call("ChooseTradeCard", choose)
        told = await losing.until(lambda s: "moved to" in flat(s), "the card taken", timeout=30)
        said = flat(told)  # a holographic copy is named "Name (holo)"
        assert taken.character.name in said and f"moved to {winner.name}." in said, told
        assert losing.process.wait(timeout=30) == 0
    finally:
        losing.close()
