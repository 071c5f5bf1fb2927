"""The caches that make authenticating a call cheap: verified tokens by their exact string,
and revocations read from the store now and then and pushed between replicas."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from gateway.accounts import TOKEN_EXPIRED, Claims, TokenSigner, VerifiedTokens
from gateway.auth import Authenticator
from gateway.config import GatewaySettings
from gateway.limits import RateLimiter
from gateway.revocations import POLLED_SECONDS, PUSHED_SECONDS, Revocations, Revoked
from gateway.store import Revocation
from services.platform.errors import ResourceExhausted, Unauthenticated
from services.platform.settings import SettingsError

NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
SIGNER = TokenSigner(b"k" * 48, timedelta(minutes=15))


def issue(player: str = "p1", at: datetime = NOW) -> tuple[str, Claims]:
    issued = SIGNER.issue(player, player.upper(), at)
    return issued.token, issued.claims


def altered(token: str) -> list[str]:
    """The token with one character changed in each of its three parts."""
    version, body, signature = token.split(".")

    def flip(text: str) -> str:
        return ("B" if text[-2] == "A" else "A").join((text[:-2], text[-1:]))

    return [
        f"{flip(version)}.{body}.{signature}",
        f"{version}.{flip(body)}.{signature}",
        f"{version}.{body}.{flip(signature)}",
    ]


# -- the token secret, rotated -------------------------------------------------------


def test_a_signer_accepts_its_second_secret_but_never_signs_with_it() -> None:
    """TRIAD_TOKEN_SECRET_ACCEPTED: a rotation's next (then last) secret is accepted,
    a third is not; tokens are signed with the first secret alone."""
    old, new, other = b"o" * 48, b"n" * 48, b"x" * 48
    rotating = TokenSigner(new, accepted=old)
    for signer in (TokenSigner(old), TokenSigner(new), rotating):
        token = signer.issue("p1", "P1", NOW).token
        assert rotating.verify(token, NOW).player_id == "p1"
    issued = rotating.issue("p1", "P1", NOW).token
    assert TokenSigner(new).verify(issued, NOW).player_id == "p1"
    for refusing in (TokenSigner(old), TokenSigner(other, accepted=old)):
        with pytest.raises(Unauthenticated, match="not valid: refresh it or log in again"):
            refusing.verify(issued, NOW)


def test_the_accepted_secret_is_read_from_the_environment_and_as_long_as_the_first() -> None:
    base = {
        "TRIAD_DATABASE_URL": "postgresql://u@127.0.0.1:5432/db",
        "TRIAD_TOKEN_SECRET": "s" * 40,
        "TRIAD_GATEWAY_PLAINTEXT": "1",
    }
    assert GatewaySettings.from_env(base).token_secret_accepted is None
    rotating = GatewaySettings.from_env({**base, "TRIAD_TOKEN_SECRET_ACCEPTED": "a" * 40})
    assert rotating.token_secret_accepted == b"a" * 40
    with pytest.raises(SettingsError, match="TRIAD_TOKEN_SECRET_ACCEPTED must be at least 32"):
        GatewaySettings.from_env({**base, "TRIAD_TOKEN_SECRET_ACCEPTED": "short"})


# -- verified tokens ------------------------------------------------------------------


def test_a_token_is_verified_once_and_its_claims_found_again_by_the_token() -> None:
    tokens = VerifiedTokens(SIGNER)
    token, claims = issue()
    first = tokens.verify(token, NOW)
    assert first == claims
    assert tokens.verify(token, NOW + timedelta(minutes=5)) is first  # not verified again
    assert len(tokens) == 1


def test_an_altered_or_forged_token_is_refused_though_the_genuine_one_is_kept() -> None:
    tokens = VerifiedTokens(SIGNER)
    token, _ = issue()
    tokens.verify(token, NOW)
    forged = TokenSigner(b"x" * 48).issue("p1", "P1", NOW).token
    for bad in [*altered(token), forged, token + "A", token[:-1]]:
        with pytest.raises(Unauthenticated):
            tokens.verify(bad, NOW)
    assert len(tokens) == 1  # refusals are not kept


def test_a_kept_token_is_refused_at_its_expiry_with_the_signers_message() -> None:
    tokens = VerifiedTokens(SIGNER)
    token, claims = issue()
    tokens.verify(token, NOW)
    tokens.verify(token, claims.expires_at - timedelta(microseconds=1))
    with pytest.raises(Unauthenticated) as cached:
        tokens.verify(token, claims.expires_at)
    assert len(tokens) == 0
    with pytest.raises(Unauthenticated) as fresh:  # as the signer alone says it
        SIGNER.verify(token, claims.expires_at)
    assert str(cached.value) == str(fresh.value) == TOKEN_EXPIRED


def test_expired_tokens_are_dropped_when_a_new_one_is_kept() -> None:
    tokens = VerifiedTokens(SIGNER)
    for player in ("a", "b"):
        tokens.verify(issue(player)[0], NOW)
    later = NOW + SIGNER.access_ttl + timedelta(seconds=1)
    tokens.verify(issue("c", at=later)[0], later)
    assert len(tokens) == 1


def test_at_most_capacity_tokens_are_kept_the_oldest_dropped_first() -> None:
    tokens = VerifiedTokens(SIGNER, capacity=3)
    issued = [issue(f"p{i}") for i in range(5)]
    kept = [tokens.verify(token, NOW) for token, _ in issued]
    assert len(tokens) == 3
    assert tokens.verify(issued[4][0], NOW) is kept[4]  # among the newest: still kept
    again = tokens.verify(issued[0][0], NOW)  # dropped: verified again, still good
    assert again == kept[0] and again is not kept[0]


# -- revocations ----------------------------------------------------------------------


@dataclass
class Clock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Store:
    """Revocations as the tables hold them, counting the reads."""

    revoked: set[str] = field(default_factory=set)
    before: dict[str, datetime] = field(default_factory=dict)
    reads: int = 0
    gate: asyncio.Event | None = None

    async def revocation(self, player_id: str, jti: str) -> Revocation:
        self.reads += 1
        answer = Revocation(jti in self.revoked, self.before.get(player_id))
        if self.gate is not None:
            await self.gate.wait()
        return answer


def revocations(pushed: bool) -> tuple[Revocations, Store, Clock]:
    store, clock = Store(), Clock()
    cache = Revocations(store, clock)
    cache.pushed = pushed
    return cache, store, clock


async def test_without_pushes_the_store_is_asked_again_every_two_seconds() -> None:
    cache, store, clock = revocations(pushed=False)
    _, claims = issue()
    assert not await cache.refuses(claims)
    clock.now += POLLED_SECONDS - 0.1
    assert not await cache.refuses(claims)
    assert store.reads == 1
    store.revoked.add(claims.jti)  # another replica's logout, not pushed
    clock.now += 0.1
    assert await cache.refuses(claims)
    assert store.reads == 2


async def test_with_pushes_the_answer_is_kept_a_minute() -> None:
    cache, store, clock = revocations(pushed=True)
    _, claims = issue()
    assert not await cache.refuses(claims)
    store.revoked.add(claims.jti)  # a logout whose push was lost
    clock.now += PUSHED_SECONDS - 0.1
    assert not await cache.refuses(claims)
    assert store.reads == 1
    clock.now += 0.1
    assert await cache.refuses(claims)  # the safety net
    assert store.reads == 2


async def test_a_pushed_revocation_refuses_the_token_at_once_without_asking_the_store() -> None:
    cache, store, _ = revocations(pushed=True)
    (_, mine), (_, other) = issue("p1"), issue("p2")
    assert not await cache.refuses(mine) and not await cache.refuses(other)
    cache.apply(Revoked("p1", mine.jti))
    assert await cache.refuses(mine)
    assert not await cache.refuses(other)
    assert store.reads == 2  # one each, before the push


async def test_a_pushed_revocation_of_a_token_never_seen_here_refuses_it() -> None:
    cache, store, _ = revocations(pushed=True)
    _, claims = issue()
    cache.apply(Revoked("p1", claims.jti))
    assert await cache.refuses(claims)
    assert store.reads == 0


async def test_a_pushed_logout_everywhere_refuses_the_players_older_tokens_only() -> None:
    cache, store, clock = revocations(pushed=True)
    _, older = issue("p1")
    _, current = issue("p1", at=NOW + timedelta(seconds=10))
    _, newer = issue("p1", at=NOW + timedelta(seconds=30))
    _, someone = issue("p2")
    for claims in (older, current, newer, someone):
        assert not await cache.refuses(claims)
    cache.apply(Revoked("p1", current.jti, before=NOW + timedelta(seconds=20)))
    assert await cache.refuses(older)
    assert await cache.refuses(current)
    assert not await cache.refuses(newer)
    assert not await cache.refuses(someone)
    assert store.reads == 4
    # A minute on, the store knows it (the logout committed before its push).
    store.before["p1"] = NOW + timedelta(seconds=20)
    clock.now += PUSHED_SECONDS
    assert await cache.refuses(older)
    assert not await cache.refuses(newer)


async def test_a_store_read_overtaken_by_a_push_is_not_kept() -> None:
    cache, store, _ = revocations(pushed=True)
    _, claims = issue()
    store.gate = asyncio.Event()
    reading = asyncio.ensure_future(cache.refuses(claims))  # reads "not revoked"
    await asyncio.sleep(0)
    assert store.reads == 1
    cache.apply(Revoked("p1", "another-token", before=NOW))  # commits, pushed, meanwhile
    store.gate.set()
    assert await reading is True  # the push is checked after the read
    store.gate = None
    await cache.refuses(claims)
    assert store.reads == 2  # the overtaken read was not kept


async def test_a_store_read_overtaken_by_a_pushed_token_revocation_does_not_undo_it() -> None:
    cache, store, _ = revocations(pushed=True)
    _, claims = issue()
    store.gate = asyncio.Event()
    reading = asyncio.ensure_future(cache.refuses(claims))
    await asyncio.sleep(0)
    cache.apply(Revoked("p1", claims.jti))
    store.gate.set()
    await reading  # answered as of before the logout
    assert await cache.refuses(claims)  # but not kept over the pushed revocation


async def test_after_a_break_in_the_pushes_every_token_is_asked_again() -> None:
    cache, store, _ = revocations(pushed=True)
    _, claims = issue()
    assert not await cache.refuses(claims)
    store.revoked.add(claims.jti)  # pushed while the feed was away
    cache.clear()
    assert await cache.refuses(claims)


async def test_the_cached_answers_are_bounded_and_the_stale_ones_dropped() -> None:
    store, clock = Store(), Clock()
    cache = Revocations(store, clock, capacity=3)
    cache.pushed = True
    many = [issue(f"p{i}")[1] for i in range(5)]
    for claims in many:
        await cache.refuses(claims)
    assert len(cache) == 3
    clock.now += PUSHED_SECONDS
    await cache.refuses(many[0])
    assert len(cache) == 1


def test_a_revocation_reads_back_as_it_was_pushed() -> None:
    for revoked in (
        Revoked("p1", "j1"),
        Revoked("p1", "j1", before=NOW + timedelta(microseconds=123)),
    ):
        assert Revoked.decode(revoked.encode()) == revoked


# -- both, behind authenticate ----------------------------------------------------------


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("user-agent", "test"), ("authorization", f"Bearer {token}"))


async def test_checking_a_token_again_counts_no_call_against_the_players_rate() -> None:
    """A session stream's check of its token (``check``) spends nothing: a player at
    their limit is still told their token holds, or that it was revoked."""
    auth = Authenticator(SIGNER, Store(), RateLimiter(0.001, 1), clock=lambda: NOW)
    auth.revocations.pushed = True
    token, claims = issue("p1")
    assert await auth.authenticate(bearer(token)) == claims  # the one call allowed
    with pytest.raises(ResourceExhausted):
        await auth.authenticate(bearer(token))
    assert await auth.check(bearer(token)) == claims
    await auth.revoked(Revoked("p1", claims.jti))
    with pytest.raises(Unauthenticated, match="revoked"):
        await auth.check(bearer(token))


async def test_a_logout_here_refuses_the_token_at_once_and_only_it() -> None:
    store = Store()
    auth = Authenticator(SIGNER, store, RateLimiter(1000, 1000), clock=lambda: NOW)
    auth.revocations.pushed = True
    (token, claims), (other, _) = issue("p1"), issue("p1", at=NOW + timedelta(seconds=1))
    assert await auth.authenticate(bearer(token)) == claims
    await auth.authenticate(bearer(other))
    await auth.revoked(Revoked("p1", claims.jti))  # no NATS: applied here only
    with pytest.raises(Unauthenticated, match="revoked"):
        await auth.authenticate(bearer(token))
    assert (await auth.authenticate(bearer(other))).player_id == "p1"
    for bad in altered(token):
        with pytest.raises(Unauthenticated, match=r"malformed|not valid"):
            await auth.authenticate(bearer(bad))
    with pytest.raises(Unauthenticated, match="Bearer"):
        await auth.authenticate((("authorization", token),))
    for scheme in ("bearer", "BEARER"):  # the scheme's name is case-insensitive
        assert await auth.authenticate((("authorization", f"{scheme} {other}"),))
    with pytest.raises(Unauthenticated, match="Bearer"):
        await auth.authenticate((("authorization", f"Basic {other}"),))
