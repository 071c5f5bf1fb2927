"""The public RPCs the gateway answers itself: accounts and tokens (Register, Login,
RefreshToken, Logout) and the player's status.

Register and RefreshToken are idempotent by request id (``services.platform.requests``):
a retried Register logs the same account in again; a retried RefreshToken gets the
first answer back, sealed in the store under the refresh token it presented, so a
retry can read it and a copy of the database cannot.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

import structlog
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from gateway import accounts
from gateway.auth import Authenticator, caller, client_address
from gateway.forward_collection import CollectionRpcs
from gateway.forwarding import request_id
from gateway.pushes import SESSION_CLOSED, PushHub
from gateway.revocations import Revoked
from gateway.status import PlayerStatusReads
from gateway.store import Account, GatewayStore
from services.platform.errors import AlreadyExists, InvalidArgument, Unauthenticated
from services.platform.requests import Request, RequestSeen
from services.wire import timestamp

log = structlog.get_logger()


def player_message(account: Account) -> g.Player:
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


class AccountRpcs(CollectionRpcs, PlayerStatusReads):
    _store: GatewayStore
    _signer: accounts.TokenSigner
    _auth: Authenticator
    _clock: Callable[[], datetime]
    _hub: PushHub

    async def _tokens(self, conn: Any, account: Account) -> g.AuthTokens:
        await self._store.hold_account(conn, account.player_id)  # see GatewayStore.revoke
        now = self._clock()
        issued = self._signer.issue(account.player_id, account.name, now)
        refresh = accounts.new_refresh_token()
        refresh_expires = now + self._signer.refresh_ttl
        await self._store.save_refresh(
            conn,
            accounts.refresh_key(refresh),
            account.player_id,
            issued.claims.jti,
            refresh_expires,
        )
        return g.AuthTokens(
            access_token=issued.token,
            access_token_expire_time=timestamp(issued.claims.expires_at),
            refresh_token=refresh,
            refresh_token_expire_time=timestamp(refresh_expires),
        )

    async def Register(self, request: g.RegisterRequest, context: Any) -> g.RegisterResponse:
        key = request_id(request.request_id)
        name = accounts.check_name(request.player_name)
        password = accounts.check_password(request.password)
        first = Request.of(f"register:{name.lower()}", key, name)
        if await self._store.answered(first) is not None:
            return await self._retried(name, password, client_address(context.peer()))
        await self._auth.take_registration(client_address(context.peer()))
        hashed = await asyncio.to_thread(accounts.hash_password, password)
        account = Account(str(uuid.uuid4()), name, hashed, self._clock())
        try:
            async with self._store.pool.acquire() as conn, conn.transaction():
                await self._store.create_account(conn, account)  # a taken name stops here
                # Granted before the account commits: if the grant fails, no account exists
                # and a retry starts over, so every account that exists has its collection.
                # (A commit failing after the grant leaves a grant to an id nobody holds.)
                await self._grant_starter(
                    key, pb.PlayerRef(player_id=account.player_id, player_name=name)
                )
                await self._store.remember(conn, first, b"")
                tokens = await self._tokens(conn, account)
        except AlreadyExists:
            # A retry sent while its first try ran waited for that try's name to commit:
            # the name is taken by the first try itself, so it answers as a retry does.
            if await self._store.answered(first) is None:
                raise
            return await self._retried(name, password, client_address(context.peer()))
        log.info(
            "player registered",
            player_id=account.player_id,
            player_name=name,
            address=client_address(context.peer()),
        )
        return g.RegisterResponse(player=player_message(account), tokens=tokens)

    async def _retried(self, name: str, password: str, address: str) -> g.RegisterResponse:
        """A Register retried with its request id: the same account, a fresh token pair.
        With another password it is another request under a used id (INVALID_ARGUMENT,
        as every reused id is); the check is a login's, so it counts as a wrong guess."""
        try:
            return await self._login(name, password, address)
        except Unauthenticated:
            raise InvalidArgument(
                f"this request_id already registered {name} with another password: "
                "Login with that password, or send a new request_id"
            ) from None

    async def Login(self, request: g.LoginRequest, context: Any) -> g.LoginResponse:
        request_id(request.request_id)
        if not request.player_name or not request.password:
            raise InvalidArgument("player_name and password are required")
        address = client_address(context.peer())
        response = await self._login(request.player_name, request.password, address)
        return g.LoginResponse(player=response.player, tokens=response.tokens)

    async def _login(self, name: str, password: str, address: str) -> g.RegisterResponse:
        # A login changes nothing but issues tokens, so a retry simply gets a new pair.
        if not accounts.NAME.fullmatch(name):
            # No account has such a name: nothing to hash, and nothing for the wrong
            # password throttle to remember (a megabyte of name per guess otherwise).
            raise Unauthenticated("unknown player name or wrong password")
        # Names are unique whatever their case: one throttle per account, not per spelling.
        throttle = name.lower()
        # Every attempt takes its tokens first (at once, however many are sent together);
        # a good password gives them back: only wrong ones count.
        await self._auth.begin_login(throttle, address)
        account = await self._store.account_named(name)
        stored = account.password_hash if account is not None else accounts.DUMMY_HASH
        good = await asyncio.to_thread(accounts.verify_password, password, stored)
        if account is None or not good:
            # The name as typed (never the password): a guesser's target, or a typo.
            log.info("login refused", player_name=name, known=account is not None, address=address)
            raise Unauthenticated("unknown player name or wrong password")
        await self._auth.login_succeeded(throttle, address)
        async with self._store.pool.acquire() as conn, conn.transaction():
            tokens = await self._tokens(conn, account)
        log.info("player logged in", player_id=account.player_id, address=address)
        return g.RegisterResponse(player=player_message(account), tokens=tokens)

    async def RefreshToken(
        self, request: g.RefreshTokenRequest, context: Any
    ) -> g.RefreshTokenResponse:
        key = request_id(request.request_id)
        if not request.refresh_token:
            raise Unauthenticated("a refresh token is required")
        address = client_address(context.peer())
        # Taken first, given back unless the token is refused (as a login's guess).
        await self._auth.begin_refresh(address)
        token_key = accounts.refresh_key(request.refresh_token)
        first = Request.of(f"refresh:{token_key}", key, token_key)
        sealed = await self._store.answered(first)
        if sealed is None:
            try:
                async with self._store.pool.acquire() as conn, conn.transaction():
                    account = await self._store.use_refresh(conn, token_key, self._clock())
                    response = g.RefreshTokenResponse(tokens=await self._tokens(conn, account))
                    sealed = _seal(request.refresh_token, response.SerializeToString())
                    await self._store.remember(conn, first, sealed)
            except Unauthenticated:
                # A retry sent while its first try ran waited for the token's row until
                # that try spent it and recorded its answer: the first answer, not "log in
                # again".
                sealed = await self._store.answered(first)
                if sealed is None:
                    raise
        await self._auth.refresh_succeeded(address)
        return g.RefreshTokenResponse.FromString(_unseal(request.refresh_token, sealed))

    async def Logout(self, request: g.LogoutRequest, context: Any) -> g.LogoutResponse:
        me = caller()
        # A retry (same request id) acts no second time: sent with the tokens of a later
        # login, it must not log that session out too.
        first = Request.of(
            f"logout:{me.player_id}", request_id(request.request_id), request.all_sessions
        )
        if await self._store.answered(first) is not None:
            return g.LogoutResponse()
        now = await self._store.revoke(
            me.player_id, me.jti, me.expires_at, request.all_sessions, self._clock(), self._clock
        )
        async with self._store.pool.acquire() as conn:
            with contextlib.suppress(RequestSeen):  # a concurrent retry recorded it first
                await self._store.remember(conn, first, b"")
        # Refused on this replica at once, and on the others when the push reaches them.
        await self._auth.revoked(
            Revoked(me.player_id, me.jti, now if request.all_sessions else None)
        )
        # Every replica holding a session of the player checks it against the
        # revocation now, instead of at its next heartbeat.
        await self._hub.publish.send(
            me.player_id,
            SESSION_CLOSED,
            g.SessionClosed(
                reason=g.SESSION_CLOSE_REASON_LOGGED_OUT, message="you logged out: log in again"
            ),
        )
        await self._leave_waiting(me.player_id, f"logout:{first.request_id}")
        log.info("player logged out", player_id=me.player_id, all_sessions=request.all_sessions)
        return g.LogoutResponse()

    async def GetPlayerStatus(
        self, request: g.GetPlayerStatusRequest, context: Any
    ) -> g.GetPlayerStatusResponse:
        me = caller()
        account = await self._store.account(me.player_id)
        if account is None:
            raise Unauthenticated("the account no longer exists")
        return g.GetPlayerStatusResponse(status=await self._status(player_message(account)))
