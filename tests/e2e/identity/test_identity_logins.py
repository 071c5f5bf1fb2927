"""Names and their spellings at Register and Login, through the TLS gateway with every
service a process on real PostgreSQL and NATS.

A name that reads as the computer's ("CPU", in any case) is refused at Register: in a
battle view it would pass for the practice bot.

Names are unique whatever their case, so the wrong-password throttle (a burst of 10, then
6 a minute) counts guesses per account, not per spelling: typing the name in another
case is no fresh allowance of guesses. A name no account can have (a lookalike letter,
a megabyte of text) is refused at once, as an unknown name, and never remembered.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD
from tests.e2e.sessions import join

pytestmark = pytest.mark.integration


BURST = 10
"""Wrong passwords a name may have at once (gateway.limits.FAILED_LOGIN_BURST)."""
REFRESH_BURST = 100
"""Refused refresh tokens an address may have at once (FAILED_LOGIN_ADDRESS_BURST)."""


async def login(api: Any, name: str, password: str) -> tuple[grpc.StatusCode, str]:
    try:
        await api.Login(
            g.LoginRequest(request_id=uuid4().hex, player_name=name, password=password),
            timeout=20,
        )
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


async def register(api: Any, rng: random.Random, first: str = "") -> str:
    """A player whose name is all letters (``first`` first): it has thousands of
    spellings by case."""
    name = first + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(16))
    await api.Register(
        g.RegisterRequest(request_id=uuid4().hex, player_name=name, password=PASSWORD)
    )
    return name


def spellings(name: str, rng: random.Random, count: int) -> list[str]:
    """``count`` different spellings of ``name`` by case, none the name as registered."""
    found: set[str] = set()
    while len(found) < count:
        spelled = "".join(c.upper() if rng.random() < 0.5 else c for c in name)
        if spelled != name:
            found.add(spelled)
    return sorted(found)


async def test_guessing_under_other_cases_of_a_name_counts_against_that_name(api: Any) -> None:
    rng = random.Random()
    ann = await register(api, rng)
    tries = spellings(ann, rng, BURST + 1)
    for spelled in tries[:BURST]:
        assert (await login(api, spelled, "a wrong guess"))[0] == grpc.StatusCode.UNAUTHENTICATED
    code, details = await login(api, tries[BURST], "one guess more")
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, (code, details)
    assert "too many wrong passwords" in details and "wait a minute" in details
    code, _ = await login(api, ann, PASSWORD)
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, "the account waits, however it is typed"


async def test_a_name_no_account_can_have_is_refused_at_once_as_unknown(api: Any) -> None:
    """Ann's name with a lookalike letter (KELVIN SIGN, which lowercases to 'k') does not
    log Ann in, even with her password; a name of a megabyte is an unknown name too.
    Neither counts against Ann's guesses."""
    rng = random.Random()
    ann = await register(api, rng, first="k")
    for name in ("\u212a" + ann[1:], ann + "\u200b", " " + ann, "n" * 1_000_000, "ann\n"):
        code, details = await login(api, name, PASSWORD)
        assert code == grpc.StatusCode.UNAUTHENTICATED, (name[:30], code, details)
        assert details == "unknown player name or wrong password"
    for _ in range(BURST + 5):
        await login(api, "\u212a" + ann[1:], "a wrong guess")
    assert (await login(api, ann, PASSWORD))[0] == grpc.StatusCode.OK


async def test_a_name_that_reads_as_the_computer_is_refused_and_creates_nothing(
    api: Any,
) -> None:
    for name in ("CPU", "cpu", "Cpu"):
        register = g.RegisterRequest(request_id=uuid4().hex, player_name=name, password=PASSWORD)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await api.Register(register, timeout=20)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "computer's name" in (refused.value.details() or "")
        assert (await login(api, name, PASSWORD))[0] == grpc.StatusCode.UNAUTHENTICATED


async def test_a_register_retried_with_another_password_is_a_reused_id(api: Any) -> None:
    """gateway.proto: reusing a request_id for a different request is INVALID_ARGUMENT.
    Found from outside: a Register retried with another password answered as a wrong
    login (UNAUTHENTICATED). The same retry with the same password still answers."""
    rng = random.Random()
    name = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(16))
    first = g.RegisterRequest(request_id=uuid4().hex, player_name=name, password=PASSWORD)
    created = await api.Register(first, timeout=20)
    again = await api.Register(first, timeout=20)
    assert again.player.player_id == created.player.player_id
    other = g.RegisterRequest(
        request_id=first.request_id, player_name=name, password=PASSWORD + "-other"
    )
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await api.Register(other, timeout=20)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "already registered" in (refused.value.details() or "")
    assert (await login(api, name, PASSWORD))[0] == grpc.StatusCode.OK


async def test_the_token_scheme_is_read_whatever_its_case(api: Any) -> None:
    """Found in review: 'authorization: bearer <token>' was refused, though a scheme's
    name is case-insensitive (RFC 9110 11.1)."""
    ann = await join(api)
    for scheme in ("bearer", "BEARER", "Bearer"):
        meta = (("authorization", f"{scheme} {ann.tokens.access_token}"),)
        reply = await api.GetPlayerStatus(g.GetPlayerStatusRequest(), metadata=meta, timeout=20)
        assert reply.status is not None
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        meta = (("authorization", f"Basic {ann.tokens.access_token}"),)
        await api.GetPlayerStatus(g.GetPlayerStatusRequest(), metadata=meta, timeout=20)
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_guesses_sent_at_once_get_the_burst_and_no_more(api: Any) -> None:
    """Found from outside: the throttle was read before the password's check and spent
    after it, so guesses sent at the same moment all passed the read: 50 at once were
    all checked, and a locked name's password was found by a burst a refill later. A
    guess now takes its token before the check; a good password gives it back."""
    rng = random.Random()
    eve = await register(api, rng)
    answers = await asyncio.gather(*(login(api, eve, f"wrong guess {n}") for n in range(50)))
    codes = [code for code, _ in answers]
    assert codes.count(grpc.StatusCode.UNAUTHENTICATED) == BURST, codes
    assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) == 50 - BURST, codes
    assert (await login(api, eve, PASSWORD))[0] == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_good_passwords_spend_nothing_of_the_throttle(api: Any) -> None:
    rng = random.Random()
    fay = await register(api, rng)
    for _ in range(BURST + 5):
        assert (await login(api, fay, PASSWORD))[0] == grpc.StatusCode.OK
    for _ in range(BURST):
        assert (await login(api, fay, "a wrong guess"))[0] == grpc.StatusCode.UNAUTHENTICATED
    assert (await login(api, fay, "one more"))[0] == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_made_up_refresh_tokens_sent_at_once_get_the_burst_and_no_more(api: Any) -> None:
    """Found from outside: 300 made-up refresh tokens sent at once were all looked up,
    the burst being 100 (the limit was read before the look-up, spent after)."""

    async def refresh(n: int) -> grpc.StatusCode:
        try:
            await api.RefreshToken(
                g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=f"made-up-{n}")
            )
        except grpc.aio.AioRpcError as error:
            return error.code()
        return grpc.StatusCode.OK

    codes = await asyncio.gather(*(refresh(n) for n in range(REFRESH_BURST + 50)))
    assert codes.count(grpc.StatusCode.UNAUTHENTICATED) == REFRESH_BURST, codes
    assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) == 50, codes
