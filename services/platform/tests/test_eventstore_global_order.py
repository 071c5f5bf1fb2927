"""The global order under concurrency: a reader following read_all never skips an event.

The first two tests build, step by step, the interleavings that make the naive readers
lose an event (a checkpoint on ``seq``, with or without the xmin filter) and show
``read_all`` keeping it. The third lets many writers commit out of order at random
while a reader follows, and checks the reader saw every committed event exactly once.
"""

from __future__ import annotations

import asyncio
import time
from random import Random
from typing import Any
from uuid import UUID

import pytest

from services.platform.eventstore import (
    START,
    NewEvent,
    PostgresEventStore,
    Recorded,
    WrongExpectedVersion,
)

pytestmark = pytest.mark.integration


def event() -> NewEvent:
    return NewEvent(type="CardPlaced", data=b"\x01")


async def naive_read(pool: Any, schema: str, after_seq: int) -> list[UUID]:
    """The classic mistake: a bigserial checkpoint."""
    rows = await pool.fetch(
        f"SELECT event_id FROM {schema}.events WHERE seq > $1 ORDER BY seq", after_seq
    )
    return [row["event_id"] for row in rows]


async def xmin_seq_read(pool: Any, schema: str, after_seq: int) -> list[UUID]:
    """The subtler mistake: the xmin filter, but still a checkpoint on seq alone."""
    rows = await pool.fetch(
        f"""SELECT event_id FROM {schema}.events
            WHERE seq > $1 AND tx_id < (SELECT pg_snapshot_xmin(pg_current_snapshot()))
            ORDER BY seq""",
        after_seq,
    )
    return [row["event_id"] for row in rows]


async def test_a_seq_checkpoint_skips_an_event_committed_late_and_read_all_does_not(
    pg_pool: Any, pg_schema: str, pg_store: PostgresEventStore
) -> None:
    late, early = event(), event()
    async with pg_pool.acquire() as tx1, pg_pool.acquire() as tx2:
        t1 = tx1.transaction()
        await t1.start()
        (late_recorded,) = await pg_store.append_in(tx1, "match-1", 0, [late])  # stays open
        async with tx2.transaction():
            (early_recorded,) = await pg_store.append_in(tx2, "match-2", 0, [early])
        assert late_recorded.position.seq < early_recorded.position.seq

        naive_seen = await naive_read(pg_pool, pg_schema, 0)
        ours_seen = await pg_store.read_all(START)
        assert naive_seen == [early.event_id]
        assert ours_seen == []  # tx1 is still open: nothing at or above it is final yet
        naive_checkpoint = early_recorded.position.seq

        await t1.commit()

    naive_seen += await naive_read(pg_pool, pg_schema, naive_checkpoint)
    ours_seen += await pg_store.read_all(START)

    assert naive_seen == [early.event_id], "the naive reader lost the late event"
    assert [r.event_id for r in ours_seen] == [late.event_id, early.event_id]


async def test_the_xmin_filter_with_a_seq_checkpoint_still_skips_and_the_pair_does_not(
    pg_pool: Any, pg_schema: str, pg_store: PostgresEventStore
) -> None:
    late, early = event(), event()
    async with pg_pool.acquire() as old, pg_pool.acquire() as young:
        t_old = old.transaction()
        await t_old.start()
        await old.execute("SELECT pg_current_xact_id()")  # the lower transaction id
        t_young = young.transaction()
        await t_young.start()
        (late_recorded,) = await pg_store.append_in(young, "match-1", 0, [late])
        (early_recorded,) = await pg_store.append_in(old, "match-2", 0, [early])
        assert late_recorded.position.tx_id > early_recorded.position.tx_id
        assert late_recorded.position.seq < early_recorded.position.seq
        await t_old.commit()  # xmin is now the young, still open, transaction

        naive_seen = await xmin_seq_read(pg_pool, pg_schema, 0)
        ours_seen = await pg_store.read_all(START)
        assert naive_seen == [early.event_id]
        assert [r.event_id for r in ours_seen] == [early.event_id]
        naive_checkpoint = early_recorded.position.seq

        await t_young.commit()

    naive_seen += await xmin_seq_read(pg_pool, pg_schema, naive_checkpoint)
    ours_seen += await pg_store.read_all(ours_seen[-1].position)

    assert naive_seen == [early.event_id], "the naive reader lost the late event"
    assert [r.event_id for r in ours_seen] == [early.event_id, late.event_id]


WRITERS = 16
TRANSACTIONS_PER_WRITER = 12
SHARED_STREAMS = 3


async def test_a_reader_following_concurrent_writers_sees_every_committed_event_once(
    pg_pool: Any, pg_store: PostgresEventStore
) -> None:
    committed: list[tuple[float, list[Recorded]]] = []  # (commit time, events)
    rolled_back: set[UUID] = set()
    writers_done = asyncio.Event()

    async def writer(number: int) -> None:
        rng = Random(number)
        own_versions: dict[str, int] = {}
        async with pg_pool.acquire() as conn:
            for n in range(TRANSACTIONS_PER_WRITER):
                shared = rng.random() < 0.3
                stream = f"shared-{n % SHARED_STREAMS}" if shared else f"w{number}-{n % 2}"
                batch = [event() for _ in range(rng.randint(1, 3))]
                while True:  # the handler's retry loop
                    if shared:
                        version = len(await pg_store.read_stream(stream))
                    else:
                        version = own_versions.get(stream, 0)
                    tx = conn.transaction()
                    await tx.start()
                    try:
                        if rng.random() < 0.5:  # an earlier write took the id
                            await conn.execute("SELECT pg_current_xact_id()")
                        await asyncio.sleep(rng.uniform(0, 0.004))
                        recorded = await pg_store.append_in(conn, stream, version, batch)
                        if rng.random() < 0.3:  # held open inside the server
                            await conn.execute("SELECT pg_sleep($1)", rng.uniform(0, 0.01))
                        await asyncio.sleep(rng.uniform(0, 0.006))
                    except WrongExpectedVersion:
                        await tx.rollback()
                        continue
                    if rng.random() < 0.1:
                        await tx.rollback()
                        rolled_back.update(e.event_id for e in batch)
                    else:
                        await tx.commit()
                        committed.append((time.monotonic(), recorded))
                        own_versions[stream] = version + len(batch)
                    break

    async def reader() -> list[Recorded]:
        seen: list[Recorded] = []
        checkpoint = START
        while True:
            finished = writers_done.is_set()  # before reading: then an empty page is the end
            page = await pg_store.read_all(checkpoint, limit=5)
            if page:
                seen += page
                checkpoint = page[-1].position
            elif finished:
                return seen
            else:
                await asyncio.sleep(0.001)

    following = asyncio.create_task(reader())
    await asyncio.gather(*(writer(n) for n in range(WRITERS)))
    writers_done.set()
    seen = await following

    seen_ids = [r.event_id for r in seen]
    committed_ids = {r.event_id for _, batch in committed for r in batch}
    assert len(seen_ids) == len(set(seen_ids)), "an event was read twice"
    assert set(seen_ids) == committed_ids, "an event was skipped (or a rolled-back one read)"
    assert not rolled_back & set(seen_ids)
    assert [r.position for r in seen] == sorted(r.position for r in seen)
    streams: dict[str, list[int]] = {}
    for r in seen:
        streams.setdefault(r.stream_id, []).append(r.version)
    assert all(v == list(range(1, len(v) + 1)) for v in streams.values())
    assert _commits_out_of_seq_order(committed) > 0, "the schedule never tested anything"


def _commits_out_of_seq_order(committed: list[tuple[float, list[Recorded]]]) -> int:
    """How often a transaction committed after one holding a higher seq had committed."""
    by_commit = sorted(committed, key=lambda entry: entry[0])
    highest = 0
    inversions = 0
    for _, batch in by_commit:
        if batch[0].position.seq < highest:
            inversions += 1
        highest = max(highest, batch[-1].position.seq)
    return inversions


@pytest.mark.parametrize("existing", [0, 2], ids=["new-stream", "existing-stream"])
async def test_exactly_one_of_concurrent_appends_at_the_same_version_wins(
    pg_pool: Any, pg_store: PostgresEventStore, existing: int
) -> None:
    if existing:
        await pg_store.append("match-1", 0, [event() for _ in range(existing)])
    contenders = 12
    all_inserted = asyncio.Barrier(contenders)

    async def contend() -> list[Recorded]:
        async with pg_pool.acquire() as conn, conn.transaction():
            await all_inserted.wait()
            recorded = await pg_store.append_in(conn, "match-1", existing, [event()])
            await asyncio.sleep(0.05)  # hold the new row so the others queue behind it
            return recorded

    results = await asyncio.gather(*(contend() for _ in range(contenders)), return_exceptions=True)

    winners = [r for r in results if isinstance(r, list)]
    losers = [r for r in results if isinstance(r, WrongExpectedVersion)]
    assert (len(winners), len(losers)) == (1, contenders - 1), results
    stream = await pg_store.read_stream("match-1")
    assert [r.version for r in stream] == list(range(1, existing + 2))
    assert stream[-1].event_id == winners[0][0].event_id
