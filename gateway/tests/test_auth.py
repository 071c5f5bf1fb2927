"""Pieces of the gateway's guard: whose address a request comes from, and how wrong
passwords are counted (per account and per address)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from gateway.accounts import TokenSigner
from gateway.auth import Authenticator, client_address
from gateway.limits import NAME_CEILING, Allowance, Allowances, OpenCallLimits, RateLimiter
from services.platform.errors import ResourceExhausted


def test_the_client_address_is_the_peer_without_its_port() -> None:
    assert client_address("ipv4:203.0.113.7:51234") == "203.0.113.7"
    assert client_address("ipv6:[2001:db8::1]:443") == "2001:db8::1"
    assert client_address("unix:/tmp/socket") == "unix:/tmp/socket"
    assert client_address("") == "unknown"


def guard(limits: Allowances) -> Authenticator:
    store: Any = None  # logins never read revocations
    return Authenticator(
        TokenSigner(b"k" * 48, timedelta(minutes=15)),
        store,
        RateLimiter(1000, 1000),
        limits=OpenCallLimits(limits),
    )


NEVER = 1e-9 * 60
"""An allowance a minute that never refills within a test."""


async def test_wrong_passwords_are_counted_per_name_and_per_address() -> None:
    auth = guard(
        Allowances(failed_logins=Allowance(NEVER, 3), failed_logins_by_address=Allowance(NEVER, 5))
    )
    for _ in range(3):
        await auth.begin_login("ann", "203.0.113.7")  # a wrong guess
    with pytest.raises(ResourceExhausted, match="too many wrong passwords for 'ann'"):
        await auth.begin_login("ann", "203.0.113.7")  # that guesser waits
    # Found from outside: a stranger's guesses locked Ann out of her own account. From
    # her address she still logs in; guessers on many addresses meet the name's ceiling.
    await auth.begin_login("ann", "198.51.100.2")
    await auth.login_succeeded("ann", "198.51.100.2")  # her password: given back
    for n in range(1, NAME_CEILING):
        for _ in range(3):
            await auth.begin_login("ann", f"192.0.2.{n}")  # a wrong guess
    with pytest.raises(ResourceExhausted, match="too many wrong passwords for 'ann'"):
        await auth.begin_login("ann", "198.51.100.2")
    for name in ("bea", "cid"):  # each name within its burst: the address runs out
        await auth.begin_login(name, "203.0.113.7")  # a wrong guess
    with pytest.raises(ResourceExhausted, match="from your address"):
        await auth.begin_login("dan", "203.0.113.7")
    await auth.begin_login("dan", "198.51.100.2")  # another address guesses on


async def test_an_ipv6_host_is_limited_by_its_64_not_by_each_address_it_walks_through() -> None:
    """Found from outside: every limit was per full address, and an IPv6 host holds a
    whole /64, so a new address for each sign-up or guess started every limit afresh."""
    auth = guard(Allowances(failed_logins=Allowance(NEVER, 3), registrations=Allowance(NEVER, 3)))
    for n in range(1, 4):
        await auth.take_registration(client_address(f"ipv6:[2001:db8:0:7::{n}]:443"))
    with pytest.raises(ResourceExhausted, match="too many new accounts"):
        await auth.take_registration(client_address("ipv6:[2001:db8:0:7:ffff::9]:443"))
    await auth.take_registration("2001:db8:0:8::1")  # the next /64 is another network
    for n in range(1, 4):
        await auth.begin_login("ann", f"2001:db8:0:7::a{n}")  # a wrong guess
    with pytest.raises(ResourceExhausted, match="too many wrong passwords for 'ann'"):
        await auth.begin_login("ann", "2001:db8:0:7::b")
    # IPv4 clients of a dual-stack socket are each their own address, not one /64.
    for n in range(1, 6):
        await auth.take_registration(f"::ffff:198.51.100.{n}")
