"""The TriadGateway servicer: the public API. The caller is always the token's player;
no request names a player. Accounts, tokens and the session stream live here; match
calls go to the match service with that player's id, and the RPCs of the collection,
rating and matchmaker services are forwarded by the mixins in ``forward_*.py``.

A service this gateway is not configured to reach answers UNAVAILABLE ("not configured
here"), which a client can tell from a refusal.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from itertools import count
from typing import Any

import grpc
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from google.protobuf.duration_pb2 import Duration
from triad.v1 import (
    collection_pb2_grpc,
    gateway_pb2_grpc,
    match_pb2_grpc,
    matchmaker_pb2_grpc,
    rating_pb2_grpc,
)
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g
from triad.v1 import match_pb2 as m

from gateway import accounts
from gateway.auth import Authenticator, caller, client_address
from gateway.downstream import INTERNAL_DEADLINE, call
from gateway.feeds import MATCH_POLL_SECONDS, Nudges, Push, SessionFeeds
from gateway.forward_collection import CollectionRpcs
from gateway.forward_matchmaker import MatchmakerRpcs
from gateway.forward_play import PlayRpcs
from gateway.forward_rating import RatingRpcs
from gateway.forwarding import request_id as _request_id
from gateway.notices import match_notices
from gateway.status import or_else
from gateway.store import Account, GatewayStore, fingerprint
from services.platform.errors import InvalidArgument, Unauthenticated, Unavailable
from services.wire import timestamp


def _player(account: Account) -> g.Player:
    return g.Player(
        player_id=account.player_id,
        player_name=account.name,
        create_time=timestamp(account.created_at),
    )


def _seal(token: str, payload: bytes) -> bytes:
    """Encrypt a refresh answer under its refresh token: a retry that presents the same
    token can read it, a copy of the database cannot."""
    nonce = uuid.uuid4().bytes[:12]
    return nonce + AESGCM(_replay_key(token)).encrypt(nonce, payload, None)


def _unseal(token: str, sealed: bytes) -> bytes:
    try:
        return AESGCM(_replay_key(token)).decrypt(sealed[:12], sealed[12:], None)
    except InvalidTag:
        raise Unauthenticated("the refresh token is not valid any more: log in again") from None


def _replay_key(token: str) -> bytes:
    return hashlib.sha256(f"triad-refresh-replay:{token}".encode()).digest()


class GatewayServicer(
    SessionFeeds,
    CollectionRpcs,
    PlayRpcs,
    RatingRpcs,
    MatchmakerRpcs,
    gateway_pb2_grpc.TriadGatewayServicer,
):
    def __init__(
        self,
        store: GatewayStore,
        signer: accounts.TokenSigner,
        auth: Authenticator,
        match: match_pb2_grpc.MatchServiceAsyncStub,
        *,
        matchmaker: matchmaker_pb2_grpc.MatchmakerServiceAsyncStub | None = None,
        collection: collection_pb2_grpc.CollectionServiceAsyncStub | None = None,
        rating: rating_pb2_grpc.RatingServiceAsyncStub | None = None,
        heartbeat_seconds: float = 10.0,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._signer = signer
        self._auth = auth
        self._match = match
        self._matchmaker = matchmaker
        self._collection = collection
        self._rating = rating
        self._heartbeat = heartbeat_seconds
        self._clock = clock
        self._nudges = Nudges()

    # ---- accounts ----------------------------------------------------------------

    async def _tokens(self, conn: Any, account: Account) -> g.AuthTokens:
        now = self._clock()
        access, claims = self._signer.issue(account.player_id, account.name, now)
        refresh = accounts.new_refresh_token()
        refresh_expires = now + self._signer.refresh_ttl
        await self._store.save_refresh(
            conn, accounts.refresh_key(refresh), account.player_id, claims.jti, refresh_expires
        )
        return g.AuthTokens(
            access_token=access,
            access_token_expire_time=timestamp(claims.expires_at),
            refresh_token=refresh,
            refresh_token_expire_time=timestamp(refresh_expires),
        )

    async def Register(self, request: g.RegisterRequest, context: Any) -> g.RegisterResponse:
        request_id = _request_id(request.request_id)
        name = accounts.check_name(request.player_name)
        password = accounts.check_password(request.password)
        scope = f"register:{name.lower()}"
        first = await self._store.answered(scope, request_id, fingerprint(name))
        if first is not None:  # a retry: the same account, a fresh token pair
            return await self._login(name, password)
        self._auth.take_registration(client_address(context.peer()))
        hashed = await asyncio.to_thread(accounts.hash_password, password)
        account = Account(str(uuid.uuid4()), name, hashed, self._clock())
        async with self._store.pool.acquire() as conn, conn.transaction():
            await self._store.create_account(conn, account)  # a taken name stops here
            # Granted before the account commits: if the grant fails, no account exists
            # and a retry starts over, so every account that exists has its collection.
            # (A commit failing after the grant leaves a grant to an id nobody holds.)
            await self._grant_starter(
                request_id, pb.PlayerRef(player_id=account.player_id, player_name=name)
            )
            await self._store.remember(conn, scope, request_id, fingerprint(name), b"")
            tokens = await self._tokens(conn, account)
        return g.RegisterResponse(player=_player(account), tokens=tokens)

    async def Login(self, request: g.LoginRequest, context: Any) -> g.LoginResponse:
        _request_id(request.request_id)
        if not request.player_name or not request.password:
            raise InvalidArgument("player_name and password are required")
        response = await self._login(request.player_name, request.password)
        return g.LoginResponse(player=response.player, tokens=response.tokens)

    async def _login(self, name: str, password: str) -> g.RegisterResponse:
        # A login changes nothing but issues tokens, so a retry simply gets a new pair.
        self._auth.check_login_allowed(name)
        account = await self._store.account_named(name)
        stored = account.password_hash if account is not None else accounts.DUMMY_HASH
        good = await asyncio.to_thread(accounts.verify_password, password, stored)
        if account is None or not good:
            self._auth.login_failed(name)
            raise Unauthenticated("unknown player name or wrong password")
        async with self._store.pool.acquire() as conn, conn.transaction():
            tokens = await self._tokens(conn, account)
        return g.RegisterResponse(player=_player(account), tokens=tokens)

    async def RefreshToken(
        self, request: g.RefreshTokenRequest, context: Any
    ) -> g.RefreshTokenResponse:
        request_id = _request_id(request.request_id)
        if not request.refresh_token:
            raise Unauthenticated("a refresh token is required")
        key = accounts.refresh_key(request.refresh_token)
        scope = f"refresh:{key}"
        sealed = await self._store.answered(scope, request_id, fingerprint(key))
        if sealed is not None:
            return g.RefreshTokenResponse.FromString(_unseal(request.refresh_token, sealed))
        async with self._store.pool.acquire() as conn, conn.transaction():
            account = await self._store.use_refresh(conn, key, self._clock())
            response = g.RefreshTokenResponse(tokens=await self._tokens(conn, account))
            await self._store.remember(
                conn,
                scope,
                request_id,
                fingerprint(key),
                _seal(request.refresh_token, response.SerializeToString()),
            )
        return response

    async def Logout(self, request: g.LogoutRequest, context: Any) -> g.LogoutResponse:
        _request_id(request.request_id)
        me = caller()
        await self._store.revoke(
            me.player_id, me.jti, me.expires_at, request.all_sessions, self._clock()
        )
        self._auth.forget(me)
        return g.LogoutResponse()

    async def GetPlayerStatus(
        self, request: g.GetPlayerStatusRequest, context: Any
    ) -> g.GetPlayerStatusResponse:
        me = caller()
        account = await self._store.account(me.player_id)
        if account is None:
            raise Unauthenticated("the account no longer exists")
        return g.GetPlayerStatusResponse(status=await self._status(_player(account)))

    # ---- matches -----------------------------------------------------------------

    async def GetActiveMatch(
        self, request: g.GetActiveMatchRequest, context: Any
    ) -> g.GetActiveMatchResponse:
        me = caller()
        match_id = await self._active_match_id(me.player_id)
        if match_id is None:
            return g.GetActiveMatchResponse()
        return g.GetActiveMatchResponse(view=await self._view(match_id, me.player_id))

    async def GetMatchView(
        self, request: g.GetMatchViewRequest, context: Any
    ) -> g.GetMatchViewResponse:
        if not request.match_id:
            raise InvalidArgument("match_id is required")
        return g.GetMatchViewResponse(view=await self._view(request.match_id, caller().player_id))

    async def PlaceCard(self, request: g.PlaceCardRequest, context: Any) -> g.PlaceCardResponse:
        internal = m.MatchServicePlaceCardRequest(
            request_id=_request_id(request.request_id),
            match_id=request.match_id,
            player_id=caller().player_id,
            card_id=request.card_id,
            cell=request.cell,
        )
        if request.HasField("expected_version"):
            internal.expected_version = request.expected_version
        reply = await call("match", self._match.PlaceCard(internal, timeout=INTERNAL_DEADLINE))
        return g.PlaceCardResponse(view=reply.view)

    async def Forfeit(self, request: g.ForfeitRequest, context: Any) -> g.ForfeitResponse:
        reply = await call(
            "match",
            self._match.Forfeit(
                m.MatchServiceForfeitRequest(
                    request_id=_request_id(request.request_id),
                    match_id=request.match_id,
                    player_id=caller().player_id,
                ),
                timeout=INTERNAL_DEADLINE,
            ),
        )
        return g.ForfeitResponse(view=reply.view)

    # ---- the session stream ------------------------------------------------------

    async def OpenSession(
        self, request: g.OpenSessionRequest, context: Any
    ) -> AsyncIterator[g.OpenSessionResponse]:
        me = caller()
        session_id = uuid.uuid4().hex
        sequence = count(1)

        def push(**fields: Any) -> g.OpenSessionResponse:
            return g.OpenSessionResponse(
                sequence=next(sequence), send_time=timestamp(self._clock()), **fields
            )

        opened_at = self._clock()
        await self._store.open_session(me.player_id, session_id, opened_at)
        updates: asyncio.Queue[Push] = asyncio.Queue()
        watchers: list[asyncio.Task[None]] = []
        try:
            await self._presence(me.player_id, session_id, opened_at, connected=True)
            watchers.append(
                asyncio.create_task(
                    self._watch_matches(me.player_id, session_id, opened_at, updates)
                )
            )
            watchers += [
                asyncio.create_task(f) for f in self._feeds(me.player_id, opened_at, updates)
            ]
            account = await self._store.account(me.player_id)
            opened = g.SessionOpened(
                session_id=session_id,
                heartbeat_interval=Duration(seconds=int(self._heartbeat)),
            )
            # Only the match part is required: a session keeps the player connected to
            # their match (closing it starts the forfeit grace), which must not depend
            # on the collection or the matchmaker answering.
            if account is not None:
                opened.status.CopyFrom(await self._status(_player(account), partial=True))
                active = opened.status.active_match_id or None
            else:
                active = await self._active_match_id(me.player_id)
            if active is not None:
                opened.active_match.CopyFrom(await self._view(active, me.player_id))
            if opened.status.draft_id:
                draft = await or_else(self._draft_view(opened.status.draft_id, me.player_id), None)
                if draft is not None:
                    opened.draft.CopyFrom(draft)
            yield push(session_opened=opened)
            # The last view pushed of each match: its notices tell what changed since.
            shown: dict[str, pb.MatchView] = {}
            if active is not None:
                shown[active] = opened.active_match
            while True:
                try:
                    kind, update = await asyncio.wait_for(updates.get(), self._heartbeat)
                except TimeoutError:
                    closed = await self._should_close(me, session_id, context)
                    if closed is not None:
                        yield push(session_closed=closed)
                        return
                    yield push(heartbeat=g.Heartbeat(server_time=timestamp(self._clock())))
                    continue
                if kind == "notice":
                    if await self._told_here(me.player_id, session_id):
                        yield push(notice=update)
                    continue
                if kind != "match_view":  # queue, trades, balance, draft, rating changes
                    yield push(**{kind: update})
                    continue
                view = update
                before = shown.get(view.match_id)
                if before is not None and view.version <= before.version:
                    continue
                if before is None:
                    opponent = next(p for p in view.players if p.seat != view.my_seat)
                    yield push(
                        match_found=g.MatchFound(
                            mode=view.mode,
                            match_id=view.match_id,
                            opponent_name=opponent.player_name,
                            opponent_is_bot=opponent.is_bot,
                        )
                    )
                shown[view.match_id] = view
                yield push(match_view=view)
                notices = match_notices(before, view) if before is not None else []
                if notices and await self._told_here(me.player_id, session_id):
                    for notice in notices:
                        yield push(notice=notice)
        finally:
            for watcher in watchers:
                watcher.cancel()
            # The grace starts as the stream ends, not once the watchers have wound
            # down; shielded, so that a second cancellation cannot lose the report.
            await asyncio.shield(
                self._presence(me.player_id, session_id, opened_at, connected=False)
            )
            await asyncio.gather(*watchers, return_exceptions=True)

    async def _told_here(self, player_id: str, session_id: str) -> bool:
        """Whether notices go to this session: only the player's current one, so that
        an old stream not yet closed (it was replaced) does not tell them twice."""
        return await self._store.current_session(player_id) == session_id

    async def _should_close(
        self, me: accounts.Claims, session_id: str, context: Any
    ) -> g.SessionClosed | None:
        if await self._store.current_session(me.player_id) != session_id:
            return g.SessionClosed(
                reason=g.SESSION_CLOSE_REASON_REPLACED,
                message="a newer session of yours was opened; this one ends",
            )
        try:
            await self._auth.authenticate(context.invocation_metadata())
        except Unauthenticated as error:
            reason = (
                g.SESSION_CLOSE_REASON_TOKEN_EXPIRED
                if "expired" in str(error)
                else g.SESSION_CLOSE_REASON_LOGGED_OUT
            )
            return g.SessionClosed(reason=reason, message=str(error))
        return None

    async def _presence(
        self, player_id: str, session_id: str, opened_at: datetime, connected: bool
    ) -> None:
        state = m.PRESENCE_STATE_CONNECTED if connected else m.PRESENCE_STATE_DISCONNECTED
        with contextlib.suppress(Exception):  # presence is best effort; the timer decides
            await self._match.ReportPresence(
                m.MatchServiceReportPresenceRequest(
                    request_id=uuid.uuid4().hex,
                    player_id=player_id,
                    session_id=session_id,
                    state=state,
                    open_time=timestamp(opened_at),
                ),
                timeout=INTERNAL_DEADLINE,
            )

    async def _watch_matches(
        self, player_id: str, session_id: str, opened_at: datetime, views: asyncio.Queue[Any]
    ) -> None:
        """Forward every view of the player's active match; look for a new one when idle.
        A match created while the session is open has it attached already; it is
        reported again when found, in case the report at the session's opening was lost
        (a report of a session older than the player's latest changes nothing)."""
        with self._nudges.watch(player_id) as nudged:
            await self._follow_matches(player_id, session_id, opened_at, views, nudged)

    async def _follow_matches(
        self,
        player_id: str,
        session_id: str,
        opened_at: datetime,
        views: asyncio.Queue[Any],
        nudged: asyncio.Event,
    ) -> None:
        while True:
            nudged.clear()  # a match started from here on wakes the idle wait below
            try:
                match_id = await self._active_match_id(player_id)
                if match_id is None:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(nudged.wait(), MATCH_POLL_SECONDS)
                    continue
                await self._presence(player_id, session_id, opened_at, connected=True)
                stream = self._match.StreamView(
                    m.MatchServiceStreamViewRequest(match_id=match_id, player_id=player_id)
                )
                async for reply in stream:
                    await views.put(("match_view", reply.view))
            except (grpc.aio.AioRpcError, Unavailable):
                # The match service restarts or the stream broke: the session stays,
                # and the next round resumes with the current view.
                await asyncio.sleep(1.0)
