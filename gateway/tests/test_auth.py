"""Pieces of the gateway's guard: whose address a request comes from."""

from __future__ import annotations

from gateway.auth import client_address


def test_the_client_address_is_the_peer_without_its_port() -> None:
    assert client_address("ipv4:203.0.113.7:51234") == "203.0.113.7"
    assert client_address("ipv6:[2001:db8::1]:443") == "2001:db8::1"
    assert client_address("unix:/tmp/socket") == "unix:/tmp/socket"
    assert client_address("") == "unknown"
