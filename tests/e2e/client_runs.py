"""``triad-client`` run as a process for the client tests (test_client*.py, test_lobby.py):
one state file each, logged in as a player registered through the API, its terminal
screen read as it changes.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from triad.v1 import gateway_pb2 as g

from devtools.processes import ROOT
from devtools.stack import Stack
from devtools.terminal import Terminal
from tests.e2e.sessions import Player


class Client:
    """``triad-client`` for one state file, run as a process."""

    def __init__(self, running: Stack, state: Path, address: str | None = None) -> None:
        self.argv = [
            sys.executable,
            "-m",
            "client.main",
            "--addr",
            address or running.gateway.address,
            "--ca",
            str(running.cert),
            "--state",
            str(state),
        ]

    def run(self, *args: str, profile: str = "default") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.argv, "--profile", profile, *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=90,
            cwd=ROOT,
        )

    def json(self, *args: str, profile: str = "default") -> Any:
        """The JSON a subcommand prints; it must succeed."""
        done = self.run(*args, "--json", profile=profile)
        assert done.returncode == 0, f"{args}: {done.stderr}"
        return json.loads(done.stdout)

    def fails(self, *args: str, code: int = 1) -> str:
        """The one line a failing subcommand prints: no traceback."""
        done = self.run(*args)
        assert done.returncode == code, (args, done.returncode, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("triad-client: "), done.stderr
        return lines[0]


def signed_in(running: Stack, state: Path, me: g.RegisterResponse) -> Client:
    """The client with ``me`` logged in on its default profile, for a player registered
    through the API."""
    logged_in(state, me.player.player_id, me.player.player_name, me.tokens)
    return Client(running, state)


def logged_in(state: Path, player_id: str, name: str, tokens: g.AuthTokens) -> None:
    """``state`` as the client's own log-in writes it, on its default profile."""
    me = {
        "player_id": player_id,
        "player_name": name,
        "access_token": tokens.access_token,
        "refresh_token": tokens.refresh_token,
    }
    state.write_text(json.dumps({"default": me}))


async def keep_reading(terminal: Terminal) -> None:
    while True:
        terminal.text()
        await asyncio.sleep(0.05)


def client_of(running: Stack, player: Player, directory: Path) -> list[str]:
    """``triad-client``'s command line, logged in as ``player``."""
    state = directory / f"state-{player.name}.json"
    logged_in(state, player.id, player.name, player.tokens)
    return Client(running, state).argv
