"""The match repository port: what the handlers need from storage, and what one
command writes, the same for every adapter (``postgres.py``, ``memory.py``).

Both adapters are held to one contract suite (``tests/test_store_contract.py``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from uuid import NAMESPACE_URL, UUID, uuid5

from services.match import codec, domain
from services.match.domain.events import MatchCreated, MatchFinished
from services.platform.errors import FailedPrecondition
from services.platform.eventstore import NewEvent, Recorded, check_append
from services.platform.requests import Request

STREAM_PREFIX = "match-"


class PlayerBusy(FailedPrecondition):
    """A human player already has an active match (RULES.md 5: at most one)."""

    @staticmethod
    def naming(name: str | None) -> PlayerBusy:
        return PlayerBusy(f"{name or 'a player'} already has an active match; finish it first")


@dataclass(frozen=True, slots=True)
class Answered:
    """A request seen before: the match and the version its first run produced."""

    match_id: str
    version: int


def stream_id(match_id: str) -> str:
    return f"{STREAM_PREFIX}{match_id}"


def event_id(match_id: str, version: int) -> UUID:
    """Deterministic event ids: a retried append of the same version gets the same id."""
    return uuid5(NAMESPACE_URL, f"triad:match:{match_id}:{version}")


def describe(timers: Sequence[domain.Deadline]) -> str:
    """The timers as operators read them in the match_timers row."""
    return json.dumps(
        [
            {"kind": t.kind.value, "seat": t.seat.name, "due": t.due.isoformat(), "turn": t.turn}
            for t in timers
        ]
    )


@dataclass(frozen=True, slots=True)
class SessionReport:
    """A session of a player opening or ending, as ``record_presence`` takes it."""

    player_id: str
    session_id: str
    opened_at: datetime
    connected: bool
    away_since: datetime | None = None
    """When an ended session ended for good (None while its client may reopen at once)."""


@dataclass(frozen=True, slots=True)
class Seated:
    """A human this command seats: the row that keeps them to one active match."""

    player_id: str
    name: str
    seat: int


@dataclass(frozen=True, slots=True)
class Write:
    """Everything one command writes, in one transaction: its events at the expected
    version, the match's timers, the humans it seats or frees, the request key."""

    stream: str
    expected: int
    events: list[NewEvent]
    match_id: str
    due: datetime | None
    timers: str
    seated: list[Seated]
    finished: bool
    request: Request | None
    version: int
    state: domain.Match
    """The state after the command (the decision's, never folded again)."""

    @staticmethod
    def of(
        before: domain.Match | None,
        decision: domain.Decision,
        request: Request | None,
        correlation_id: str,
    ) -> Write:
        after = decision.state
        match_id = after.match_id
        expected = before.version if before is not None else 0
        metadata = {"correlation_id": correlation_id} if correlation_id else {}
        new = []
        for offset, event in enumerate(decision.events, start=1):
            stored = codec.encode(event, after.cards)
            new.append(
                NewEvent(
                    type=stored.type,
                    schema_version=stored.schema_version,
                    data=stored.data,
                    metadata=metadata,
                    event_id=event_id(match_id, expected + offset),
                )
            )
        check_append(stream_id(match_id), expected, new)
        timers = domain.deadlines(after)
        seats = (
            [s for s in domain.SEATS if not after.player(s).is_bot]
            if any(isinstance(e, MatchCreated) for e in decision.events)
            else []
        )
        return Write(
            stream=stream_id(match_id),
            expected=expected,
            events=new,
            match_id=match_id,
            due=min((t.due for t in timers), default=None),
            timers=describe(timers),
            seated=[Seated(after.player(s).player_id, after.player(s).name, int(s)) for s in seats],
            finished=any(isinstance(e, MatchFinished) for e in decision.events),
            request=request,
            version=after.version,
            state=after,
        )


class TimerClaim(Protocol):
    """The match whose earliest timer is most overdue, held until the claim ends: a
    move on it meanwhile waits (PostgreSQL) or loses the race (``WrongExpectedVersion``)."""

    @property
    def match_id(self) -> str | None:
        """None: nothing was due (or every due match is claimed by someone else)."""

    async def save(self, before: domain.Match, decision: domain.Decision) -> domain.Match:
        """Save what the timer decided, within the claim."""

    async def refresh_timers(self, match: domain.Match) -> None:
        """Rewrite the match's timers from its state (after a stale firing)."""


class MatchRepository(Protocol):
    """What the handlers need from storage."""

    async def current(self, match_id: str) -> domain.Match | None:
        """The state to decide on: the cached one (the save's expected version checks
        it), else the log's."""

    async def load(self, match_id: str, known: int | None = None) -> domain.Match | None:
        """The state from the log (``known``: a version known committed; a cached state
        at or past it needs no read)."""

    async def load_at(self, match_id: str, version: int) -> domain.Match | None:
        """The state as it was at ``version``."""

    async def answered(self, request: Request) -> Answered | None:
        """The first result of a request seen before; ``RequestReused`` if its id came
        with other content."""

    async def active_match(self, player_id: str) -> str | None: ...

    async def record_presence(self, report: SessionReport) -> bool:
        """Record a session opening or ending; False when a later session is known or an
        ended one reports itself open again. A second report of the same end keeps the
        first ``away_since``."""

    async def away_since(self, player_id: str) -> datetime | None:
        """When the player's latest session ended for good, if it has and none opened since."""

    async def open_sessions(self, player_ids: Sequence[str]) -> dict[str, str]: ...

    async def missed_match(self, player_id: str) -> str | None:
        """The match that finished while the player's latest session was closed, taken:
        the next call answers None until another does."""

    async def save(
        self,
        before: domain.Match | None,
        decision: domain.Decision,
        request: Request | None = None,
        correlation_id: str = "",
    ) -> domain.Match:
        """Write the decision (``Write``) at ``before``'s version. Raises
        ``WrongExpectedVersion`` (another command got there first), ``PlayerBusy``,
        ``RequestSeen``."""

    def claim_due(self, now: datetime) -> AbstractAsyncContextManager[TimerClaim]: ...

    async def count_active(self) -> int: ...

    async def next_due(self) -> datetime | None:
        """When the earliest timer of any match falls due (None: no timer waits)."""

    async def in_progress(self) -> list[str]:
        """The ids of the matches in progress that seat a human (whose players a start
        tells the current view), in id order."""

    async def records(self, match_id: str, after_version: int, limit: int) -> list[Recorded]:
        """The stored events of a match, for operators."""

    def forget(self, match_id: str) -> None:
        """Drop a cached state (it was found stale)."""


def replay(records: Sequence[Recorded], state: domain.Match | None = None) -> domain.Match | None:
    """``state`` brought forward by stored events, each read at its schema version."""
    for record in records:
        setup = state.setup if state is not None else None
        state = domain.evolve(state, codec.decode_record(record, setup))
    return state
