"""The queue on a real terminal (a pseudo-terminal read by pyte, as a person sees it),
``triad-client play`` against a stand-in gateway (client/tests/queued.py): the ticket
the session opens with is the queue shown at once, and ``b`` gives it up for a practice
bot, although no ``queue_status`` push ever came (an Unranked queue sends none while it
waits for the bot); a challenger waiting with ``play`` is told whom it waits for, and
that the challenge expired once it did; a player waiting with ``play`` is told of a
challenge to them at once, and of its end."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from client.tests.queued import TABLE, TICKET
from devtools.terminal import Terminal

SIZE = {"COLUMNS": "80", "LINES": "24"}


async def test_the_ticket_the_session_opens_with_is_shown_and_b_switches_to_a_bot(
    tmp_path: Path,
) -> None:
    log = tmp_path / "calls.jsonl"
    terminal = Terminal([sys.executable, "-m", "client.tests.queued", str(log)], SIZE)
    try:
        waiting = await terminal.until(lambda s: "In the Unranked queue" in s, "the queue")
        assert "No active match and no ticket" not in waiting, waiting
        assert "b: play a practice bot now" in " ".join(waiting.split()), waiting
        assert "0 waiting" not in waiting, "the count is not known from the status alone"
        terminal.type("b")  # found from outside: typed blind, nothing shown until Enter
        await terminal.until(lambda s: "b and Enter > b_" in s, "the key typed")
        terminal.type("\r")
        switched = await terminal.until(
            lambda s: "Switched from the queue to a practice match" in s, "the switch"
        )
        assert "[BOT] Nimbus Cat" in switched, switched
        calls = [json.loads(line) for line in log.read_text().splitlines()]
        assert [c["ticketId"] for c in calls] == [TICKET]
    finally:
        terminal.close()


async def test_ctrl_c_on_the_queue_play_shows_leaves_the_queue(tmp_path: Path) -> None:
    """Found from outside: ``triad-client play`` showed the queue with "Ctrl-C leaves",
    but Ctrl-C left the ticket queued, and the Ranked match it found began (and was
    lost, a card traded away) without the player. Now it leaves, as ``queue`` does."""
    log = tmp_path / "calls.jsonl"
    terminal = Terminal([sys.executable, "-m", "client.tests.queued", str(log)], SIZE)
    try:
        waiting = await terminal.until(lambda s: "In the Unranked queue" in s, "the queue")
        assert "Ctrl-C leaves" in " ".join(waiting.split()), waiting
        terminal.type("\x03")
        left = await terminal.until(lambda s: "Left the queue." in s, "the queue left")
        assert terminal.process.wait(timeout=30) == 130, left
        cancels = log.with_suffix(".cancel").read_text().splitlines()
        assert [json.loads(c)["ticketId"] for c in cancels] == [TICKET]
    finally:
        terminal.close()


async def test_a_challenger_waiting_with_play_is_told_the_table_waits_for_its_guest(
    tmp_path: Path,
) -> None:
    argv = [sys.executable, "-m", "client.tests.queued", str(tmp_path / "calls"), "hosted"]
    terminal = Terminal(argv, SIZE)
    try:
        waiting = " ".join(
            (await terminal.until(lambda s: TABLE[:8] in s, "the hosted table")).split()
        )
        assert "No active match and no ticket" not in waiting, waiting
        assert f"Your table {TABLE[:8]} is open: waiting for bea to accept" in waiting, waiting
        assert "triad-client close closes it" in waiting, waiting
        assert "Ctrl-C leaves it open; expires at " in waiting, waiting  # and when
    finally:
        terminal.close()


async def test_a_challenger_is_told_their_challenge_expired_and_the_screen_ends(
    tmp_path: Path,
) -> None:
    """Found from outside: the screen went from waiting for bea to the generic 'No
    active match and no ticket: waiting for one', as if there had been no challenge."""
    argv = [sys.executable, "-m", "client.tests.queued", str(tmp_path / "calls"), "expired"]
    terminal = Terminal(argv, SIZE)
    try:
        await terminal.until(lambda s: "to accept your" in s, "the challenge waiting")
        told = await terminal.until(lambda s: "expired" in s, "the expiry")
        assert f"Your challenge to bea expired (table {TABLE[:8]})." in " ".join(told.split())
        assert "No active match" not in told, told
        assert terminal.process.wait(timeout=30) == 0
    finally:
        terminal.close()


async def test_a_player_waiting_with_play_is_told_of_a_challenge_at_once(
    tmp_path: Path,
) -> None:
    """Found from outside (RULES.md 14: the challenged player is told at once on their
    session stream): the server pushed the challenge, but ``play`` dropped it and kept
    saying "No active match and no ticket: waiting for one"; nor was its withdrawal told."""
    argv = [sys.executable, "-m", "client.tests.queued", str(tmp_path / "calls"), "challenged"]
    terminal = Terminal(argv, SIZE)
    try:
        told = " ".join((await terminal.until(lambda s: "challenges you" in s, "the push")).split())
        assert "ann challenges you: All Open, 4x4, house hands, No trade" in told, told
        assert f"triad-client accept {TABLE[:8]} or decline {TABLE[:8]}" in told, told
        gone = await terminal.until(lambda s: "withdrew" in s, "the withdrawal")
        assert f"ann withdrew the challenge (table {TABLE[:8]})." in " ".join(gone.split())
    finally:
        terminal.close()


async def test_the_battle_queue_offers_no_practice_bot(tmp_path: Path) -> None:
    """Found from outside: waiting in the Battle queue said "b: play a practice bot now",
    and b answered "practising from the Draft queue needs a deck of yours"."""
    log = tmp_path / "calls.jsonl"
    argv = [sys.executable, "-m", "client.tests.queued", str(log), "battle"]
    terminal = Terminal(argv, SIZE)
    try:
        waiting = " ".join(
            (await terminal.until(lambda s: "In the Battle queue" in s, "the queue")).split()
        )
        assert "practice bot" not in waiting and "Ctrl-C leaves" in waiting, waiting
        terminal.type("b\r")
        told = await terminal.until(lambda s: "No match yet" in s, "the answer to b")
        assert not log.exists(), "no SwitchToPractice is sent"
        assert "practice bot" not in " ".join(told.split()), told
    finally:
        terminal.close()


async def test_a_battle_the_queue_pairs_is_played_on_the_play_screen(tmp_path: Path) -> None:
    """Found from outside: triad-client play, waiting in the Battle queue, went on with
    "No active match and no ticket: waiting for one" once the queue paired the player,
    while the battle's turns ran out unplayed."""
    argv = [sys.executable, "-m", "client.tests.queued", str(tmp_path / "calls"), "paired"]
    terminal = Terminal(argv, SIZE)
    try:
        await terminal.until(lambda s: "In the Battle queue" in s, "the queue")
        # The screen's title and plan prompt, not "your Skirmish battle resumes" said
        # just before it (found by a fresh clone's make test: matched that line first).
        shown = await terminal.until(
            lambda s: "Skirmish  turn" in s and "plan (card" in s, "the battle's screen"
        )
        assert "turn 2/10" in shown, shown
        assert "No active match" not in shown, shown
    finally:
        terminal.close()


async def test_until_the_session_opens_the_screen_says_so_not_that_nothing_goes_on(
    tmp_path: Path,
) -> None:
    """Found from outside: `play` right after a client was killed mid-match said "No
    active match and no ticket: waiting for one" for a second, then showed the match."""
    log = tmp_path / "calls.jsonl"
    command = [sys.executable, "-m", "client.tests.queued", str(log), "late"]
    terminal = Terminal(command, SIZE)
    try:
        opening = await terminal.until(lambda s: "Opening your session" in s, "the opening")
        assert "No active match" not in opening, opening
        resumed = await terminal.until(lambda s: "Your turn" in s, "the match", timeout=10)
        assert "Opening your session" not in resumed and "No active match" not in resumed
    finally:
        terminal.close()
