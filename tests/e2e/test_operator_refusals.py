"""``triad-admin`` given what it cannot use: a malformed server URL, a match or battle
service that does not answer. Each is refused in a line or two saying what to give instead,
without a traceback; no backend is started."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from devtools.processes import free_port

ADMIN = Path(sys.executable).parent / "triad-admin"


def admin(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``triad-admin args`` run to its end (``env``: the whole environment, else ours)."""
    return subprocess.run(
        [str(ADMIN), *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def show_unanswered(service: str) -> tuple[str, subprocess.CompletedProcess[str]]:
    """``SERVICE show`` aimed at an address nobody serves: the address, and the run."""
    address = f"127.0.0.1:{free_port()}"
    env = {**os.environ, "TRIAD_ADMIN_TOKEN": "token"}
    return address, admin(f"--{service}-addr", address, service, "show", f"a-{service}", env=env)


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--database-url", "mysql://triad@db/triad", "--database-url must be a postgresql:// URL"),
        (
            "--database-url",
            "postgresql://triad@db:port/triad",
            "--database-url has an invalid port",
        ),
        ("--nats-url", "http://nats:4222", "--nats-url must be nats://host:4222"),
    ],
)
def test_a_malformed_server_url_is_refused_in_one_line(option: str, value: str, words: str) -> None:
    """Found from outside: `--database-url mysql://...` (or a port that is not a number)
    ended in asyncpg's traceback."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIAD_")}
    env |= {"TRIAD_DATABASE_URL": "postgresql://triad@127.0.0.1/triad"}
    env |= {"TRIAD_NATS_URL": "nats://127.0.0.1:4222"}
    done = admin(option, value, "consumer", "list", env=env)
    assert done.returncode == 2 and not done.stdout, done
    assert "Traceback" not in done.stderr and words in done.stderr, done.stderr


@pytest.mark.parametrize("service", ["match", "battle"])
def test_show_with_no_service_there_says_which_address_to_give(service: str) -> None:
    """Found from outside: in a match pod `triad-admin match show` without --match-addr
    dialled every match pod, which the network policies keep apart, and said only
    "Deadline Exceeded". `battle show` says it alike."""
    address, done = show_unanswered(service)
    assert done.returncode == 1 and not done.stdout, done
    assert f"no {service} service answered at {address}; give --{service}-addr" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_reset_without_a_position_is_refused_before_anything_moves() -> None:
    """Found by an operator review: `consumer reset NAME` without `--from` replayed the
    whole retained stream (up to 7 days), without a word. The position is now required;
    no server is asked (none is there)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIAD_")}
    env |= {"TRIAD_DATABASE_URL": f"postgresql://triad@127.0.0.1:{free_port()}/triad"}
    env |= {"TRIAD_NATS_URL": f"nats://127.0.0.1:{free_port()}"}
    done = admin("consumer", "reset", "rating", env=env)
    assert done.returncode == 2 and not done.stdout, done
    assert "--from" in done.stderr and "required" in done.stderr, done.stderr
    helped = admin("consumer", "reset", "--help")
    assert "0 replays from the start" in " ".join(helped.stdout.split())


@pytest.mark.parametrize("service", ["match", "battle"])
def test_a_show_error_is_one_line_and_the_help_says_what_it_needs(service: str) -> None:
    """Found by an operator review: every error came twice, gRPC's raw words and then
    the line saying what to do; and nothing said that `show` needs the operator token."""
    _, done = show_unanswered(service)
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
    helped = admin(service, "show", "--help")
    assert "TRIAD_ADMIN_TOKEN" in helped.stdout
    assert f"kubectl -n triad exec deploy/triad-{service}" in helped.stdout
