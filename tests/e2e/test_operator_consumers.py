"""Operators replay consumers and run replicas (issue 16, item 11): ``triad-admin consumer
list|reset`` as a process against a running backend, and the launcher running two
processes of the match and collection services behind one gateway.

The backend has its own NATS server (so its event stream holds only this module's
events: a replay from the beginning replays exactly them) and its own database.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

import asyncpg
import pytest
from prometheus_client.parser import text_string_to_metric_families
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.embedded import embedded_nats
from devtools.players import bearer
from devtools.processes import free_port
from devtools.stack import Stack, checksums, stack
from devtools.testing import with_database
from tests.e2e.end_to_end import RANKED, active_view, enqueue, play, register
from tests.e2e.sessions import easy_practice

pytestmark = pytest.mark.integration
ADMIN = Path(sys.executable).parent / "triad-admin"
NOT_STATE = ("processed_events", "event_consumers", "relay_checkpoints")
"""Tables that record the consumers' and relays' progress, not the game's state."""


@pytest.fixture(scope="module")
def database(postgres_url: str) -> Iterator[str]:
    name = f"triad_test_{uuid4().hex[:16]}"
    run_sql(postgres_url, f'CREATE DATABASE "{name}" TEMPLATE template0')
    try:
        yield with_database(postgres_url, name)
    finally:
        run_sql(postgres_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run_sql(url: str, sql: str) -> None:
    async def execute() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    with ThreadPoolExecutor(1) as worker:
        worker.submit(asyncio.run, execute()).result()


@pytest.fixture(scope="module")
def backend(database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    directory = tmp_path_factory.mktemp("operator")
    with (
        embedded_nats(directory / "nats") as nats_url,
        stack(database, nats_url, directory, replicas={"match": 2, "collection": 2}) as running,
    ):
        yield running


@pytest.fixture
async def api(backend: Stack) -> AsyncIterator[Any]:
    async with backend.channel() as channel:
        yield backend.api(channel)


def admin(backend: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    """``triad-admin`` as an operator runs it, with the servers' URLs in its environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIAD_")}
    settings = backend.backend.env("rating")
    env["TRIAD_DATABASE_URL"] = settings["TRIAD_DATABASE_URL"]
    env["TRIAD_NATS_URL"] = settings["TRIAD_NATS_URL"]
    return subprocess.run(
        [str(ADMIN), *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def consumers(backend: Stack) -> dict[str, dict[str, Any]]:
    done = admin(backend, "consumer", "list", "--json")
    assert done.returncode == 0, done.stderr
    return {c["name"]: c for c in json.loads(done.stdout)}


async def settled(backend: Stack, timeout: float = 30) -> dict[str, dict[str, Any]]:
    """The consumers once every one has applied everything delivered to it."""
    deadline = time.monotonic() + timeout
    while True:
        listed = await asyncio.to_thread(consumers, backend)
        if listed and all(c["caught_up"] for c in listed.values()):
            return listed
        assert time.monotonic() < deadline, f"consumers never caught up: {listed}"
        await asyncio.sleep(0.2)


async def state(backend: Stack, api: Any, players: list[g.RegisterResponse]) -> dict[str, Any]:
    """What the players see (ratings, balances, copies) and every table of the rating
    and collection schemas but the progress ones."""
    seen: dict[str, Any] = {}
    for me in players:
        meta = bearer(me.tokens)
        rating = await api.GetRating(g.GetRatingRequest(ladder=RANKED), metadata=meta)
        balance = await api.GetBalance(g.GetBalanceRequest(), metadata=meta)
        copies = await api.ListCollection(g.ListCollectionRequest(page_size=200), metadata=meta)
        seen[me.player.player_id] = (
            rating.rating.SerializeToString(deterministic=True),
            balance.SerializeToString(deterministic=True),
            sorted(e.copy.copy_id for e in copies.entries),
        )
    schemas = [backend.backend.schema(name) for name in ("rating", "collection")]
    tables = await checksums(backend.backend.env("rating")["TRIAD_DATABASE_URL"], schemas)
    seen["tables"] = {
        t: s for t, s in tables.items() if t.rsplit(".", 1)[1].strip('"') not in NOT_STATE
    }
    return seen


async def ranked_match(api: Any) -> list[g.RegisterResponse]:
    """Two players play a Ranked match through the gateway to its end; the winner (if
    any) takes a card. Returns them once the match is rated and the trade is done."""
    ann, bea = await register(api), await register(api)
    for me in (ann, bea):
        await enqueue(api, me, pb.MODE_RANKED)
    view = await active_view(api, ann)
    final = await play(api, [ann, bea], view.match_id, greedy=frozenset({ann.player.player_id}))
    if final.outcome.WhichOneof("result") == "winner_seat":
        mine = await api.GetMatchView(
            g.GetMatchViewRequest(match_id=view.match_id), metadata=bearer(ann.tokens)
        )
        winner = ann if final.outcome.winner_seat == mine.view.my_seat else bea
        deadline = time.monotonic() + 30
        while True:
            reply = await api.GetPendingTrade(
                g.GetPendingTradeRequest(), metadata=bearer(winner.tokens)
            )
            if reply.HasField("trade") and reply.trade.offered_copies:
                break
            assert time.monotonic() < deadline, "the winner was never offered a card"
            await asyncio.sleep(0.2)
        await api.ChooseTradeCard(
            g.ChooseTradeCardRequest(
                request_id=uuid4().hex,
                trade_id=reply.trade.trade_id,
                copy_id=reply.trade.offered_copies[0].copy_id,
            ),
            metadata=bearer(winner.tokens),
        )
        while True:
            reply = await api.GetPendingTrade(
                g.GetPendingTradeRequest(), metadata=bearer(winner.tokens)
            )
            if not reply.HasField("trade"):
                break
            assert time.monotonic() < deadline, "the trade never completed"
            await asyncio.sleep(0.2)
    deadline = time.monotonic() + 30
    for me in (ann, bea):
        while (
            await api.GetRating(g.GetRatingRequest(ladder=RANKED), metadata=bearer(me.tokens))
        ).rating.games != 1:
            assert time.monotonic() < deadline, "the match was never rated"
            await asyncio.sleep(0.2)
    return [ann, bea]


def rpcs_served(metrics_address: str, service: str) -> float:
    with urllib.request.urlopen(f"http://{metrics_address}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "triad_rpc_total" and sample.labels.get("service") == service
    )


async def test_the_launcher_runs_two_match_replicas_and_a_match_is_played_across_both(
    backend: Stack, api: Any
) -> None:
    parts = backend.backend.replicas("match")
    assert parts == ("match", "match-2")
    assert len({backend.backend.address(p) for p in parts}) == 2
    assert backend.backend.replicas("collection") == ("collection", "collection-2")
    me = await register(api)
    started = await api.StartPractice(
        easy_practice(),
        metadata=bearer(me.tokens),
    )
    final = await play(api, [me], started.match_id)
    assert final.status == pb.MATCH_STATUS_FINISHED
    assert final.outcome.final_scores.seat_a + final.outcome.final_scores.seat_b == 10
    # The gateway and the matchmaker spread their calls over both processes.
    served = {p: rpcs_served(backend.backend.metrics_address(p), "triad.v1.MatchService")
              for p in parts}  # fmt: skip
    assert all(count > 0 for count in served.values()), served


async def test_a_replay_from_the_start_while_running_applies_everything_again_changing_nothing(
    backend: Stack, api: Any
) -> None:
    players = await ranked_match(api)
    before = await settled(backend)
    finished = [c for c in before.values() if c["filter_subject"].endswith(".MatchFinished")]
    schemas = {c["schema"] for c in finished}
    assert schemas == {backend.backend.schema("rating"), backend.backend.schema("collection")}
    for c in finished:
        assert c["position"] > 0 and c["marks"] >= 1, c
    snapshot = await state(backend, api, players)

    reset_at = datetime.now(UTC)
    for name, c in before.items():
        done = admin(backend, "consumer", "reset", name, "--from", "0")
        assert done.returncode == 0, done.stderr
        said = done.stdout.splitlines()
        assert said[0] == (
            f"{name} ({c['schema']}) moved from {c['position']} back to 0: "
            f"{c['marks']} events will be applied again"
        )
        if c["position"]:
            assert said[1].startswith(f"replaying stream sequences 1 to {c['position']} ")

    after = await settled(backend)
    for name, c in before.items():
        # Back at the end, every mark made again: each event's handler ran once more.
        assert after[name]["position"] == c["position"], name
        assert after[name]["marks"] == c["marks"], name
        if c["marks"]:
            applied = datetime.fromisoformat(after[name]["last_applied_at"])
            assert applied > reset_at, name
    now = await state(backend, api, players)
    changed = {t for t in now["tables"] if now["tables"][t] != snapshot["tables"].get(t)}
    assert not changed, f"the replay changed {sorted(changed)}"
    assert now == snapshot


async def test_a_replay_from_a_position_applies_only_the_events_after_it(
    backend: Stack, api: Any
) -> None:
    await ranked_match(api)
    before = await settled(backend)
    rating = next(
        c
        for c in before.values()
        if c["schema"] == backend.backend.schema("rating")
        and c["filter_subject"].endswith(".MatchFinished")
    )
    position = rating["position"] - 1  # the last MatchFinished is at the position itself
    done = admin(backend, "consumer", "reset", rating["name"], "--from", str(position))
    assert done.returncode == 0, done.stderr
    said = done.stdout.splitlines()
    assert said[0].endswith(f"back to {position}: 1 events will be applied again")
    assert said[1].startswith(f"replaying stream sequences {position + 1} to {position + 1} ")
    after = await settled(backend)
    assert after[rating["name"]]["position"] == rating["position"]
    assert after[rating["name"]]["marks"] == rating["marks"]
    table = admin(backend, "consumer", "list")
    assert table.returncode == 0, table.stderr
    rows = {line.split()[1]: line.split() for line in table.stdout.splitlines()[1:] if line}
    assert rows[rating["name"]][:4] == [rating["schema"], rating["name"], str(position + 1), "0"]


async def test_a_reset_the_tool_refuses_says_why_and_changes_nothing(backend: Stack) -> None:
    before = await settled(backend)
    rating = backend.backend.env("rating")["TRIAD_RATING_CONSUMER"]
    for args, words in (
        (("no-such-consumer", "--from", "0"), "no consumer named 'no-such-consumer'"),
        ((rating, "--from", "-1"), "0 or more"),
        ((rating, "--from", "999999"), "moves a consumer back"),
        ((rating, "--from", "0", "--schema", "nowhere"), "in schema nowhere"),
    ):
        done = admin(backend, "consumer", "reset", *args)
        assert done.returncode == 1, done
        assert words in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert not done.stdout
    assert consumers(backend) == before


def test_consumer_commands_without_the_servers_urls_say_what_to_set() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIAD_")}
    done = subprocess.run(
        [str(ADMIN), "consumer", "list"], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "TRIAD_DATABASE_URL" in done.stderr and "TRIAD_NATS_URL" in done.stderr


def test_a_listing_read_in_part_or_of_a_schema_that_is_not_there_says_what_happened(
    backend: Stack,
) -> None:
    """Found from outside: `consumer list --json | head` said the servers were out of
    reach (the closed pipe was taken for them), and a misspelt --schema was told that
    consumers register when their service starts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIAD_")}
    settings = backend.backend.env("rating")
    env |= {k: settings[k] for k in ("TRIAD_DATABASE_URL", "TRIAD_NATS_URL")}
    env["PYTHONUNBUFFERED"] = "1"  # the first print meets the closed pipe, every time
    read, write = os.pipe()
    os.close(read)  # the reader went away (| head)
    try:
        done = subprocess.run(
            [str(ADMIN), "consumer", "list", "--json"],
            env=env,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (0, "")
    typo = admin(backend, "consumer", "list", "--schema", "ratnig")
    assert (typo.returncode, typo.stdout) == (1, ""), typo
    assert "in schema 'ratnig' (is the name right?" in typo.stderr, typo.stderr


@pytest.mark.parametrize("away", ["nats", "postgres"])
def test_a_server_out_of_reach_is_named_in_one_line_without_a_traceback(
    backend: Stack, away: str
) -> None:
    """Found from outside: with NATS down, `consumer list` printed nats-py's tracebacks
    for 15 s, then "cannot reach PostgreSQL or NATS" without saying which."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIAD_")}
    settings = backend.backend.env("rating")
    env |= {k: settings[k] for k in ("TRIAD_DATABASE_URL", "TRIAD_NATS_URL")}
    port = free_port()
    if away == "nats":
        env["TRIAD_NATS_URL"] = f"nats://127.0.0.1:{port}"
    else:
        env["TRIAD_DATABASE_URL"] = f"postgresql://postgres:s3cret@127.0.0.1:{port}/triad"
    done = subprocess.run(
        [str(ADMIN), "consumer", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and not done.stdout, done
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    named = "NATS" if away == "nats" else "PostgreSQL"
    assert f"cannot reach {named}" in done.stderr and f"127.0.0.1:{port}" in done.stderr
    assert "s3cret" not in done.stderr  # a database URL's password is not printed
