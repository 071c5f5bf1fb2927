"""The background loop: an outage is told once, a bug every time, and the loop lives on."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from services.platform.background import DueSoon, every, utc_now
from services.platform.tests.logcapture import captured_logs


async def run_steps(outcomes: list[BaseException | bool]) -> int:
    """Run ``every`` over scripted step outcomes; stop when they are used up."""
    stop = asyncio.Event()
    calls = 0

    async def step() -> bool:
        nonlocal calls
        calls += 1
        if calls >= len(outcomes):
            stop.set()
        outcome = outcomes[min(calls, len(outcomes)) - 1]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    await asyncio.wait_for(every(stop, 0.001, step), 10)
    return calls


async def test_an_outage_is_one_warning_then_one_recovery_line_and_no_traceback() -> None:
    refused = ConnectionRefusedError(111, "Connection refused")
    with captured_logs() as logs:
        calls = await run_steps([refused, refused, refused, True, False])
    assert calls == 5
    warnings = logs.events("background step cannot reach a server; retrying")
    assert len(warnings) == 1 and "exception" not in warnings[0]
    assert [line["after_failures"] for line in logs.events("background step recovered")] == [3]
    assert not logs.events("background step failed; retrying")


async def test_a_bug_is_logged_with_its_traceback_every_time() -> None:
    with captured_logs() as logs:
        await run_steps([KeyError("m1"), KeyError("m2"), False])
    failures = logs.events("background step failed; retrying")
    assert len(failures) == 2 and all("KeyError" in line["exception"] for line in failures)
    # Which loop failed (a runbook greps for it): the step, by module and name.
    assert {line["step"] for line in failures} == {f"{__name__}.run_steps.<locals>.step"}


async def looks_in(
    seconds: float,
    next_due: float | None,
    wake_after: float | None = None,
    due_in: float = 0.0,
    pause: float = 10.0,
    asked: list[int] | None = None,
) -> int:
    """How often an idle loop with a 10-s pause looks in ``seconds`` when its earliest
    work is ``next_due`` seconds away; ``wake_after``: this process writes work due in
    ``due_in`` seconds at that moment."""
    stop, due, looks = asyncio.Event(), DueSoon(), 0

    async def step() -> bool:
        nonlocal looks
        looks += 1
        return False

    async def earliest() -> datetime | None:
        if asked is not None:
            asked.append(1)
        return None if next_due is None else utc_now() + timedelta(seconds=next_due)

    loop = asyncio.ensure_future(every(stop, pause, step, next_due=earliest, due=due))
    if wake_after is not None:
        await asyncio.sleep(wake_after)
        due.due_at(utc_now() + timedelta(seconds=due_in))
        await asyncio.sleep(seconds - wake_after)
    else:
        await asyncio.sleep(seconds)
    stop.set()
    await asyncio.wait_for(loop, 5)
    return looks


async def test_an_idle_loop_sleeps_until_the_next_due_time_not_a_poll_interval() -> None:
    assert await looks_in(0.5, next_due=None) == 1  # nothing waits: one look per pause
    assert 3 <= await looks_in(0.5, next_due=0.1) <= 7  # work due every 0.1 s


async def test_work_written_here_due_sooner_wakes_the_sleeping_loop() -> None:
    assert await looks_in(0.5, next_due=None, wake_after=0.2) == 2
    # work due later than the loop would look anyway does not wake it
    assert await looks_in(0.5, next_due=None, wake_after=0.2, due_in=60.0) == 1


async def test_an_idle_loop_asks_only_for_the_next_due_time_once_per_pause() -> None:
    asked: list[int] = []
    assert await looks_in(0.55, next_due=None, pause=0.1, asked=asked) == 1
    assert 4 <= len(asked) <= 7  # one question per 0.1 s, and no step


async def test_work_due_but_held_elsewhere_is_looked_at_again_shortly_not_in_a_spin() -> None:
    asked: list[int] = []
    looks = await looks_in(0.5, next_due=-1.0, pause=10.0, asked=asked)  # always overdue
    assert 4 <= looks <= 15  # every HELD_ELSEWHERE_SECONDS (0.05 s), not thousands


async def test_overdue_work_is_stepped_on_even_with_a_pause_under_the_look_again() -> None:
    """A short poll (tests set TRIAD_TIMER_POLL_SECONDS to 0.02) is no longer than the
    0.05 s an overdue look waits: the loop must still run its step on overdue work, not
    only look at its due time forever (a draft's deadline never fired)."""
    looks = await looks_in(0.5, next_due=-1.0, pause=0.02)  # always overdue
    assert looks >= 4  # about every 0.02-0.05 s; before the fix, the first look alone
