"""Waiters: who is woken, and which version a notice left for them; the Notifier's
reading of a notice over real PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import pytest

from services.platform.notifier import Notifier, Waiters


def test_a_wake_sets_only_the_watchers_of_its_key_and_keeps_the_highest_version() -> None:
    waiters = Waiters()
    with waiters.watch("m1") as one, waiters.watch("m2") as two:
        waiters.wake("m1", 4)
        waiters.wake("m1", 3)  # a late, older notice does not lower it
        assert one.is_set() and not two.is_set()
        assert waiters.version_of("m1") == 4
        assert waiters.version_of("m2") is None
        waiters.wake("m2")  # a notice without a version
        assert two.is_set() and waiters.version_of("m2") is None


def test_versions_go_with_the_last_watcher_and_are_not_kept_for_unwatched_keys() -> None:
    waiters = Waiters()
    waiters.wake("m1", 9)
    assert waiters.version_of("m1") is None
    with waiters.watch("m1"):
        waiters.wake("m1", 2)
    with waiters.watch("m1"):
        assert waiters.version_of("m1") is None


def test_waking_all_forgets_the_versions() -> None:
    waiters = Waiters()
    with waiters.watch("m1") as event:
        waiters.wake("m1", 5)
        event.clear()
        waiters.wake_all()
        assert event.is_set() and waiters.version_of("m1") is None


@pytest.mark.integration
async def test_one_notice_of_many_lines_wakes_each_key_with_its_version(
    database_url: str,
) -> None:
    """A group commit notifies its keys together, a ``<key>:<version>`` line each."""
    channel = f"triad_test_{uuid.uuid4().hex[:8]}"
    notifier = Notifier(database_url, channel)
    await notifier.start()
    try:
        with notifier.watch("m1") as one, notifier.watch("m2") as two:
            conn = await asyncpg.connect(database_url)
            try:
                await conn.execute("SELECT pg_notify($1, $2)", channel, "m1:3\nm9:1\nm2:7")
            finally:
                await conn.close()
            async with asyncio.timeout(10):
                await one.wait()
                await two.wait()
            assert notifier.version_of("m1") == 3
            assert notifier.version_of("m2") == 7
    finally:
        await notifier.close()
