"""GroupCommit: who waits for whom, and who gets which outcome."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from services.platform.groupcommit import GroupCommit


class Recorder:
    """A flush that records its batches and can be held open by the test."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail: BaseException | None = None

    async def __call__(self, commands: Sequence[str]) -> list[str | BaseException]:
        self.batches.append(list(commands))
        await self.gate.wait()
        if self.fail is not None:
            raise self.fail
        return [ValueError(c) if c.startswith("bad") else c.upper() for c in commands]


async def test_a_lone_command_is_written_at_once_by_itself() -> None:
    flush = Recorder()
    group: GroupCommit[str, str] = GroupCommit(flush)
    assert await group.submit("a") == "A"
    assert flush.batches == [["a"]]


async def test_commands_arriving_during_a_flush_go_together_in_the_next() -> None:
    flush = Recorder()
    sizes: list[int] = []
    group: GroupCommit[str, str] = GroupCommit(flush, observe=sizes.append)
    flush.gate.clear()
    first = asyncio.create_task(group.submit("a"))
    await asyncio.sleep(0)  # the flusher starts with "a" alone and waits at the gate
    await asyncio.sleep(0)
    rest = [asyncio.create_task(group.submit(c)) for c in "bcd"]
    await asyncio.sleep(0)
    assert flush.batches == [["a"]]
    assert group.waiting == 3
    flush.gate.set()
    assert await first == "A"
    assert await asyncio.gather(*rest) == ["B", "C", "D"]
    assert flush.batches == [["a"], ["b", "c", "d"]]
    assert sizes == [1, 3]
    assert group.waiting == 0


async def test_each_caller_gets_its_own_outcome_and_a_refusal_only_its_own() -> None:
    group: GroupCommit[str, str] = GroupCommit(Recorder())
    results = await asyncio.gather(
        *(group.submit(c) for c in ("x", "bad-y", "z")), return_exceptions=True
    )
    assert results[0] == "X" and results[2] == "Z"
    assert isinstance(results[1], ValueError) and str(results[1]) == "bad-y"


async def test_a_failed_flush_fails_every_command_of_its_batch_and_the_next_batch_runs() -> None:
    flush = Recorder()
    group: GroupCommit[str, str] = GroupCommit(flush)
    flush.fail = ConnectionResetError("the database went away")
    results = await asyncio.gather(group.submit("a"), group.submit("b"), return_exceptions=True)
    assert all(isinstance(r, ConnectionResetError) for r in results)
    flush.fail = None
    assert await group.submit("c") == "C"


async def test_batches_hold_at_most_max_batch_commands() -> None:
    flush = Recorder()
    group: GroupCommit[str, str] = GroupCommit(flush, max_batch=2)
    assert await asyncio.gather(*(group.submit(c) for c in "abcde")) == list("ABCDE")
    assert all(len(b) <= 2 for b in flush.batches)
    assert [c for b in flush.batches for c in b] == list("abcde")


async def test_a_caller_that_gives_up_does_not_break_the_batch() -> None:
    flush = Recorder()
    group: GroupCommit[str, str] = GroupCommit(flush)
    flush.gate.clear()
    quitter = asyncio.create_task(group.submit("a"))
    stayer = asyncio.create_task(group.submit("b"))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    quitter.cancel()
    flush.gate.set()
    assert await stayer == "B"
    with pytest.raises(asyncio.CancelledError):
        await quitter
    assert flush.batches == [["a", "b"]]


async def test_under_concurrency_a_lingering_flush_waits_for_more_commands() -> None:
    flush = Recorder()
    # A long linger, so that a loaded machine's stall between the submits (two pytest
    # workers and a backend besides: seen over 40 ms) cannot outlast it.
    group: GroupCommit[str, str] = GroupCommit(flush, linger=0.5)
    first = [asyncio.create_task(group.submit(c)) for c in "ab"]  # two at once: concurrency
    await asyncio.sleep(0.01)  # within the linger: "c" still joins their batch
    late = asyncio.create_task(group.submit("c"))
    assert await asyncio.gather(*first, late) == ["A", "B", "C"]
    assert flush.batches == [["a", "b", "c"]]


async def test_a_lone_command_does_not_linger() -> None:
    flush = Recorder()
    group: GroupCommit[str, str] = GroupCommit(flush, linger=0.05)
    alone = asyncio.create_task(group.submit("a"))
    await asyncio.sleep(0.01)  # a lingering flush would still be waiting for company
    assert flush.batches == [["a"]]
    assert await alone == "A"


def test_linger_cannot_be_negative() -> None:
    with pytest.raises(ValueError, match="linger"):
        GroupCommit(Recorder(), linger=-0.001)


async def test_time_spent_behind_a_flush_in_flight_counts_toward_the_linger() -> None:
    """b and c queue behind a's flush for longer than the linger: once it is done they go
    at once, without lingering again, so d, right behind them, is a batch of its own."""
    flush = Recorder()
    group: GroupCommit[str, str] = GroupCommit(flush, linger=0.05)
    flush.gate.clear()
    first = asyncio.create_task(group.submit("a"))
    await asyncio.sleep(0)
    await asyncio.sleep(0)  # a is being written, held at the gate
    queued = [asyncio.create_task(group.submit(c)) for c in "bc"]
    await asyncio.sleep(0.08)  # longer than the linger
    flush.gate.set()
    await first
    await asyncio.sleep(0.01)
    later = asyncio.create_task(group.submit("d"))
    assert await asyncio.gather(*queued, later) == ["B", "C", "D"]
    assert flush.batches == [["a"], ["b", "c"], ["d"]]
