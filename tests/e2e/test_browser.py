"""The browser client in a real browser: headless Chromium (Debian's ``chromium``, driven
by ``playwright-core`` from web/e2e/play.mjs) opens the gateway's web port on a phone's
viewport, registers, plays a whole practice match by clicking, and reads the final
screen. The whole backend runs as processes (devtools/stack.py).

What it needs is installed by ``make test`` (``make web``: the npm packages and the
built page; Chromium with apt when run as root). Where either cannot be had, the test
is skipped and says which, and the command that installs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools.stack import Stack, stack

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
RESULTS = ROOT / "bench" / "results"
CHROMIUM = "/usr/bin/chromium"


def chromium() -> str:
    """Debian's Chromium, installed here with apt when missing and run as root."""
    if Path(CHROMIUM).exists():
        return CHROMIUM
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip("Chromium is not installed: run `sudo apt-get install -y chromium`")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        done = subprocess.run(
            command, check=False, env=env, capture_output=True, text=True, timeout=900
        )
        if done.returncode != 0:
            pytest.skip(
                f"Chromium could not be installed ({' '.join(command)}): {done.stderr[-300:]}"
            )
    return CHROMIUM


def built_client() -> None:
    """web/dist and playwright-core, from ``make web`` (run here if missing)."""
    ready = (WEB / "dist" / "app.js").exists() and (
        WEB / "node_modules" / "playwright-core"
    ).exists()
    if ready:
        return
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed, so the browser client cannot be built (`make web`)")
    done = subprocess.run(
        ["make", "web"], check=False, cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    if done.returncode != 0:
        pytest.skip(f"`make web` failed, so there is no client to test: {done.stderr[-300:]}")


@pytest.fixture(scope="module")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    built_client()
    with stack(shared_database_url, nats_url, tmp_path_factory.mktemp("browser")) as running:
        yield running


def test_a_whole_practice_match_played_by_clicking(backend: Stack, tmp_path: Path) -> None:
    browser = chromium()
    shot = tmp_path / "browser-practice.png"
    env = {
        **os.environ,
        "TRIAD_WEB_URL": backend.backend.web_url(),
        "TRIAD_SCREENSHOT": str(shot),
        "TRIAD_CHROMIUM": browser,
    }
    done = subprocess.run(
        ["node", "e2e/play.mjs"],
        check=False,
        cwd=WEB,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    played = json.loads(done.stdout.strip().splitlines()[-1])
    assert played["failures"] == []
    # The final screen names the result and the score of a full 3x3 board.
    assert played["result"].startswith(("You won", "You lost", "Draw")), played
    assert "the board is full" in played["result"]
    mine, theirs = (int(n) for n in played["result"].split(":")[0].split()[-3::2])
    assert mine + theirs == 10  # nine cells and the card left in one hand
    assert played["cells"] == 9 and played["placed"] == 9
    assert played["moves"] in (4, 5)  # the player placed every other card
    # The session's pushes were shown as they came.
    assert any("session opened" in line for line in played["pushes"]), played["pushes"]
    # The board fits the phone's screen: three square cells a row, the whole of it in view.
    board, phone = played["board"], played["viewport"]
    assert board["x"] > 0 and board["x"] + board["width"] <= phone["width"], board
    assert board["height"] <= phone["height"] / 2 and board["width"] > phone["width"] / 2, board
    assert shot.stat().st_size > 10_000
    RESULTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, RESULTS / "browser-practice.png")
