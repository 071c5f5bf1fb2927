"""Waiters: who is woken, and which version a notice left for them."""

from __future__ import annotations

from services.platform.notifier import Waiters


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
