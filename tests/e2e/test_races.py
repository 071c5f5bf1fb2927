"""Races known to break game servers (issue 10, item 5), as players hit them: through the
TLS gateway, every service a process on real PostgreSQL and NATS, with the durations
shortened by their settings (TRIAD_TURN_SECONDS, TRIAD_DISCONNECT_SECONDS,
TRIAD_TRADE_CHOICE_SECONDS, TRIAD_ACCESS_TOKEN_MINUTES). Each racy scenario is repeated
so that both orders actually happen.

Two matchmaker replicas pairing the same tickets is covered elsewhere and not repeated
here: tests/integration/test_matchmaker_process.py
``test_two_players_on_two_replicas_are_paired_into_one_real_match`` (two replica
processes, one real match) and services/matchmaker/tests/test_replicas.py (1,000
players enqueueing, cancelling and re-enqueueing on either of two replicas while both
pair: nobody is ever in two matches).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

import grpc
import pytest
from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD
from devtools.stack import Stack, stack
from devtools.tcp_proxy import FreezableProxy

pytestmark = pytest.mark.integration
TURN_SECONDS = 3.0
DISCONNECT_SECONDS = 3.0
TRADE_SECONDS = 2.0
SHORT_TOKEN_MINUTES = 0.06  # 3.6 s
MARGIN = 1.5
"""Seconds before a turn's end at which the scenarios that keep a match going place."""


@pytest.fixture(scope="module")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    logs = tmp_path_factory.mktemp("races")
    with stack(
        shared_database_url,
        nats_url,
        logs,
        overrides={
            "match": {
                "TRIAD_TURN_SECONDS": str(TURN_SECONDS),
                "TRIAD_DISCONNECT_SECONDS": str(DISCONNECT_SECONDS),
            },
            "collection": {"TRIAD_TRADE_CHOICE_SECONDS": str(TRADE_SECONDS)},
            "gateway": {"TRIAD_HEARTBEAT_SECONDS": "0.3"},
        },
        # the second gateway issues access tokens that expire in seconds
        gateways=({}, {"TRIAD_ACCESS_TOKEN_MINUTES": str(SHORT_TOKEN_MINUTES)}),
    ) as running:
        yield running


@pytest.fixture
async def api(backend: Stack) -> AsyncIterator[Any]:
    async with backend.channel() as channel:
        yield backend.api(channel)
        for session in ATTENDING:  # the sessions the test's players kept open
            session.cancel()
        await asyncio.gather(*ATTENDING, return_exceptions=True)
        ATTENDING.clear()


ATTENDING: list[asyncio.Task[None]] = []


async def attend(p: Player) -> None:
    """Open a session for ``p`` (with their current token) and keep reading it until the
    test ends: without one a player counts as disconnected from their match."""
    opened = asyncio.Event()

    async def read() -> None:
        with contextlib.suppress(grpc.aio.AioRpcError):
            async for _ in p.api.OpenSession(g.OpenSessionRequest(), metadata=p.meta):
                opened.set()

    ATTENDING.append(asyncio.create_task(read()))
    await asyncio.wait_for(opened.wait(), 20)


@dataclass
class Player:
    api: Any
    id: str
    name: str
    tokens: g.AuthTokens

    @property
    def meta(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.tokens.access_token}"),)

    async def call(self, rpc: str, request: Message) -> Any:
        return await getattr(self.api, rpc)(request, metadata=self.meta, timeout=20)

    async def view(self, match_id: str) -> pb.MatchView:
        reply = await self.call("GetMatchView", g.GetMatchViewRequest(match_id=match_id))
        return reply.view  # type: ignore[no-any-return]

    async def copies(self) -> set[str]:
        reply = await self.call("ListCollection", g.ListCollectionRequest(page_size=200))
        return {e.copy.copy_id for e in reply.entries}


async def join(api: Any) -> Player:
    reply = await api.Register(
        g.RegisterRequest(
            request_id=uuid4().hex, player_name=f"r{uuid4().hex[:12]}", password=PASSWORD
        )
    )
    return Player(api, reply.player.player_id, reply.player.player_name, reply.tokens)


async def table_match(host: Player, guest: Player, rules: pb.Rules) -> str:
    """A match at a custom table, both players with a session open."""
    await asyncio.gather(attend(host), attend(guest))
    table = await host.call(
        "CreateTable",
        g.CreateTableRequest(
            request_id=uuid4().hex, settings=pb.TableSettings(rules=rules, random_deck=True)
        ),
    )
    joined = await guest.call(
        "JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table.table_id)
    )
    return str(joined.match_id)


OPEN_TABLE = pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, same=True, plus=True, combo=True)


async def code_of(pending: Any) -> tuple[grpc.StatusCode, Any]:
    try:
        return grpc.StatusCode.OK, await pending
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""


def cards_on(view: pb.MatchView) -> int:
    return sum(1 for c in view.board if c.WhichOneof("content") == "card")


async def mover_of(players: tuple[Player, Player], match_id: str) -> tuple[Player, pb.MatchView]:
    for p in players:
        view = await p.view(match_id)
        if view.status != pb.MATCH_STATUS_IN_PROGRESS or view.turn_seat == view.my_seat:
            return p, view
    raise AssertionError("nobody's turn")


async def place(p: Player, view: pb.MatchView, rng: random.Random) -> tuple[grpc.StatusCode, Any]:
    empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
    return await code_of(
        p.call(
            "PlaceCard",
            g.PlaceCardRequest(
                request_id=uuid4().hex,
                match_id=view.match_id,
                card_id=rng.choice(list(view.my_hand)).card.card_id,
                cell=rng.choice(empty),
            ),
        )
    )


async def play_out(
    players: tuple[Player, Player], match_id: str, rng: random.Random
) -> pb.MatchView:
    """Both place promptly on their turns until the match ends."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        mover, view = await mover_of(players, match_id)
        if view.status != pb.MATCH_STATUS_IN_PROGRESS:
            return view
        code, _ = await place(mover, view, rng)
        assert code in (grpc.StatusCode.OK, grpc.StatusCode.FAILED_PRECONDITION), code
    raise AssertionError("the match did not end")


async def one_way(p: Player, match_id: str) -> float:
    """About how long a call takes to reach the server now (half a round trip), so that
    a call aimed at a deadline lands on it rather than always after it."""
    started = time.monotonic()
    await p.view(match_id)
    return (time.monotonic() - started) / 2


# ---- a turn timeout and a move in the same instant --------------------------------


async def test_a_move_at_the_turn_deadline_either_lands_or_loses_to_the_timer_once(
    api: Any,
) -> None:
    """The mover places exactly at the turn deadline (a few ms either side). Either the
    move is applied (not auto-played) or the timer's auto-play is, and the refused move
    says why; never both, never neither: one more card on the board each time."""
    rng = random.Random(5)
    outcomes: list[str] = []
    while len(outcomes) < 6:
        players = (await join(api), await join(api))
        match_id = await table_match(*players, OPEN_TABLE)
        while len(outcomes) < 6:
            mover, view = await mover_of(players, match_id)
            if view.status != pb.MATCH_STATUS_IN_PROGRESS:
                break
            deadline = view.turn_deadline_time.ToDatetime().timestamp()
            await asyncio.sleep(
                max(
                    0.0,
                    deadline
                    - time.time()
                    - await one_way(mover, match_id)
                    + rng.uniform(-0.08, 0.08),
                )
            )
            code, answer = await place(mover, view, rng)
            after = await mover.view(match_id)
            assert after.version > view.version
            assert cards_on(after) == cards_on(view) + 1 or (
                after.status == pb.MATCH_STATUS_FINISHED
                and after.outcome.reason == pb.FINISH_REASON_TURN_TIMEOUT
                and cards_on(after) == cards_on(view)
            ), "a placement was doubled or lost"
            mine = [h.card.card_id for h in view.my_hand]
            left = [h.card.card_id for h in after.my_hand]
            if code == grpc.StatusCode.OK:
                assert not answer.view.last_placement.auto_played
                assert answer.view.last_placement.seat == view.my_seat
                assert len(left) == len(mine) - 1
                outcomes.append("move")
            else:
                assert code == grpc.StatusCode.FAILED_PRECONDITION, (code, answer)
                assert "turn" in answer or "over" in answer, answer
                if after.status == pb.MATCH_STATUS_IN_PROGRESS or cards_on(after) > cards_on(view):
                    # the timer played for the mover, once
                    assert after.last_placement.auto_played
                    assert after.last_placement.seat == view.my_seat
                    assert len(left) == len(mine) - 1
                outcomes.append("timer")
    print(f"at the deadline: {outcomes}")  # which order won depends on the machine's load


# ---- a forfeit while the opponent's move is in flight -----------------------------


async def test_a_forfeit_racing_the_opponents_move_ends_the_match_once(api: Any) -> None:
    """The player to move places while the other forfeits, at once. The forfeit always
    ends the match (the forfeiter loses); the move either landed first (its card is on
    the final board) or is refused as the match is over (its card is not)."""
    rng = random.Random(7)
    seen: list[str] = []
    for _ in range(6):
        players = (await join(api), await join(api))
        match_id = await table_match(*players, OPEN_TABLE)
        mover, view = await mover_of(players, match_id)
        quitter = players[1] if mover is players[0] else players[0]
        (placed, answer), (forfeited, final) = await asyncio.gather(
            place(mover, view, rng),
            code_of(
                quitter.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
            ),
        )
        assert forfeited == grpc.StatusCode.OK, final
        end = await mover.view(match_id)
        assert end.status == pb.MATCH_STATUS_FINISHED
        assert end.outcome.reason == pb.FINISH_REASON_FORFEIT
        assert end.outcome.winner_seat == end.my_seat
        if placed == grpc.StatusCode.OK:
            assert cards_on(end) == cards_on(view) + 1
            seen.append("move first")
        else:
            assert placed == grpc.StatusCode.FAILED_PRECONDITION and "over" in answer, answer
            assert cards_on(end) == cards_on(view)
            seen.append("forfeit first")
        # nothing after the end: a second forfeit or move is refused
        again, _ = await code_of(
            quitter.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
        )
        assert again == grpc.StatusCode.FAILED_PRECONDITION
    print(f"forfeit races: {seen}")


# ---- a reconnect while the old stream is half-open --------------------------------


async def first_push(api: Any, me: Player) -> tuple[Any, g.OpenSessionResponse]:
    stream = api.OpenSession(g.OpenSessionRequest(), metadata=me.meta)
    async for push in stream:
        return stream, push
    raise AssertionError("the session sent nothing")


async def test_a_reconnect_while_the_old_stream_is_half_open_keeps_one_seat(
    backend: Stack, api: Any
) -> None:
    """Ann's session runs through a connection that then goes silent (half-open: no FIN).
    She reconnects on a new connection: the new stream's first push is the whole match;
    when the old connection finally dies, its late 'disconnected' changes nothing; after
    more than the disconnect grace she still holds her one seat and plays to the end."""
    rng = random.Random(11)
    ann, bea = await join(api), await join(api)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    host, port = backend.gateway.address.split(":")
    proxy = FreezableProxy(host, int(port))
    address = await proxy.start()
    creds = backend.cert.read_bytes()
    async with grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(creds)) as old:
        old_stream, opened = await first_push(backend.api(old), ann)
        assert opened.session_opened.active_match.match_id == match_id
        proxy.freeze()  # the old connection goes silent, both ends still open
        await asyncio.sleep(0.5)
        new_stream, reopened = await first_push(api, ann)
        first = reopened.session_opened
        now = await ann.view(match_id)
        assert first.active_match.match_id == match_id
        # the whole view: the board and her hand as they stand (only presence events,
        # which change neither, may have moved the version since)
        assert list(first.active_match.board) == list(now.board)
        assert list(first.active_match.my_hand) == list(now.my_hand)
        assert len(first.active_match.players) == 2 and first.active_match.my_seat == now.my_seat
        # keep playing (each move late in its turn) past the grace, then let the old
        # connection die and play past the grace again
        await play_slowly((ann, bea), match_id, rng, DISCONNECT_SECONDS + 0.5)
        await proxy.drop()
        old_stream.cancel()
        await play_slowly((ann, bea), match_id, rng, DISCONNECT_SECONDS + 0.5)
        view = await ann.view(match_id)
        assert view.status == pb.MATCH_STATUS_IN_PROGRESS, view.outcome
        me = next(p for p in view.players if p.seat == view.my_seat)
        assert me.connected and [p.player_name for p in view.players].count(ann.name) == 1
        active = await ann.call("GetActiveMatch", g.GetActiveMatchRequest())
        assert active.view.match_id == match_id
        end = await play_out((ann, bea), match_id, rng)
        assert end.outcome.reason == pb.FINISH_REASON_BOARD_FULL
        new_stream.cancel()


async def play_slowly(
    players: tuple[Player, Player], match_id: str, rng: random.Random, seconds: float
) -> None:
    """Place each card MARGIN seconds before its turn ends, for ``seconds``: the match
    lasts, and no turn times out."""
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        mover, view = await mover_of(players, match_id)
        assert view.status == pb.MATCH_STATUS_IN_PROGRESS, view.outcome
        left = view.turn_deadline_time.ToDatetime().timestamp() - time.time()
        await asyncio.sleep(max(0.0, min(left - MARGIN, stop - time.monotonic())))
        if time.monotonic() < stop or left < MARGIN + 0.5:
            code, answer = await place(mover, view, rng)
            assert code == grpc.StatusCode.OK, answer


# ---- a token expiring mid-match ----------------------------------------------------


async def test_a_token_expiring_mid_match_is_refreshed_and_the_seat_kept(
    backend: Stack, api: Any
) -> None:
    """Ann's access token (from a gateway issuing 3.6-second tokens) expires mid-match:
    her session ends with TOKEN_EXPIRED and her calls are UNAUTHENTICATED; she refreshes
    and reopens, the new stream's first push is her match, and she plays it to the end
    in the same seat."""
    rng = random.Random(13)
    async with backend.channel(backend.gateways[1]) as short:
        short_api = backend.api(short)
        ann, bea = await join(short_api), await join(api)
        match_id = await table_match(ann, bea, OPEN_TABLE)
        seat = (await ann.view(match_id)).my_seat
        stream = short_api.OpenSession(g.OpenSessionRequest(), metadata=ann.meta)
        pushes = []
        async for push in stream:  # both keep playing while the token runs out
            pushes.append(push)
            if push.HasField("session_closed"):
                break
            # each card MARGIN seconds before its turn ends: the match outlasts the token
            # and no turn times out (Bea's token is a long one; Ann's may run out here)
            seen = await bea.view(match_id)
            assert seen.status == pb.MATCH_STATUS_IN_PROGRESS, seen.outcome
            if seen.turn_deadline_time.ToDatetime().timestamp() - time.time() < MARGIN:
                mover = bea if seen.turn_seat == seen.my_seat else ann
                code, view = await code_of(mover.view(match_id))
                if code == grpc.StatusCode.OK:
                    code, view = await place(mover, view, rng)
                assert code in (grpc.StatusCode.OK, grpc.StatusCode.UNAUTHENTICATED), view
        assert pushes[-1].session_closed.reason == g.SESSION_CLOSE_REASON_TOKEN_EXPIRED
        refused, details = await code_of(ann.view(match_id))
        assert refused == grpc.StatusCode.UNAUTHENTICATED and "expired" in details
        fresh = await short_api.RefreshToken(
            g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=ann.tokens.refresh_token)
        )
        ann.tokens = fresh.tokens
        reopened, opened = await first_push(short_api, ann)
        assert opened.session_opened.active_match.match_id == match_id
        assert opened.session_opened.active_match.my_seat == seat
        # The new token lasts seconds too; for the rest of the match Ann refreshes once
        # more through the other gateway, whose tokens last minutes (a slow machine
        # could otherwise outlast this one, too).
        longer = await api.RefreshToken(
            g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=ann.tokens.refresh_token)
        )
        ann.api, ann.tokens = api, longer.tokens
        await attend(ann)  # her session on the long token, before the short one ends
        reopened.cancel()
        end = await play_out((ann, bea), match_id, rng)
        assert end.my_seat == seat and end.outcome.reason != pb.FINISH_REASON_DISCONNECT


# ---- a Trade One choice arriving as the deadline fires ----------------------------


TRADE_TABLE = pb.Rules(
    visibility=pb.VISIBILITY_CLOSED,
    same=True,
    plus=True,
    combo=True,
    trade_rule=pb.TRADE_RULE_ONE,
)


async def test_a_trade_choice_at_the_deadline_moves_exactly_one_copy_once(api: Any) -> None:
    """The winner chooses exactly when the 2-minute deadline (here 2 s) fires. Either
    the choice is taken or the server's auto-pick is, and the refused choice names the
    one chosen; exactly one copy leaves the loser and reaches the winner, once."""
    rng = random.Random(17)
    winner, loser = await join(api), await join(api)
    seen: list[str] = []
    for _ in range(5):
        before = {p.id: await p.copies() for p in (winner, loser)}
        match_id = await table_match(loser, winner, TRADE_TABLE)
        await loser.call("Forfeit", g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id))
        trade = None
        for _ in range(200):
            reply = await winner.call("GetPendingTrade", g.GetPendingTradeRequest())
            if reply.HasField("trade") and reply.trade.match_id == match_id:
                trade = reply.trade
                break
            await asyncio.sleep(0.05)
        assert trade is not None and len(trade.offered_copies) == 5
        deadline = trade.choice_deadline_time.ToDatetime().timestamp()
        # aimed a little early on average: the choice's path (gateway, collection, a
        # locked transfer) is longer than the view call the latency is measured on
        latency = await one_way(winner, match_id)
        await asyncio.sleep(max(0.0, deadline - time.time() - latency + rng.uniform(-0.3, 0.05)))
        wanted = trade.offered_copies[rng.randrange(5)].copy_id
        code, answer = await code_of(
            winner.call(
                "ChooseTradeCard",
                g.ChooseTradeCardRequest(
                    request_id=uuid4().hex, trade_id=trade.trade_id, copy_id=wanted
                ),
            )
        )
        for _ in range(200):  # the transfer completes
            pending = await winner.call("GetPendingTrade", g.GetPendingTradeRequest())
            if not pending.HasField("trade"):
                break
            await asyncio.sleep(0.05)
        after = {p.id: await p.copies() for p in (winner, loser)}
        gained = after[winner.id] - before[winner.id]
        lost = before[loser.id] - after[loser.id]
        assert len(gained) == 1 and gained == lost, (gained, lost)
        assert len(after[winner.id]) == len(before[winner.id]) + 1
        assert len(after[loser.id]) == len(before[loser.id]) - 1
        (moved,) = gained
        if code == grpc.StatusCode.OK:
            assert moved == wanted and answer.trade.chosen_copy_id == wanted
            assert not answer.trade.auto_picked
            seen.append("choice")
        else:
            assert code == grpc.StatusCode.FAILED_PRECONDITION, (code, answer)
            assert "server" in answer, answer  # the server's pick stands
            assert moved in {c.copy_id for c in trade.offered_copies}
            seen.append("auto-pick")
    print(f"trade races: {seen}")
