"""The trade at the end of a Difference match on a real terminal (a pseudo-terminal
read by pyte, as a person sees it), with ``triad-client play`` itself running against a
stand-in for the gateway that serves a hand-built match and Trade and writes down every
ChooseTradeCard (client/tests/pick.py): the winner sees the loser's deck and d, a count,
a repeat or a number out of range is refused on the screen before any call, d distinct
numbers go in one call; the server's refusal is shown as it words it; the loser sees the
stake, then what was taken."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from client.tests.pick import LATE
from client.tests.trades import copy_id
from devtools.terminal import Terminal

SIZE = {"COLUMNS": "80", "LINES": "24"}


def started(scenario: str, log: Path, rows: int = 24) -> Terminal:
    size = {**SIZE, "LINES": str(rows)}
    argv = [sys.executable, "-m", "client.tests.pick", scenario, str(log)]
    return Terminal(argv, size, rows=rows)


def shows(text: str) -> Callable[[str], bool]:
    return lambda screen: text in screen


def calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


async def test_the_winner_takes_d_cards_typed_at_once_and_mistakes_are_refused_before_a_call(
    tmp_path: Path,
) -> None:
    log = tmp_path / "calls.jsonl"
    terminal = started("winner", log)
    try:
        offer = await terminal.until(lambda s: "take 2 cards > " in s, "the offer")
        assert "You win! (ann 5 - bea 5; bea forfeited)" in offer, offer
        assert "Trade Difference: ann takes 2 cards of bea's deck (you choose)" in offer
        for n, name in enumerate(("Quistis Trepe", "Chocobo", "Behemoth", "Ifrit", "Shiva")):
            assert f"│ {n} │ {copy_id(n)[:8]} │ {name}" in offer, offer
        assert "Take 2 cards: 2 numbers of 0..4, e.g. 0 1; " in offer
        refusals = {
            "3": "Take 2 cards at once, not 1: type 2 different numbers of 0..4, e.g. 0 1.",
            "3 1 2": "Take 2 cards at once, not 3: type 2 different numbers of 0..4, e.g. 0 1.",
            "3 3": "Card 3 is named twice: type 2 different numbers.",
            "1 7": "There is no card 7: the cards are 0..4.",
            "1 x": "Choose one of the offered cards: 0..4 or a copy id.",
        }
        for typed, refused in refusals.items():
            terminal.type(typed + "\r")
            await terminal.until(shows(refused), f"the refusal of {typed!r}")
        assert calls(log) == [], "nothing refused here reaches the server"
        terminal.type("3 1\r")
        done = await terminal.until(lambda s: "Ifrit, Chocobo moved to ann." in s, "the taking")
        assert "take 2 cards > " not in done
        assert terminal.process.wait(timeout=30) == 0
        [call] = calls(log)
        assert call["copyIds"] == [copy_id(3), copy_id(1)] and "copyId" not in call
        assert call["tradeId"] == "7rade000-0000-0000-0000-000000000000" and call["requestId"]
    finally:
        terminal.close()


async def test_a_refusal_in_a_terminal_with_no_row_spare_keeps_the_prompt_on_the_screen(
    tmp_path: Path,
) -> None:
    """Found from outside: where the offer filled the terminal to its last row (13 rows
    for five cards), a refused `3 3`, `3 9` or `3` pushed the hint and the prompt off the
    screen ('...' in their place). The refusal takes the hint's line and stays there,
    the prompt under it, until the next line typed."""
    log = tmp_path / "calls.jsonl"
    terminal = started("winner", log, rows=13)
    try:
        offer = await terminal.until(lambda s: "take 2 cards > " in s, "the offer")
        assert "Take 2 cards: 2 numbers of 0..4" in offer, offer
        refusals = {
            "3 3": "Card 3 is named twice: type 2 different numbers.",
            "3 9": "There is no card 9: the cards are 0..4.",
            "3": "Take 2 cards at once, not 1: type 2 different numbers of 0..4, e.g. 0 1.",
        }
        for typed, refused in refusals.items():
            terminal.type(typed + "\r")
            screen = await terminal.until(shows(refused), f"the refusal of {typed!r}")
            await asyncio.sleep(0.6)  # redrawn since (a quarter second apart): still there
            screen = terminal.text()
            assert refused in screen and "take 2 cards > _" in screen, screen
            assert "..." not in screen and "Quistis Trepe" in screen, screen
        assert calls(log) == [], "nothing refused here reaches the server"
        terminal.type("3 1\r")
        await terminal.until(lambda s: "Ifrit, Chocobo moved to ann." in s, "the taking")
        assert terminal.process.wait(timeout=30) == 0
    finally:
        terminal.close()


async def test_a_choice_after_the_servers_pick_is_refused_as_the_server_words_it(
    tmp_path: Path,
) -> None:
    log = tmp_path / "calls.jsonl"
    terminal = started("late", log)
    try:
        await terminal.until(lambda s: "take 2 cards > " in s, "the offer")
        terminal.type("2 3\r")
        screen = await terminal.until(
            lambda s: "picked by the server: time ran out" in s, "the server's pick"
        )
        flat = " ".join(screen.split())
        assert LATE in flat, screen  # the server's words, its pick named
        assert "Quistis Trepe, Shiva moved to ann (picked by the server: time ran out)." in flat
        assert terminal.process.wait(timeout=30) == 0
        assert [c["copyIds"] for c in calls(log)] == [[copy_id(2), copy_id(3)]]
    finally:
        terminal.close()


async def test_the_loser_sees_what_is_at_stake_and_then_what_was_taken(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    terminal = started("loser", log)
    try:
        stake = await terminal.until(lambda s: "Waiting for ann's choice." in s, "the stake")
        # her own score first, as 'You lose 5-5' would say it
        assert "You lose. (bea 5 - ann 5; you forfeited)" in stake, stake
        assert "Trade Difference: ann takes 2 cards of bea's deck (you give)" in stake
        assert "s left, then the server picks; q leaves." in stake
        assert "cards > " not in stake, "the loser has nothing to choose"
        log.with_suffix(".go").touch()  # the winner chooses
        await terminal.until(lambda s: "Chocobo, Ifrit moved to ann." in s, "what was taken")
        assert terminal.process.wait(timeout=30) == 0
        assert calls(log) == []
    finally:
        terminal.close()
