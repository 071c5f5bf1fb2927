"""The gateway's tables (schema ``gateway``, every migration in ``schema.py``):
accounts, refresh tokens, revocations, idempotency keys of the calls it answers itself,
each player's current session, and the open calls' rate limits (``gateway.limits``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from services.platform.errors import AlreadyExists, Unauthenticated
from services.platform.migrations import quote_schema
from services.platform.requests import Request, answered, remember


@dataclass(frozen=True, slots=True)
class HeldSession:
    """A player's session as the sessions table holds it."""

    player_id: str
    session_id: str
    opened_at: datetime


@dataclass(frozen=True, slots=True)
class Account:
    player_id: str
    name: str
    password_hash: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Revocation:
    """What the store knows against one access token."""

    revoked: bool
    """The token itself was revoked (its session logged out)."""
    before: datetime | None
    """Every token of the player issued up to this time is revoked (logout everywhere)."""

    def refuses(self, issued_at: datetime) -> bool:
        return self.revoked or (self.before is not None and issued_at <= self.before)


class GatewayStore:
    def __init__(self, pool: Any, schema: str, gateway_id: str = "") -> None:
        self.pool = pool
        self._s = quote_schema(schema)
        self._requests = f"{self._s}.requests"
        self.gateway_id = gateway_id
        """This gateway process (its sessions are written with it; ``beat`` says it lives)."""

    async def create_account(self, conn: Any, account: Account) -> None:
        try:
            await conn.execute(
                f"INSERT INTO {self._s}.accounts (player_id, name, name_key, password_hash, "
                "created_at) VALUES ($1, $2, $3, $4, $5)",
                account.player_id,
                account.name,
                account.name.lower(),
                account.password_hash,
                account.created_at,
            )
        except asyncpg.UniqueViolationError:
            raise AlreadyExists(f"the name {account.name!r} is taken; choose another") from None

    async def account_named(self, name: str) -> Account | None:
        row = await self.pool.fetchrow(
            f"SELECT player_id, name, password_hash, created_at FROM {self._s}.accounts "
            "WHERE name_key = $1",
            name.lower(),
        )
        return None if row is None else Account(**dict(row))

    async def account(self, player_id: str) -> Account | None:
        row = await self.pool.fetchrow(
            f"SELECT player_id, name, password_hash, created_at FROM {self._s}.accounts "
            "WHERE player_id = $1",
            player_id,
        )
        return None if row is None else Account(**dict(row))

    async def save_refresh(
        self, conn: Any, key: str, player_id: str, jti: str, expires_at: datetime
    ) -> None:
        await conn.execute(
            f"INSERT INTO {self._s}.refresh_tokens (token_key, player_id, access_jti, expires_at)"
            " VALUES ($1, $2, $3, $4)",
            key,
            player_id,
            jti,
            expires_at,
        )

    async def hold_account(self, conn: Any, player_id: str) -> None:
        """Hold the player's account row until the caller's transaction ends, shared (any
        number of tokens may be issued at once): a log-out everywhere waits for tokens
        being issued, so that it takes them too (``revoke``)."""
        await conn.execute(
            f"SELECT 1 FROM {self._s}.accounts WHERE player_id = $1 FOR SHARE", player_id
        )

    async def use_refresh(self, conn: Any, key: str, now: datetime) -> Account:
        """Spend a refresh token (single use) inside the caller's transaction. The account
        is held first (``hold_account``; before the token's row, in the order ``revoke``
        takes them)."""
        owner = await conn.fetchval(
            f"SELECT player_id FROM {self._s}.refresh_tokens WHERE token_key = $1", key
        )
        if owner is not None:
            await self.hold_account(conn, owner)
        row = await conn.fetchrow(
            f"SELECT player_id, expires_at, used_at, revoked_at FROM {self._s}.refresh_tokens "
            "WHERE token_key = $1 FOR UPDATE",
            key,
        )
        if row is None or row["revoked_at"] is not None or row["used_at"] is not None:
            raise Unauthenticated("the refresh token is not valid any more: log in again")
        if row["expires_at"] <= now:
            raise Unauthenticated("the refresh token expired: log in again")
        await conn.execute(
            f"UPDATE {self._s}.refresh_tokens SET used_at = $2 WHERE token_key = $1", key, now
        )
        account = await self.account(row["player_id"])
        if account is None:
            raise Unauthenticated("the account no longer exists")
        return account

    async def revoke(
        self,
        player_id: str,
        jti: str,
        expires_at: datetime,
        everything: bool,
        now: datetime,
        clock: Callable[[], datetime] | None = None,
    ) -> datetime:
        """Revoke ``jti`` and its refresh token, or (``everything``) every token of the
        player issued up to the time returned: ``now``, or with ``clock`` its time once
        the tokens being issued for the player are (found from outside: a refresh racing
        a log-out everywhere issued its pair after the log-out's time and saved its
        refresh token where the log-out did not look, and both kept working)."""
        async with self.pool.acquire() as conn, conn.transaction():
            if everything:
                await conn.execute(
                    f"SELECT 1 FROM {self._s}.accounts WHERE player_id = $1 FOR UPDATE",
                    player_id,
                )
                now = clock() if clock is not None else now
            await conn.execute(
                f"INSERT INTO {self._s}.revoked_tokens (jti, expires_at) VALUES ($1, $2) "
                "ON CONFLICT DO NOTHING",
                jti,
                expires_at,
            )
            if everything:
                await conn.execute(
                    f"UPDATE {self._s}.accounts SET revoked_before = $2 WHERE player_id = $1",
                    player_id,
                    now,
                )
                await conn.execute(
                    f"UPDATE {self._s}.refresh_tokens SET revoked_at = $2 "
                    "WHERE player_id = $1 AND revoked_at IS NULL",
                    player_id,
                    now,
                )
            else:
                await conn.execute(
                    f"UPDATE {self._s}.refresh_tokens SET revoked_at = $2 "
                    "WHERE access_jti = $1 AND revoked_at IS NULL",
                    jti,
                    now,
                )
        return now

    async def revocation(self, player_id: str, jti: str) -> Revocation:
        """Whether ``jti`` is revoked, and before when all the player's tokens are."""
        row = await self.pool.fetchrow(
            f"SELECT EXISTS (SELECT 1 FROM {self._s}.revoked_tokens WHERE jti = $2) AS revoked, "
            f"(SELECT revoked_before FROM {self._s}.accounts WHERE player_id = $1) AS before",
            player_id,
            jti,
        )
        return Revocation(bool(row["revoked"]), row["before"])

    async def answered(self, request: Request) -> bytes | None:
        """The first response to ``request`` if its id was seen (``RequestReused`` if
        with other content), else None."""
        first = await answered(self.pool, self._requests, request, "response")
        return None if first is None else bytes(first["response"])

    async def remember(self, conn: Any, request: Request, response: bytes) -> None:
        """Record ``request``'s response in the caller's transaction."""
        await remember(conn, self._requests, request, response=response)

    async def open_session(self, player_id: str, session_id: str, now: datetime) -> bool:
        """Make ``session_id`` the player's session, held by this gateway, unless one
        opened later is already (two opened at once: the later wins everywhere, as the
        match and battle services order presence by ``opened_at``). Whether it is."""
        held = await self.pool.fetchval(
            f"INSERT INTO {self._s}.sessions AS s (player_id, session_id, opened_at, gateway_id) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT (player_id) DO UPDATE "
            "SET session_id = EXCLUDED.session_id, opened_at = EXCLUDED.opened_at, "
            "gateway_id = EXCLUDED.gateway_id WHERE EXCLUDED.opened_at >= s.opened_at "
            "RETURNING true",
            player_id,
            session_id,
            now,
            self.gateway_id,
        )
        return bool(held)

    async def beat(self, now: datetime) -> None:
        """This gateway is alive at ``now``."""
        await self.pool.execute(
            f"INSERT INTO {self._s}.gateways VALUES ($1, $2) "
            "ON CONFLICT (gateway_id) DO UPDATE SET seen_at = EXCLUDED.seen_at",
            self.gateway_id,
            now,
        )

    async def orphaned(self, seen_before: datetime, limit: int = 500) -> list[HeldSession]:
        """Sessions held by a gateway not seen since ``seen_before`` (killed: its
        sessions never said they ended), each given up at once (no gateway holds it
        now), so that exactly one caller reports it."""
        rows = await self.pool.fetch(
            f"UPDATE {self._s}.sessions SET gateway_id = '' WHERE player_id IN ("
            f"SELECT s.player_id FROM {self._s}.sessions s "
            f"LEFT JOIN {self._s}.gateways g USING (gateway_id) "
            "WHERE s.gateway_id <> '' AND s.gateway_id <> $2 "
            "AND (g.seen_at IS NULL OR g.seen_at < $1) LIMIT $3 FOR UPDATE OF s SKIP LOCKED) "
            "RETURNING player_id, session_id, opened_at",
            seen_before,
            self.gateway_id,
            limit,
        )
        return [HeldSession(r["player_id"], r["session_id"], r["opened_at"]) for r in rows]

    async def current_session(self, player_id: str) -> str | None:
        value = await self.pool.fetchval(
            f"SELECT session_id FROM {self._s}.sessions WHERE player_id = $1", player_id
        )
        return None if value is None else str(value)
