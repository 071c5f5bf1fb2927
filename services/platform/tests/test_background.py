"""The background loop: an outage is told once, a bug every time, and the loop lives on."""

from __future__ import annotations

import asyncio

from services.platform.background import every
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
