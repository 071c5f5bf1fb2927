"""The match screen on a real terminal (a pseudo-terminal read by the pyte emulator, as
a person sees it): a 5x5 board with blocked cells beside two 13-card hands in 80x24, the
size a smaller terminal needs, and the round of a Sudden Death match. The frame is the
one ``triad-client play`` draws under rich's Live (client/tests/show.py)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import sys
from pathlib import Path

from triad.v1 import gateway_pb2 as g

from client.connection import State
from devtools.terminal import Terminal


async def shown(board: str, columns: int = 80, rows: int = 24) -> str:
    """The screen once the frame is drawn, the program then let go. COLUMNS and LINES
    say the terminal's size as a shell would (rich reads them first; a test runner's
    own may be in the environment)."""
    size = {"COLUMNS": str(columns), "LINES": str(rows)}
    terminal = Terminal(
        [sys.executable, "-m", "client.tests.show", board], size, columns=columns, rows=rows
    )
    try:
        return await terminal.until(lambda s: "card cell > " in s, "the prompt", timeout=30)
    finally:
        terminal.type("\r")
        terminal.close()


async def test_a_5x5_board_with_blocked_cells_and_13_card_hands_in_80x24() -> None:
    screen = await shown("5x5")
    lines = screen.splitlines()
    # The panel whole, from its top border to the prompt: nothing scrolled away.
    assert lines[0].startswith("╭") and "Rules: All Open" in lines[0], screen
    assert any(
        line.startswith("╰") and "Trade Direct - match 0f1e2d3c" in line for line in lines
    ), screen
    for cell in (1, 2, 4, 5, 7, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24):
        assert f"({cell})" in screen
    assert screen.count("#####") == 12, "four blocked cells, three lines each"
    assert len(re.findall(r"T[1-9A]R[1-9A]B[1-9A]L[1-9A]", screen)) == 26, screen
    assert "Round 1 of at most 5" in screen and "5x5, 4 blocked" in screen


async def test_a_terminal_too_small_for_a_5x5_board_says_the_size_it_needs() -> None:
    screen = await shown("5x5", columns=60, rows=20)
    assert re.search(r"This terminal is 60x20: the match needs at least \d+x\d+", screen), screen
    assert "#####" not in screen and "Your hand" not in screen


async def test_the_second_round_of_a_sudden_death_match_shows_the_round() -> None:
    screen = await shown("round2")
    assert "Round 2 of at most 5; round 1 ended 5-5" in screen, screen
    assert "Sudden Death, No trade" in screen


async def test_one_ctrl_c_at_the_password_prompt_ends_the_client(tmp_path: Path) -> None:
    """Found from outside: at `register`'s password prompt the first Ctrl-C did nothing
    (the event loop took it, blocked in the prompt) and a second was needed."""
    terminal = Terminal(
        [sys.executable, "-m", "client.main", "--state", str(tmp_path / "state.json"),
         "register", "ann"],
        {"TRIAD_PASSWORD": ""},
    )  # fmt: skip
    try:
        await terminal.until(lambda s: "Password:" in s, "the password prompt", timeout=30)
        terminal.type("\x03")
        for _ in range(50):
            if terminal.process.poll() is not None:
                break
            await asyncio.sleep(0.1)
        assert terminal.process.poll() == 130, terminal.text()
    finally:
        terminal.close()


def loading(pid: int) -> bool:
    """Whether the process has loaded gRPC's C core (the first of the client's imports)
    and so runs Python: a Ctrl-C from then on meets the client starting."""
    with contextlib.suppress(OSError):
        return "cygrpc" in Path(f"/proc/{pid}/maps").read_text()
    return False


async def test_ctrl_c_while_the_client_starts_ends_it_quietly(tmp_path: Path) -> None:
    """Found from outside: Ctrl-C in the first second of `triad-client status`, while its
    modules load, printed a KeyboardInterrupt traceback; it ends quietly (130), as Ctrl-C
    anywhere later does. The command a player types, the installed triad-client, at a
    gateway address that never answers (so that the client is still running whenever
    the Ctrl-C comes, loading or calling)."""
    state = tmp_path / "state.json"
    State(state, "default").save(
        g.Player(player_id="a", player_name="ann"), g.AuthTokens(access_token="a")
    )
    command = Path(sys.executable).with_name("triad-client")
    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen()
        argv = [
            str(command),
            "--state",
            str(state),
            "--addr",
            f"127.0.0.1:{mute.getsockname()[1]}",
        ]
        for pause in (0, 0.2, 0.5):
            terminal = Terminal([*argv, "status"], {})
            try:
                for _ in range(500):
                    if loading(terminal.process.pid) or terminal.process.poll() is not None:
                        break
                    await asyncio.sleep(0.01)
                await asyncio.sleep(pause)
                assert terminal.process.poll() is None, terminal.text()
                terminal.type("\x03")
                code = terminal.process.wait(timeout=30)
                screen = terminal.text()
                assert "Traceback" not in screen and "KeyboardInterrupt" not in screen, screen
                assert code == 130, (code, screen)
            finally:
                terminal.close()
