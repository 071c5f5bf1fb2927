"""Pieces of the gateway's guard: whose address a request comes from, and how wrong
passwords are counted (per account and per address)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from gateway.accounts import TokenSigner
from gateway.auth import NAME_CEILING, Authenticator, RateLimiter, client_address
from services.platform.errors import ResourceExhausted


def test_the_client_address_is_the_peer_without_its_port() -> None:
    assert client_address("ipv4:203.0.113.7:51234") == "203.0.113.7"
    assert client_address("ipv6:[2001:db8::1]:443") == "2001:db8::1"
    assert client_address("unix:/tmp/socket") == "unix:/tmp/socket"
    assert client_address("") == "unknown"


def test_wrong_passwords_are_counted_per_name_and_per_address() -> None:
    store: Any = None  # logins never read revocations
    auth = Authenticator(
        TokenSigner(b"k" * 48, timedelta(minutes=15)),
        store,
        RateLimiter(1000, 1000),
        failed_logins=RateLimiter(1e-9, 3),
        failed_logins_by_address=RateLimiter(1e-9, 5),
    )
    for _ in range(3):
        auth.check_login_allowed("ann", "203.0.113.7")
        auth.login_failed("ann", "203.0.113.7")
    with pytest.raises(ResourceExhausted, match="too many wrong passwords for 'ann'"):
        auth.check_login_allowed("ann", "203.0.113.7")  # that guesser waits
    # Found from outside: a stranger's guesses locked Ann out of her own account. From
    # her address she still logs in; guessers on many addresses meet the name's ceiling.
    auth.check_login_allowed("ann", "198.51.100.2")
    for n in range(1, NAME_CEILING):
        for _ in range(3):
            auth.check_login_allowed("ann", f"192.0.2.{n}")
            auth.login_failed("ann", f"192.0.2.{n}")
    with pytest.raises(ResourceExhausted, match="too many wrong passwords for 'ann'"):
        auth.check_login_allowed("ann", "198.51.100.2")
    for name in ("bea", "cid"):  # each name within its burst: the address runs out
        auth.check_login_allowed(name, "203.0.113.7")
        auth.login_failed(name, "203.0.113.7")
    with pytest.raises(ResourceExhausted, match="from your address"):
        auth.check_login_allowed("dan", "203.0.113.7")
    auth.check_login_allowed("dan", "198.51.100.2")  # another address guesses on
