"""The gateway's settings, read once from the environment (TRIAD_...)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from gateway.closed import SETTING as CLOSED_METHODS
from gateway.closed import closed_methods
from gateway.limits import Allowance, Allowances
from services.platform.endpoints import default_address
from services.platform.settings import (
    ServiceSettings,
    SettingsError,
    basics,
    number,
    optional,
    port,
)

MIN_SECRET = 32


@dataclass(frozen=True, slots=True)
class GatewaySettings(ServiceSettings):
    schema: str
    token_secret: bytes
    access_minutes: float
    tls_cert: str | None
    tls_key: str | None
    plaintext: bool
    match_addr: str
    matchmaker_addr: str | None
    collection_addr: str | None
    rating_addr: str | None
    battle_addr: str | None
    rate_per_second: float
    rate_burst: float
    open_calls: Allowances
    """Wrong passwords, refused refresh tokens and new accounts (``gateway.limits``)."""
    heartbeat_seconds: float
    web_port: int | None
    """gRPC-Web and the browser client (``gateway.web``); None: not served."""
    web_root: str | None
    """The built browser client (``make web``: web/dist) served on the web port."""
    web_origins: tuple[str, ...]
    """Other origins whose pages may call the web port (CORS); none by default."""
    sweep_seconds: float = 10.0
    """How often the gateway says it lives and looks for the sessions of dead gateways
    (``gateway/presence.py``; ``TRIAD_GATEWAY_SWEEP_SECONDS``)."""
    dead_seconds: float = 60.0
    """A gateway not seen this long died: its players are reported away
    (``TRIAD_GATEWAY_DEAD_SECONDS``)."""
    queue_away_seconds: float = 15.0
    """A player whose session ended and who opened none since, this long, leaves the
    queue and closes the open table they host (``gateway/presence.py``;
    ``TRIAD_QUEUE_AWAY_SECONDS``)."""
    health_port: int | None = None
    """``grpc.health.v1`` alone, without TLS, for Kubernetes' probes (they speak no
    TLS, and the gRPC port does when a certificate is set); None: not served."""
    closed_methods: frozenset[str] = frozenset()
    """Public methods answered "closed for now by the operators" (``gateway.closed``;
    ``TRIAD_GATEWAY_CLOSED_METHODS``); none by default."""
    token_secret_accepted: bytes | None = None
    """A second token secret whose access tokens are accepted, never signed with: the
    next secret, then the last one, while the token secret is rotated
    (``TRIAD_TOKEN_SECRET_ACCEPTED``; ``accounts.TokenSigner``)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> GatewaySettings:
        env = os.environ if environ is None else environ
        common = basics(env, "gateway")
        secret = optional(env, "TRIAD_TOKEN_SECRET")
        if secret is None or len(secret) < MIN_SECRET:
            raise SettingsError(
                f"TRIAD_TOKEN_SECRET must be set to a random string of at least {MIN_SECRET} "
                "characters (it signs every access token)"
            )
        accepted = optional(env, "TRIAD_TOKEN_SECRET_ACCEPTED")
        if accepted is not None and len(accepted) < MIN_SECRET:
            raise SettingsError(
                f"TRIAD_TOKEN_SECRET_ACCEPTED must be at least {MIN_SECRET} characters, as "
                "TRIAD_TOKEN_SECRET (the other secret accepted while the token secret is "
                "rotated), or unset"
            )
        cert = optional(env, "TRIAD_GATEWAY_TLS_CERT")
        key = optional(env, "TRIAD_GATEWAY_TLS_KEY")
        plaintext = optional(env, "TRIAD_GATEWAY_PLAINTEXT") in ("1", "true", "yes")
        if (cert is None) != (key is None):
            raise SettingsError("set both TRIAD_GATEWAY_TLS_CERT and TRIAD_GATEWAY_TLS_KEY")
        if cert is None and not plaintext:
            raise SettingsError(
                "the gateway serves TLS: set TRIAD_GATEWAY_TLS_CERT and TRIAD_GATEWAY_TLS_KEY "
                "(make run makes a development certificate), or TRIAD_GATEWAY_PLAINTEXT=1 for "
                "local tests only"
            )
        if plaintext and optional(env, "TRIAD_ENV") == "production":
            raise SettingsError("TRIAD_GATEWAY_PLAINTEXT is refused when TRIAD_ENV=production")
        return cls(
            **common,
            schema=optional(env, "TRIAD_GATEWAY_SCHEMA") or "gateway",
            token_secret=secret.encode(),
            token_secret_accepted=None if accepted is None else accepted.encode(),
            access_minutes=number(env, "TRIAD_ACCESS_TOKEN_MINUTES", 15.0, minimum=0.01),
            tls_cert=cert,
            tls_key=key,
            plaintext=plaintext,
            match_addr=optional(env, "TRIAD_MATCH_ADDR") or default_address("match"),
            # Unset: that service's RPCs answer UNAVAILABLE ("not configured here").
            matchmaker_addr=optional(env, "TRIAD_MATCHMAKER_ADDR"),
            collection_addr=optional(env, "TRIAD_COLLECTION_ADDR"),
            rating_addr=optional(env, "TRIAD_RATING_ADDR"),
            battle_addr=optional(env, "TRIAD_BATTLE_ADDR"),
            rate_per_second=number(env, "TRIAD_RATE_PER_SECOND", 20.0, minimum=0.1),
            rate_burst=number(env, "TRIAD_RATE_BURST", 40.0, minimum=1.0),
            open_calls=Allowances(
                failed_logins=_allowance(
                    env,
                    "TRIAD_FAILED_LOGINS_PER_MINUTE",
                    "TRIAD_FAILED_LOGIN_BURST",
                    OPEN.failed_logins,
                ),
                failed_logins_by_address=_allowance(
                    env,
                    "TRIAD_FAILED_LOGINS_PER_ADDRESS_PER_MINUTE",
                    "TRIAD_FAILED_LOGIN_ADDRESS_BURST",
                    OPEN.failed_logins_by_address,
                ),
                registrations=_allowance(
                    env,
                    "TRIAD_REGISTRATIONS_PER_MINUTE",
                    "TRIAD_REGISTRATION_BURST",
                    OPEN.registrations,
                    slowest=0.01,
                ),
            ),
            heartbeat_seconds=number(env, "TRIAD_HEARTBEAT_SECONDS", 10.0, minimum=0.05),
            # Served only when set (0: a free port); make run sets DEFAULT_PORTS' web port.
            web_port=(
                port(env, "TRIAD_GATEWAY_WEB_PORT", 0)
                if optional(env, "TRIAD_GATEWAY_WEB_PORT") is not None
                else None
            ),
            web_root=optional(env, "TRIAD_GATEWAY_WEB_ROOT"),
            web_origins=origins(env, "TRIAD_GATEWAY_WEB_ORIGINS"),
            sweep_seconds=number(env, "TRIAD_GATEWAY_SWEEP_SECONDS", 10.0, minimum=0.05),
            dead_seconds=number(env, "TRIAD_GATEWAY_DEAD_SECONDS", 60.0, minimum=0.1),
            queue_away_seconds=number(env, "TRIAD_QUEUE_AWAY_SECONDS", 15.0, minimum=0.05),
            health_port=(
                port(env, "TRIAD_GATEWAY_HEALTH_PORT", 0)
                if optional(env, "TRIAD_GATEWAY_HEALTH_PORT") is not None
                else None
            ),
            closed_methods=closed_methods(optional(env, CLOSED_METHODS)),
        )


def origins(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """Comma-separated web origins (``https://play.example.com``), each checked."""
    found = tuple(o.strip() for o in (optional(env, name) or "").split(",") if o.strip())
    for origin in found:
        scheme, sep, host = origin.partition("://")
        if scheme not in ("https", "http") or not sep or not host or "/" in host:
            raise SettingsError(
                f"{name}: {origin!r} is not an origin: write scheme and host only, "
                "such as https://play.example.com"
            )
    return found


OPEN = Allowances()
"""The open calls' allowances when the environment names none."""


def _allowance(
    env: Mapping[str, str], per_minute: str, burst: str, default: Allowance, slowest: float = 0.1
) -> Allowance:
    """The environment's ``per_minute`` a minute, ``burst`` at once."""
    return Allowance(
        number(env, per_minute, default.per_minute, minimum=slowest),
        number(env, burst, default.burst, minimum=1.0),
    )
