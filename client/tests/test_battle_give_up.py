"""``q`` on the battle screen asks before it gives up (client/forfeit_question.py), as
on the match screen: one key slipped must not lose a battle. On a real terminal (a
pseudo-terminal read by pyte) against client/tests/battling.py's stand-in, whose
battle ends only by the player's GiveUp."""

from __future__ import annotations

import sys

from devtools.terminal import Terminal

ASKED = "Give up this battle?"
SIZE = {"COLUMNS": "80", "LINES": "24"}


async def test_q_asks_first_and_gives_up_only_once_confirmed() -> None:
    """Found from outside (the match screen's, the same here): `q` and Enter gave the
    battle up at once. n keeps playing; q then y gives up."""
    terminal = Terminal([sys.executable, "-m", "client.tests.battling", "stays"], SIZE)
    try:
        await terminal.until(lambda s: "plan (card" in s, "the plan prompt")
        terminal.type("q\r")
        asked = await terminal.until(lambda s: ASKED in s, "the question")
        assert "q or y confirms; anything else plays on" in " ".join(asked.split()), asked
        terminal.type("n\r")
        kept = await terminal.until(lambda s: "The battle goes on." in s, "the battle kept")
        assert "finished" not in kept and "plan (card" in kept, kept
        terminal.type("q\r")
        await terminal.until(lambda s: ASKED in s, "the question again")
        terminal.type("y\r")
        await terminal.until(lambda s: "You gave up: you lost." in s, "the end")
        assert terminal.process.wait(timeout=30) == 0
    finally:
        terminal.close()


async def test_a_seat_the_cpu_took_over_is_said_at_once() -> None:
    """Found from outside: back after the CPU took her seat, the screen showed the CPU's
    plan as hers with no prompt, and nothing said why until a line was typed."""
    terminal = Terminal([sys.executable, "-m", "client.tests.battling", "taken"], SIZE)
    try:
        shown = await terminal.until(lambda s: "CPU plays your seat" in s, "the takeover")
        told = " ".join(shown.split())
        assert "you lose this battle whatever happens, and may watch it end" in told, shown
        assert "plan (card" not in shown, "no prompt: she may not play"
    finally:
        terminal.close()
