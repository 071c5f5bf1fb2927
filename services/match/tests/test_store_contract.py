"""One contract, two adapters: the in-memory match repository and PostgreSQL answer
alike (``store/port.py``). The handler tests run on the in-memory one because of this
suite; the PostgreSQL run is an integration test."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from services.match import codec, domain
from services.match.domain.events import MatchRules, Mode, TradeRule
from services.match.store import (
    Answered,
    MatchRepository,
    MemoryMatchStore,
    PlayerBusy,
    SessionReport,
)
from services.match.tests.builders import ALL, T0, hand, players
from services.platform.eventstore import WrongExpectedVersion
from services.platform.requests import Request, RequestReused, RequestSeen
from services.rules import Seat, Visibility

SETUP = MatchRules(Mode.RANKED, ALL, Visibility.ALL_OPEN, trade=TradeRule.ONE, ladder="ranked")


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
def repo(request: pytest.FixtureRequest) -> MatchRepository:
    if request.param == "memory":
        return MemoryMatchStore()
    found: MatchRepository = request.getfixturevalue("pg_store")
    return found


def creation(match_id: str, bot_b: bool = False, seated_as: str = "") -> domain.Decision:
    """A new match whose players are this match's own (or ``seated_as``'s)."""
    tag = seated_as or match_id
    seated = tuple(replace(p, player_id=f"{p.player_id}-{tag}") for p in players(bot_b))
    hands = (hand(f"{match_id}a"), hand(f"{match_id}b"))
    shown = tuple(frozenset(c.card_id for c in h) for h in hands)
    draws = domain.StartDraws(Seat.A, (None,) * 9, (shown[0], shown[1]))
    return domain.create(None, match_id, SETUP, seated, hands, draws, T0, 60, 120)  # type: ignore[arg-type]


def a_move(match: domain.Match, cell: int, at: float = 1) -> domain.Decision:
    seat = match.position.to_move
    card = match.position.hand(seat)[0].id
    return domain.place(match, match.player(seat).player_id, card, cell, T0 + timedelta(seconds=at))


async def started(repo: MatchRepository, match_id: str, bot_b: bool = False) -> domain.Match:
    return await repo.save(None, creation(match_id, bot_b))


async def test_a_saved_match_reads_back_from_the_log_at_every_version(
    repo: MatchRepository,
) -> None:
    match = await started(repo, "m1")
    moved = await repo.save(match, a_move(match, 4), correlation_id="c-1")
    assert moved.version == 2
    repo.forget("m1")
    assert await repo.load("m1") == moved
    assert await repo.current("m1") == moved
    assert await repo.load_at("m1", 1) == match
    assert await repo.load("nothing") is None and await repo.load_at("nothing", 3) is None
    stored = await repo.records("m1", 0, 10)
    assert [(r.version, r.type, r.schema_version) for r in stored] == [
        (1, "triad.v1.MatchCreated", codec.SCHEMA_VERSION),
        (2, "triad.v1.CardPlaced", codec.SCHEMA_VERSION),
    ]
    assert stored[1].metadata == {"correlation_id": "c-1"}
    assert [r.version for r in await repo.records("m1", 1, 10)] == [2]
    assert len(await repo.records("m1", 0, 1)) == 1


async def test_a_save_decided_on_a_stale_version_is_refused_and_writes_nothing(
    repo: MatchRepository,
) -> None:
    match = await started(repo, "m1")
    await repo.save(match, a_move(match, 4))
    with pytest.raises(WrongExpectedVersion):
        await repo.save(match, a_move(match, 5))
    repo.forget("m1")
    latest = await repo.load("m1")
    assert latest is not None and latest.version == 2 and latest.last is not None
    assert latest.last.cell == 4


async def test_a_human_has_one_active_match_until_it_finishes(repo: MatchRepository) -> None:
    match = await started(repo, "m1")
    assert await repo.active_match("p-a-m1") == "m1"
    assert await repo.active_match("p-b-m1") == "m1"
    with pytest.raises(PlayerBusy, match="Ann already has an active match"):
        await repo.save(None, creation("m2", seated_as="m1"))
    assert await repo.load("m2") is None and await repo.active_match("nobody") is None
    bot = await started(repo, "m3", bot_b=True)  # a bot seat is never held
    assert await repo.active_match("p-b-m3") is None and bot.version == 1
    assert await repo.in_progress() == ["m1", "m3"]  # each once, though m1 seats two
    over = domain.forfeit(match, "p-a-m1", T0)
    await repo.save(match, over)
    assert await repo.active_match("p-a-m1") is None
    assert await repo.active_match("p-b-m1") is None
    assert await repo.in_progress() == ["m3"]


async def test_a_request_is_answered_from_its_first_run_and_refused_with_other_content(
    repo: MatchRepository,
) -> None:
    match = await started(repo, "m1")
    request = Request.of("p-a-m1", "r1", "m1", 4)
    assert await repo.answered(request) is None
    moved = await repo.save(match, a_move(match, 4), request)
    assert await repo.answered(request) == Answered("m1", moved.version)
    with pytest.raises(RequestReused, match="already used for a different request"):
        await repo.answered(Request.of("p-a-m1", "r1", "m1", 5))
    assert await repo.answered(Request.of("p-b-m1", "r1", "m1", 4)) is None  # other scope
    with pytest.raises(RequestSeen):  # a concurrent run recorded the id first
        await repo.save(moved, a_move(moved, 5), request)
    repo.forget("m1")
    latest = await repo.load("m1")
    assert latest is not None and latest.version == moved.version


async def report(
    repo: MatchRepository,
    player_id: str,
    session_id: str,
    opened_at: datetime,
    connected: bool,
    away_since: datetime | None = None,
) -> bool:
    """``record_presence`` of one session report."""
    return await repo.record_presence(
        SessionReport(player_id, session_id, opened_at, connected, away_since)
    )


async def test_presence_keeps_the_latest_session_and_an_ended_one_stays_ended(
    repo: MatchRepository,
) -> None:
    t1, t2 = T0, T0 + timedelta(seconds=1)
    assert await report(repo, "ann", "s1", t1, True)
    assert await repo.open_sessions(["ann", "bea"]) == {"ann": "s1"}
    assert await report(repo, "ann", "s2", t2, True)  # opened later: it wins
    assert not await repo.record_presence(
        SessionReport("ann", "s1", t1, False)
    )  # an older one: ignored
    assert await repo.open_sessions(["ann"]) == {"ann": "s2"}
    assert await report(repo, "ann", "s2", t2, False)
    assert await repo.open_sessions(["ann"]) == {}
    assert not await report(repo, "ann", "s2", t2, True)  # ended stays ended
    assert await repo.record_presence(
        SessionReport("ann", "s2", t2, False)
    )  # the same end again: fine


async def test_presence_knows_since_when_a_player_is_gone_for_good(repo: MatchRepository) -> None:
    """A session ending whose client reopens at once (LEAVING: no time) is not gone; the
    same end told again for good is, from then; a second telling keeps the first time;
    a session opened since clears it."""
    t1, gone, later = T0, T0 + timedelta(seconds=5), T0 + timedelta(seconds=9)
    assert await repo.away_since("ann") is None  # never seen: not away
    assert await report(repo, "ann", "s1", t1, True)
    assert await repo.record_presence(
        SessionReport("ann", "s1", t1, False)
    )  # leaving: reopens at once
    assert await repo.away_since("ann") is None
    assert await report(repo, "ann", "s1", t1, False, gone)  # it did not
    assert await report(repo, "ann", "s1", t1, False, later)  # told again
    assert await repo.away_since("ann") == gone
    assert await report(repo, "ann", "s2", later, True)  # back
    assert await repo.away_since("ann") is None
    assert await repo.record_presence(
        SessionReport("bea", "s3", t1, False, gone)
    )  # first seen leaving
    assert await repo.away_since("bea") == gone


async def test_a_match_that_ends_while_its_player_is_away_is_told_on_their_return_once(
    repo: MatchRepository,
) -> None:
    match = await started(repo, "m1")
    ann, bea = (match.player(seat).player_id for seat in (Seat.A, Seat.B))
    assert await report(repo, ann, "s1", T0, True)
    assert await report(repo, ann, "s1", T0, False)  # Ann's session ended
    assert await report(repo, bea, "s2", T0, True)
    assert await repo.missed_match(ann) is None  # in progress: nothing missed yet
    await repo.save(match, domain.forfeit(match, bea, T0 + timedelta(seconds=5)))
    assert await repo.missed_match(bea) is None  # she was there
    assert await repo.missed_match(ann) == "m1"
    assert await repo.missed_match(ann) is None  # told once
    assert await repo.missed_match("nobody") is None


async def test_the_most_overdue_timer_is_claimed_once_and_its_save_commits(
    repo: MatchRepository,
) -> None:
    first = await started(repo, "m1")
    second = await started(repo, "m2")
    assert await repo.count_active() == 2
    async with repo.claim_due(T0) as claim:
        assert claim.match_id is None  # nothing is due yet
    later = T0 + timedelta(seconds=61)
    moved = await repo.save(second, a_move(second, 4, at=30))  # m2's deadline moves on
    async with repo.claim_due(later) as claim:
        assert claim.match_id == "m1"
        timed_out = domain.time_out(first, 1, later, 0)
        saved = await claim.save(first, timed_out)
        assert saved == timed_out.state
    async with repo.claim_due(later) as claim:
        assert claim.match_id is None  # m1's next turn and m2's are not due yet
    repo.forget("m1")
    assert await repo.load("m1") == saved
    async with repo.claim_due(T0 + timedelta(seconds=95)) as claim:
        assert claim.match_id == "m2"  # moved at 30 s: due at 90 s
        await claim.refresh_timers(moved)  # a stale firing rewrites the row as it was
    finished = await repo.save(saved, domain.forfeit(saved, "p-a-m1", later))
    assert finished.finished is not None
    assert await repo.count_active() == 1  # a finished match has no timers


async def test_a_claimed_match_is_not_handed_to_another_claim(repo: MatchRepository) -> None:
    await started(repo, "m1")
    later = T0 + timedelta(seconds=61)
    async with repo.claim_due(later) as held:
        assert held.match_id == "m1"
        async with repo.claim_due(later) as other:  # another replica's timer loop
            assert other.match_id is None
    async with repo.claim_due(later) as again:
        assert again.match_id == "m1"  # released when the claim ended
