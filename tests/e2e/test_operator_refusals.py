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
    done = subprocess.run(
        [str(ADMIN), option, value, "consumer", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and not done.stdout, done
    assert "Traceback" not in done.stderr and words in done.stderr, done.stderr


@pytest.mark.parametrize("service", ["match", "battle"])
def test_show_with_no_service_there_says_which_address_to_give(service: str) -> None:
    """Found from outside: in a match pod `triad-admin match show` without --match-addr
    dialled every match pod, which the network policies keep apart, and said only
    "Deadline Exceeded". `battle show` says it alike."""
    address = f"127.0.0.1:{free_port()}"
    done = subprocess.run(
        [str(ADMIN), f"--{service}-addr", address, service, "show", f"a-{service}"],
        env={**os.environ, "TRIAD_ADMIN_TOKEN": "token"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and not done.stdout, done
    assert f"no {service} service answered at {address}; give --{service}-addr" in done.stderr
    assert "Traceback" not in done.stderr
