"""Accounts and tokens, as pure functions: names, password hashes, signed tokens.

Passwords are stored only as salted scrypt hashes (``hashlib.scrypt``: memory-hard,
standard library). Access tokens are ``v1.<claims>.<signature>``: base64url JSON
claims signed with HMAC-SHA256 under a secret from the environment; they expire, and
each carries a token id (``jti``) so one token can be revoked. Refresh tokens are
random strings stored only as their SHA-256. ``VerifiedTokens`` verifies each access
token once per replica and keeps its claims until it expires.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import re
import secrets
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta

from services.platform.errors import InvalidArgument, Unauthenticated

NAME = re.compile(r"[A-Za-z0-9_-]{3,20}")
MIN_PASSWORD = 10
MAX_PASSWORD = 200
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
TOKEN_VERSION = "v1"
TOKEN_EXPIRED = "the access token expired: refresh it or log in again"
TOKEN_NOT_VALID = "the access token is not valid: refresh it or log in again"
"""Signed with neither secret this gateway accepts: forged, or issued before a rotation
of the token secret that kept no overlap; a refresh token still gives a new one."""
VERIFIED_TOKENS = 100_000
"""How many verified tokens a replica keeps (each about 1 KB): a player holds one at a
time, so this is the players of the last token lifetime, more than a replica serves."""


RESERVED_NAMES = frozenset({"cpu"})
"""Names the server gives its own seats (a practice battle's CPU), in any case: a player
named so would pass for the computer in an opponent's view."""


def check_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise InvalidArgument(
            "a player name is 3 to 20 letters, digits, '_' or '-' (no spaces, no '[BOT]')"
        )
    if name.lower() in RESERVED_NAMES:
        raise InvalidArgument(f"{name!r} is the computer's name in battles: choose another")
    return name


def check_password(password: str) -> str:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise InvalidArgument(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    return password


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(
        password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32
    )
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    computed = hashlib.scrypt(
        password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=32
    )
    return hmac.compare_digest(computed.hex(), digest)


DUMMY_HASH = hash_password("not a password of anyone", b"\x00" * 16)
"""Verified against when the name is unknown, so both failures take the same time."""


@dataclass(frozen=True, slots=True)
class Claims:
    player_id: str
    name: str
    jti: str
    issued_at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class Issued:
    """An access token and its claims, as ``TokenSigner.verify`` reads them back."""

    token: str
    claims: Claims


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True, slots=True)
class TokenSigner:
    """Signs access tokens with ``secret`` and accepts those signed with it or with
    ``accepted``, a second secret never signed with: during a rotation of the token
    secret, the next one (every replica accepts it before any signs with it), then the
    last one (tokens issued before the switch live out their lifetime);
    deploy/k8s/README.md, 'Rotating secrets'."""

    secret: bytes
    access_ttl: timedelta = timedelta(minutes=15)
    refresh_ttl: timedelta = timedelta(days=30)
    accepted: bytes | None = None

    def issue(self, player_id: str, name: str, now: datetime) -> Issued:
        """A signed token and its claims exactly as ``verify`` reads them back. The
        expiry is in whole seconds, rounded up, so the time announced with the token is
        the one enforced and the lifetime is never shorter than ``access_ttl``. The
        issue time keeps its fraction of a second: a logout everywhere refuses the
        tokens issued up to its moment, and a login a moment later, in the same second,
        must not be one of them."""
        issued = datetime.fromtimestamp(now.timestamp(), now.tzinfo)
        expires = datetime.fromtimestamp(math.ceil((now + self.access_ttl).timestamp()), now.tzinfo)
        claims = Claims(player_id, name, secrets.token_hex(16), issued, expires)
        body = _b64(
            json.dumps(
                {
                    "sub": claims.player_id,
                    "name": claims.name,
                    "jti": claims.jti,
                    "iat": claims.issued_at.timestamp(),
                    "exp": int(claims.expires_at.timestamp()),
                },
                separators=(",", ":"),
            ).encode()
        )
        signed = f"{TOKEN_VERSION}.{body}"
        return Issued(f"{signed}.{self._sign(signed)}", claims)

    def verify(self, token: str, now: datetime) -> Claims:
        """The claims of a genuine, unexpired token; Unauthenticated otherwise (the
        message never says more than a client can act on)."""
        parts = token.split(".")
        if len(parts) != 3 or parts[0] != TOKEN_VERSION:
            raise Unauthenticated("the access token is malformed: log in again")
        signed = f"{parts[0]}.{parts[1]}"
        if not self._genuine(signed, parts[2]):
            raise Unauthenticated(TOKEN_NOT_VALID)
        try:
            raw = json.loads(_unb64(parts[1]))
            claims = Claims(
                player_id=str(raw["sub"]),
                name=str(raw["name"]),
                jti=str(raw["jti"]),
                issued_at=datetime.fromtimestamp(float(raw["iat"]), now.tzinfo),
                expires_at=datetime.fromtimestamp(int(raw["exp"]), now.tzinfo),
            )
        except (ValueError, KeyError, TypeError):
            raise Unauthenticated("the access token is malformed: log in again") from None
        if claims.expires_at <= now:
            raise Unauthenticated(TOKEN_EXPIRED)
        return claims

    def _sign(self, text: str, secret: bytes | None = None) -> str:
        key = self.secret if secret is None else secret
        return _b64(hmac.new(key, text.encode(), hashlib.sha256).digest())

    def _genuine(self, signed: str, signature: str) -> bool:
        if hmac.compare_digest(self._sign(signed), signature):
            return True
        return self.accepted is not None and hmac.compare_digest(
            self._sign(signed, self.accepted), signature
        )


class VerifiedTokens:
    """The claims of the access tokens this replica has verified, by the exact token.

    Verifying a token (base64, JSON, HMAC-SHA256) on every call cost the gateway more
    than forwarding the call, so each token is verified once and its claims are found
    again by the token string. The key is the whole string, signature included: a
    forged or altered token is another key, verified in full and refused (refusals are
    not kept). A token's entry ends at its expiry: from then on the token is refused at
    once, with the message ``TokenSigner.verify`` gives.

    At most ``capacity`` entries, dropped oldest first. Tokens are mostly first seen in
    the order they expire (one lifetime for all), so keeping one drops the expired ones
    at the front; one that expired elsewhere in the order goes when it is next presented
    or when the oldest are dropped for room.
    """

    def __init__(self, signer: TokenSigner, capacity: int = VERIFIED_TOKENS) -> None:
        self.signer, self.capacity = signer, capacity
        self._claims: OrderedDict[str, Claims] = OrderedDict()

    def __len__(self) -> int:
        return len(self._claims)

    def verify(self, token: str, now: datetime) -> Claims:
        """``TokenSigner.verify``, once per token."""
        claims = self._claims.get(token)
        if claims is None:
            claims = self.signer.verify(token, now)
            self._keep(token, claims, now)
        elif claims.expires_at <= now:
            del self._claims[token]
            raise Unauthenticated(TOKEN_EXPIRED)
        return claims

    def _keep(self, token: str, claims: Claims, now: datetime) -> None:
        kept = self._claims
        while kept:
            oldest = next(iter(kept))
            if len(kept) < self.capacity and kept[oldest].expires_at > now:
                break
            del kept[oldest]
        kept[token] = claims


def new_refresh_token() -> str:
    return secrets.token_urlsafe(32)


def refresh_key(token: str) -> str:
    """Refresh tokens are stored only as this digest: a database leak reveals none."""
    return hashlib.sha256(token.encode()).hexdigest()
