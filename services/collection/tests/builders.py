"""Builders for the collection's tests: copies of catalog characters, a fixed clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from services.collection.domain.catalog import Character, load_catalog
from services.collection.domain.events import CopySource, OwnedCopy

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
CATALOG = load_catalog()


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def of_rank(stars: int, n: int = 0) -> Character:
    return CATALOG.of_rank(stars)[n]


def copy(copy_id: str, character: Character, owner: str = "p1") -> OwnedCopy:
    return OwnedCopy(copy_id, owner, character, False, None, CopySource.GRANT, T0)


def legal_copies(owner: str = "p1", prefix: str = "c") -> list[OwnedCopy]:
    """Five copies making a legal deck: ranks 1, 1, 2, 3, 4."""
    ranks = [(1, 0), (1, 1), (2, 0), (3, 0), (4, 0)]
    return [copy(f"{prefix}{i}", of_rank(s, n), owner) for i, (s, n) in enumerate(ranks)]
