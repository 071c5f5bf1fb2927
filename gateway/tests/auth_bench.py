"""How many calls a second ``Authenticator.authenticate`` answers, in-process, before and
after the token and revocation caches, in the same run.

    .venv/bin/python -m gateway.tests.auth_bench [--before REV] [--players N] [--seconds S]

"Before" is ``gateway/auth.py`` as of ``REV`` (git), loaded beside today's and given
the same signer, tokens and store: an in-memory store that answers "not revoked" and
counts its reads (the database's own cost is not in the figure, only how often the
gateway asks). Calls go round the players' tokens, as the gateway bench's placements do.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
import types
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import uuid4

from gateway import auth, limits
from gateway.accounts import TokenSigner
from gateway.store import Revocation

ROOT = Path(__file__).resolve().parents[2]


class CountingStore:
    def __init__(self) -> None:
        self.reads = 0

    async def revocation(self, player_id: str, jti: str) -> Revocation:
        self.reads += 1
        return Revocation(False, None)


def load_before(rev: str) -> types.ModuleType:
    source = subprocess.run(
        ["git", "show", f"{rev}:gateway/auth.py"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    module = types.ModuleType("gateway_auth_before")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{rev}:gateway/auth.py", "exec"), module.__dict__)
    return module


async def rate(
    authenticate: Callable[[Any], Awaitable[Any]], metadata: list[Any], seconds: float
) -> float:
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for meta in metadata:
            await authenticate(meta)
        calls += len(metadata)
    return calls / elapsed


async def main(before_rev: str, players: int, seconds: float, rounds: int) -> None:
    signer = TokenSigner(b"s" * 48, timedelta(minutes=15))
    now = datetime.now(UTC)
    metadata = [
        (("user-agent", "grpc-python"), ("authorization", "Bearer " + issued.token))
        for issued in (signer.issue(str(uuid4()), f"p{i}", now) for i in range(players))
    ]
    before_module = load_before(before_rev)
    limiter = limits.RateLimiter(1e9, 1e9)
    stores = {"before": CountingStore(), "after": CountingStore()}
    subjects: dict[str, Any] = {
        "before": before_module.Authenticator(signer, stores["before"], limiter),
        "after": auth.Authenticator(signer, stores["after"], limiter),
    }
    subjects["after"].revocations.pushed = True  # as with NATS
    results: dict[str, list[float]] = {name: [] for name in subjects}
    calls = dict.fromkeys(subjects, 0.0)
    for _ in range(rounds):  # interleaved, so both see the same machine
        for name, subject in subjects.items():
            per_second = await rate(subject.authenticate, metadata, seconds)
            results[name].append(per_second)
            calls[name] += per_second * seconds
    print(f"{players} tokens, {rounds} rounds of {seconds} s each, before = {before_rev}")
    for name, values in results.items():
        best, median = max(values), sorted(values)[len(values) // 2]
        reads = stores[name].reads / calls[name]
        print(
            f"  {name:6}  median {median:>10,.0f} calls/s  best {best:>10,.0f}  "
            f"({1e6 / median:.1f} us a call, {reads:.5f} store reads a call)"
        )
    ratio = sorted(results["after"])[rounds // 2] / sorted(results["before"])[rounds // 2]
    print(f"  after / before: {ratio:.1f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="c1ae344")
    parser.add_argument("--players", type=int, default=128)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main(args.before, args.players, args.seconds, args.rounds))
