"""Every committed change of a match is announced once, after its commit, by the process
that made it; the edge pushes each human seat its own view of that version (issue 18).
On the in-memory repository and, as an integration test, on PostgreSQL, where the
announcement is checked to come after the commit: another connection already reads it.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field, replace
from datetime import timedelta
from random import Random

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as gw

from services.match import domain, handlers, handlers_timers
from services.match.domain.errors import TurnOver
from services.match.domain.events import MatchRules, Mode
from services.match.handlers import Context
from services.match.presenter import MATCH_VIEW, SeatViews, view_message
from services.match.store import MatchRepository
from services.match.tests.builders import ALL, hand, players
from services.match.tests.conftest import Clock
from services.match.tests.test_handlers import move, new_match
from services.match.views import match_view
from services.platform.errors import FailedPrecondition
from services.platform.pushes import RecordedPushes
from services.platform.requests import Request
from services.rules import Visibility


@dataclass
class Announced:
    """An announce port that records each match it is given, and the version another
    reader finds in the log at that moment (the cache dropped: the log alone)."""

    store: MatchRepository
    matches: list[domain.Match] = field(default_factory=list)
    committed: list[int] = field(default_factory=list)

    async def __call__(self, match: domain.Match, quiet: str = "") -> None:
        self.store.forget(match.match_id)
        found = await self.store.load(match.match_id)
        self.committed.append(found.version if found is not None else 0)
        self.matches.append(match)

    def versions(self, match_id: str) -> list[int]:
        return [m.version for m in self.matches if m.match_id == match_id]

    def all_committed(self) -> bool:
        return all(c >= m.version for m, c in zip(self.matches, self.committed, strict=True))


@pytest.fixture
def announced(ctx: Context) -> Announced:
    return Announced(ctx.store)


@pytest.fixture
def told(ctx: Context, announced: Announced) -> Context:
    return replace(ctx, announce=announced)


def seat_pushes(ctx: Context, clock: Clock) -> tuple[Context, RecordedPushes, SeatViews]:
    """The handlers wired to the edge's publisher, with pushes recorded."""
    pushes = RecordedPushes()
    views = SeatViews(pushes, clock)
    return replace(ctx, announce=views.announce), pushes, views


def views_of(pushes: RecordedPushes, player_id: str) -> list[pb.MatchView]:
    """The match views pushed to a player, in order."""
    found = pushes.of(player_id, MATCH_VIEW)
    assert all(isinstance(m, pb.MatchView) for m in found)
    return found  # type: ignore[return-value]


def first_move(match: domain.Match) -> tuple[str, str, int]:
    seat = match.position.to_move
    return match.player(seat).player_id, match.position.hand(seat)[0].id, 4


def test_match_views_travel_as_the_session_push_of_that_name() -> None:
    pushed = gw.OpenSessionResponse.DESCRIPTOR.fields_by_name[MATCH_VIEW].message_type
    assert pushed is not None and pushed.full_name == pb.MatchView.DESCRIPTOR.full_name


async def test_a_placement_pushes_each_human_seat_its_own_view_of_the_new_version(
    ctx: Context, clock: Clock
) -> None:
    ctx, pushes, _ = seat_pushes(ctx, clock)
    match = await new_match(ctx, visibility=Visibility.CLOSED)
    assert [(p, f) for p, f, _ in pushes.sent] == [("p-a", MATCH_VIEW), ("p-b", MATCH_VIEW)]
    assert [v.version for v in views_of(pushes, "p-a") + views_of(pushes, "p-b")] == [1, 1]
    player, card, cell = first_move(match)
    placed = await handlers.place_card(
        ctx, Request.of(player, "r1", card, cell), "m1", player, card, cell
    )
    assert placed.version == 2
    for player_id in ("p-a", "p-b"):
        (*_, latest) = views_of(pushes, player_id)
        assert latest.version == 2
        # exactly what GetView gives that player at that version
        assert latest == view_message(match_view(placed, player_id), clock())
    # Closed: each sees the other's remaining cards as hidden slots, and no id of them.
    mover = views_of(pushes, player)[-1]
    opponent_id = "p-b" if player == "p-a" else "p-a"
    theirs = views_of(pushes, opponent_id)[-1]
    assert [s.WhichOneof("slot") for s in theirs.opponent_hand] == ["hidden"] * 4
    assert [s.WhichOneof("slot") for s in mover.opponent_hand] == ["hidden"] * 5
    unplayed = {c.card_id for c in placed.seats[placed.seat_of(player)].hand} - {card}
    raw = theirs.SerializeToString()
    assert unplayed and not any(c.encode() in raw for c in unplayed)


async def test_a_bot_seat_is_never_pushed_to(ctx: Context, clock: Clock) -> None:
    ctx, pushes, _ = seat_pushes(ctx, clock)
    match = await new_match(ctx, bot_b=True)
    rng = Random(5)
    while match.in_progress:
        if match.player(match.position.to_move).is_bot:
            assert await handlers_timers.fire_due_timer(ctx)  # the bot's move, by its timer
            latest = await ctx.store.load("m1")
            assert latest is not None
            match = latest
        else:
            match = await move(ctx, match, f"h{match.version}", rng)
    assert {p for p, _, _ in pushes.sent} == {"p-a"}
    versions = [view.version for view in views_of(pushes, "p-a")]
    assert versions == sorted(set(versions)) and versions[-1] == match.version
    assert len(versions) == 10  # created, then the five moves of each seat
    assert views_of(pushes, "p-a")[-1].status == pb.MATCH_STATUS_FINISHED


async def test_a_refused_move_and_a_retried_one_announce_nothing(
    told: Context, announced: Announced
) -> None:
    match = await new_match(told)
    assert announced.versions("m1") == [1]
    player, card, cell = first_move(match)
    opponent = match.player(match.position.to_move.other).player_id
    with pytest.raises(FailedPrecondition):  # not their turn
        await handlers.place_card(
            told, Request.of(opponent, "no", card, cell), "m1", opponent, card, cell
        )
    assert announced.versions("m1") == [1]
    request = Request.of(player, "r1", card, cell)
    await handlers.place_card(told, request, "m1", player, card, cell)
    again = await handlers.place_card(told, request, "m1", player, card, cell)
    assert again.version == 2 and announced.versions("m1") == [1, 2]  # the retry: nothing
    await new_match(told)  # a retried CreateMatch: nothing either
    assert announced.versions("m1") == [1, 2]


async def test_a_timer_announces_what_it_saved_once_its_transaction_has_committed(
    told: Context, announced: Announced, clock: Clock
) -> None:
    await new_match(told)
    assert not await handlers_timers.fire_due_timer(told)
    assert announced.versions("m1") == [1]
    clock.now += timedelta(seconds=60)
    assert await handlers_timers.fire_due_timer(told)  # the turn times out: an auto-play
    (timed_out,) = announced.matches[1:]
    assert timed_out.version == 4  # timed out, warned, auto-played: one commit
    assert timed_out.last is not None and timed_out.last.auto_played
    assert announced.all_committed()


async def test_presence_and_the_disconnect_forfeit_announce_each_change(
    told: Context, announced: Announced, clock: Clock
) -> None:
    await new_match(told)
    assert await handlers.report_presence(told, "p-a", "s1", True) == "m1"
    clock.now += timedelta(seconds=10)  # B, never seen, is away since the start: first
    await handlers.report_presence(told, "p-a", "s1", False)
    disconnected = announced.matches[-1]
    assert disconnected.disconnected[0] is not None
    clock.now += timedelta(seconds=120)
    while await handlers_timers.fire_due_timer(told):
        pass
    finished = announced.matches[-1]
    assert finished.finished is not None and finished.finished.forfeited is not None
    latest = await told.store.load("m1")
    assert latest is not None
    told_versions = announced.versions("m1")
    assert told_versions[:3] == [1, 2, 3]  # created, connected, disconnected
    assert told_versions == sorted(set(told_versions)) and told_versions[-1] == latest.version
    assert announced.all_committed()


async def test_each_committed_change_is_announced_once_at_the_version_it_reached(
    told: Context, announced: Announced, clock: Clock
) -> None:
    """Moves, timeouts, presence and forfeits in random order over ten matches: each
    call that moved a match on (one or more events) announced that match once, at its
    new version; a call that moved nothing announced nothing."""
    rng = Random(11)
    live = {f"long{i}": await new_match(told, f"long{i}") for i in range(10)}
    for step in range(150):
        running = [m for m in live.values() if m.in_progress]
        if not running:
            break
        match = rng.choice(running)
        player = match.player(match.position.to_move).player_id
        roll = rng.random()
        before = len(announced.matches)
        if roll < 0.7:
            with contextlib.suppress(TurnOver):  # overdue since the clock jumped: refused
                await move(told, match, f"s{step}", rng)
        elif roll < 0.8:
            clock.now += timedelta(seconds=61)
            await handlers_timers.fire_due_timer(told)
        elif roll < 0.95:
            await handlers.report_presence(told, player, f"sess{step}", rng.random() < 0.5)
        else:
            await handlers.forfeit(told, Request.of(player, f"f{step}"), match.match_id, player)
        moved = []
        for match_id, known in live.items():
            latest = await told.store.load(match_id)
            assert latest is not None
            if latest.version != known.version:
                moved.append((match_id, latest.version))
            live[match_id] = latest
        now_told = [(m.match_id, m.version) for m in announced.matches[before:]]
        assert now_told == moved, f"step {step}"
    assert sum(not m.in_progress for m in live.values()) >= 3
    assert announced.all_committed()


async def test_a_failing_announcement_does_not_fail_the_committed_move(ctx: Context) -> None:
    async def broken(match: domain.Match, quiet: str = "") -> None:
        raise RuntimeError("no view today")

    ctx = replace(ctx, announce=broken)
    match = await new_match(ctx)
    player, card, cell = first_move(match)
    placed = await handlers.place_card(
        ctx, Request.of(player, "r1", card, cell), "m1", player, card, cell
    )
    assert placed.version == 2


async def test_the_reply_to_a_move_is_the_view_pushed_to_the_mover(
    ctx: Context, clock: Clock
) -> None:
    ctx, pushes, views = seat_pushes(ctx, clock)
    match = await new_match(ctx)
    player, card, cell = first_move(match)
    request = Request.of(player, "r1", card, cell)
    placed = await handlers.place_card(ctx, request, "m1", player, card, cell)
    pushed = views_of(pushes, player)[-1]
    assert views.reply(placed, player) is pushed  # built once
    assert views.reply(placed, player) == pushed  # taken once, then built again alike
    assert views.reply(match, player).version == 1  # an older state: built for it


async def test_a_view_in_reply_is_not_published_to_the_placer_but_is_to_the_opponent(
    ctx: Context, clock: Clock
) -> None:
    """The gateway holding the placer's session passes the reply's view on to it
    (PlaceCardRequest.session_id): one push fewer per placement, no view lost."""
    ctx, pushes, views = seat_pushes(ctx, clock)
    match = await new_match(ctx)
    player, card, cell = first_move(match)
    opponent = "p-b" if player == "p-a" else "p-a"
    request = Request.of(player, "r1", card, cell)
    placed = await handlers.place_card(ctx, request, "m1", player, card, cell, in_reply=True)
    assert [v.version for v in views_of(pushes, player)] == [1]
    assert [v.version for v in views_of(pushes, opponent)] == [1, 2]
    assert views.reply(placed, player) == view_message(match_view(placed, player), clock())
    # A retry of it answers the same and publishes nothing.
    again = await handlers.place_card(ctx, request, "m1", player, card, cell, in_reply=True)
    assert again.version == 2 and len(pushes.sent) == 3


async def test_a_start_announces_every_match_in_progress_that_seats_a_human(
    told: Context, announced: Announced
) -> None:
    setup = MatchRules(Mode.PRACTICE, ALL, Visibility.ALL_OPEN)
    for match_id in ("m1", "m2", "m3"):
        seated = tuple(replace(p, player_id=f"{p.player_id}-{match_id}") for p in players())
        await handlers.start_match(
            told, Request.of("mm", match_id), match_id, setup, seated,  # type: ignore[arg-type]
            (hand(f"{match_id}a"), hand(f"{match_id}b")),
        )  # fmt: skip
    await handlers.forfeit(told, Request.of("p-a-m2", "f"), "m2", "p-a-m2")
    announced.matches.clear()
    announced.committed.clear()
    count = await handlers.announce_in_progress(told, asyncio.Event())
    assert count == 2
    assert [(m.match_id, m.version) for m in announced.matches] == [("m1", 1), ("m3", 1)]
