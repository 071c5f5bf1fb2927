"""Idempotent request keys in memory answer as the requests table does: a retry finds
its first result, a reused id is refused, a run that lost the race learns it."""

from __future__ import annotations

from copy import deepcopy

import pytest

from services.platform.requests import Request, RequestReused, RequestSeen
from services.platform.requests_memory import MemoryRequests


def test_a_retry_finds_the_first_result_and_a_new_id_finds_none() -> None:
    keys: MemoryRequests[str] = MemoryRequests()
    key = Request.of("enqueue:p1", "r-1", "ranked")
    assert keys.answered(key) is None
    keys.check_new(key)
    keys.remember(key, "ticket-1")
    assert keys.answered(Request.of("enqueue:p1", "r-1", "ranked")) == "ticket-1"
    assert keys.answered(Request.of("enqueue:p1", "r-2", "ranked")) is None
    assert keys.answered(Request.of("enqueue:p2", "r-1", "ranked")) is None  # another scope


def test_the_same_id_with_other_content_is_refused() -> None:
    keys: MemoryRequests[str] = MemoryRequests()
    keys.remember(Request.of("enqueue:p1", "r-1", "ranked"), "ticket-1")
    with pytest.raises(RequestReused):
        keys.answered(Request.of("enqueue:p1", "r-1", "casual"))


def test_a_run_whose_id_was_recorded_meanwhile_learns_it_lost() -> None:
    keys: MemoryRequests[tuple[str, int]] = MemoryRequests()
    key = Request.of("place:m1", "r-1", 4)
    keys.check_new(key)
    keys.remember(key, ("m1", 3))
    with pytest.raises(RequestSeen):
        keys.check_new(key)
    assert keys.answered(key) == ("m1", 3)


def test_no_key_is_neither_checked_nor_recorded() -> None:
    keys: MemoryRequests[str] = MemoryRequests()
    keys.check_new(None)
    keys.remember(None, "start-1")
    key = Request.of("practice:p1", "r-1")
    keys.check_new(key)
    assert keys.answered(key) is None


def test_two_records_of_the_same_requests_and_results_are_equal_and_a_copy_is_one() -> None:
    # The in-memory tables that hold the keys are snapshotted and compared by content.
    first: MemoryRequests[str] = MemoryRequests()
    second: MemoryRequests[str] = MemoryRequests()
    first.remember(Request.of("enqueue:p1", "r-1", "ranked"), "ticket-1")
    assert first != second
    second.remember(Request.of("enqueue:p1", "r-1", "ranked"), "ticket-1")
    assert first == second
    assert deepcopy(first) == first
    second.remember(Request.of("enqueue:p1", "r-2", "ranked"), "ticket-2")
    assert first != second
