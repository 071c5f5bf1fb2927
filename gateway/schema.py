"""Every migration of the gateway's schema (``gateway`` by default,
``TRIAD_GATEWAY_SCHEMA``), applied at start (``main.py``): accounts, refresh tokens,
revoked access tokens, the idempotency keys of the calls the gateway answers itself,
each player's current session and the gateway holding it, the gateways' heartbeats,
and the open calls' rate limits shared by the replicas (``limits.py``). What reads and
writes them is ``store.py``."""

from __future__ import annotations

from datetime import timedelta

from services.platform.migrations import Migration, quote_schema
from services.platform.retention import Transient

SCHEMA_MIGRATIONS = (
    Migration(
        "gateway",
        1,
        "accounts, refresh tokens, revocations, requests, sessions",
        """
        CREATE TABLE accounts (
            player_id      text PRIMARY KEY,
            name           text NOT NULL,
            name_key       text NOT NULL UNIQUE,
            password_hash  text NOT NULL,
            created_at     timestamptz NOT NULL,
            revoked_before timestamptz
        );
        CREATE TABLE refresh_tokens (
            token_key   text PRIMARY KEY,
            player_id   text NOT NULL REFERENCES accounts,
            access_jti  text NOT NULL,
            expires_at  timestamptz NOT NULL,
            used_at     timestamptz,
            revoked_at  timestamptz
        );
        CREATE INDEX refresh_tokens_player ON refresh_tokens (player_id);
        CREATE TABLE revoked_tokens (
            jti        text PRIMARY KEY,
            expires_at timestamptz NOT NULL
        );
        CREATE TABLE requests (
            scope       text NOT NULL,
            request_id  text NOT NULL,
            fingerprint text NOT NULL,
            response    bytea NOT NULL,
            created_at  timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (scope, request_id)
        );
        CREATE TABLE sessions (
            player_id  text PRIMARY KEY,
            session_id text NOT NULL,
            opened_at  timestamptz NOT NULL
        );
        """,
    ),
    Migration(
        "gateway",
        2,
        "which gateway holds each session, and when each gateway was last seen",
        """
        ALTER TABLE sessions ADD COLUMN gateway_id text NOT NULL DEFAULT '';
        CREATE INDEX sessions_gateway ON sessions (gateway_id) WHERE gateway_id <> '';
        CREATE TABLE gateways (
            gateway_id text PRIMARY KEY,
            seen_at    timestamptz NOT NULL
        );
        """,
    ),
    Migration(
        "gateway",
        3,
        "the open calls' rate limits, shared by the replicas (gateway.limits)",
        """
        CREATE TABLE rate_buckets (
            bucket text PRIMARY KEY,
            tokens double precision NOT NULL,
            took   boolean NOT NULL,
            at     timestamptz NOT NULL
        );
        CREATE INDEX rate_buckets_at ON rate_buckets (at);
        """,
    ),
    Migration(
        "gateway",
        4,
        "request keys and expired tokens by age, for their pruning",
        """
        -- services.platform.retention: request keys after TRIAD_RETENTION_DAYS; a
        -- refresh token or a revoked access token once it has expired.
        CREATE INDEX requests_by_age ON requests (created_at);
        CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at);
        CREATE INDEX revoked_tokens_by_expiry ON revoked_tokens (expires_at);
        """,
    ),
)


def transient(schema: str) -> list[Transient]:
    """What ``services.platform.retention`` prunes here: request keys; refresh tokens
    and revoked access tokens once expired (a day later, for clocks a little apart)."""
    s, day = quote_schema(schema), timedelta(days=1)
    return [
        Transient(f"{s}.requests", "created_at"),
        Transient(f"{s}.refresh_tokens", "expires_at", kept=day),
        Transient(f"{s}.revoked_tokens", "expires_at", kept=day),
    ]
