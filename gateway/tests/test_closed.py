"""TRIAD_GATEWAY_CLOSED_METHODS read at start: method names of the public API, or a
clear refusal naming what is not one."""

from __future__ import annotations

import pytest

from gateway.config import GatewaySettings
from services.platform.settings import SettingsError

BASE = {
    "TRIAD_DATABASE_URL": "postgresql://u@127.0.0.1:5432/db",
    "TRIAD_TOKEN_SECRET": "s" * 40,
    "TRIAD_GATEWAY_PLAINTEXT": "1",
}


def test_closed_methods_are_names_of_the_public_api() -> None:
    assert GatewaySettings.from_env(BASE).closed_methods == frozenset()
    closing = {**BASE, "TRIAD_GATEWAY_CLOSED_METHODS": " BuyListing,CreateListing ,"}
    closed = GatewaySettings.from_env(closing).closed_methods
    assert closed == {"BuyListing", "CreateListing"}
    for bad in ("buylisting", "/triad.v1.TriadGateway/BuyListing", "BuyListing,Auction"):
        with pytest.raises(SettingsError, match="TRIAD_GATEWAY_CLOSED_METHODS names no method"):
            GatewaySettings.from_env({**BASE, "TRIAD_GATEWAY_CLOSED_METHODS": bad})
