"""The session inbox: pushes in order, a waiting session woken by the next push, and a
wait given up (the heartbeat's timeout) leaving nothing behind."""

from __future__ import annotations

import asyncio
import tracemalloc

import pytest

from gateway.pushes import RESYNC, Inbox, Push


def _push(n: int) -> Push:
    return Push(f"field{n}", None)


async def test_pushes_come_out_oldest_first() -> None:
    inbox = Inbox()
    for n in range(3):
        inbox.put_nowait(_push(n))
    assert [await inbox.get() for _ in range(3)] == [_push(0), _push(1), _push(2)]


async def test_a_waiting_session_is_woken_by_the_next_push() -> None:
    inbox = Inbox()
    waiting = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    assert not waiting.done()
    inbox.put_nowait(Push(RESYNC, None))
    assert await asyncio.wait_for(waiting, 1) == Push(RESYNC, None)


async def test_a_wait_given_up_loses_no_later_push() -> None:
    inbox = Inbox()
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.01):
            await inbox.get()
    inbox.put_nowait(_push(1))
    inbox.put_nowait(_push(2))
    assert await inbox.get() == _push(1)
    assert await inbox.get() == _push(2)


def test_an_idle_inbox_is_small() -> None:
    """Its reason to exist: a gateway holds one per connected player (issue 18's
    budget is 40 kB a session; an asyncio.Queue alone is over 3 kB)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        inboxes = [Inbox() for _ in range(1000)]
        each = (tracemalloc.get_traced_memory()[0] - before) / len(inboxes)
    finally:
        tracemalloc.stop()
    assert each < 300, f"an idle inbox holds {each:.0f} bytes"
