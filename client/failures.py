"""One line for a person when a call to the gateway fails: what the gateway said, and
what to do about it (``describe``)."""

from __future__ import annotations

import argparse
import re
from urllib.parse import unquote

import grpc

from services.platform.endpoints import default_address

MAKE_RUN = default_address("gateway")
"""Where ``make run``'s gateway listens: the client's default ``--addr``."""

ADVICE = {
    grpc.StatusCode.UNAVAILABLE: "the gateway cannot be reached (is `make run` running? "
    "--addr, --ca); retrying is safe",
    grpc.StatusCode.UNAUTHENTICATED: "log in again: triad-client login NAME",
    grpc.StatusCode.DEADLINE_EXCEEDED: "the gateway did not answer in time; retrying is safe",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "slow down and retry in a moment",
    grpc.StatusCode.NOT_FOUND: "",
    grpc.StatusCode.PERMISSION_DENIED: "",
}


API_STEPS = {
    "open one yourself with CreateTable, or try Find Game again soon": (
        "triad-client host opens one, or try triad-client find again soon"
    ),
}
"""The next steps the server gives API users (RPC names), as the client's commands."""


def describe(error: grpc.aio.AioRpcError) -> str:
    """One line for a failed call: what the gateway said, and what to do about it."""
    code = error.code()
    if code == grpc.StatusCode.UNAVAILABLE and "CERTIFICATE_VERIFY_FAILED" in (
        error.details() or ""
    ):
        return (
            "the gateway's certificate is not trusted: pass --ca CERT (make run's is "
            ".run/tls/gateway-dev.crt in the checkout)"
        )
    if code == grpc.StatusCode.UNAVAILABLE and "security handshaker" in (error.details() or ""):
        # found from outside: a --ca that is no certificate was told 'is make run running?'
        return (
            "--ca holds no certificate to trust: give a PEM file (make run's is "
            ".run/tls/gateway-dev.crt in the checkout)"
        )
    if "the target uri is not valid" in (error.details() or ""):
        return not_an_address((error.details() or "").partition("channel to '")[2].split("'")[0])
    if code == grpc.StatusCode.UNAVAILABLE and "errors resolving" in (error.details() or ""):
        # found from outside: a mistyped host printed gRPC's resolver dump
        host = (error.details() or "").partition("errors resolving ")[2].partition(": [")[0]
        if not host.strip():
            return not_an_address(host)
        return f"no such host: {host}: check --addr HOST:PORT (make run's is {MAKE_RUN})"
    if code == grpc.StatusCode.UNAVAILABLE and "connect" in (error.details() or ""):
        return unreached(error.details() or "")
    said = (error.details() or "").strip().splitlines()[0:1]
    for api, ours in API_STEPS.items():
        said = [s.replace(api, ours) for s in said]
    words = code.name.lower().replace("_", " ")
    line = f"{words}: {said[0]}" if said else words
    advice = ADVICE.get(code, "")
    if "wrong password" in line:  # found from outside: login itself was told to log in again
        advice = "check both; triad-client register NAME makes a new player"
    said_already, _, rest = advice.partition(": ")
    if rest and said_already in line:  # 'log in again' said: only the command
        advice = rest
    if advice and advice not in line:
        line += f" ({advice})"
    return line


def not_an_address(target: str) -> str:
    """An --addr that gRPC takes for no target at all, or a blank one (found from
    outside: `--addr ''` was told "unknown: Failed to create channel to '':the target
    uri is not valid: dns:///", and `--addr ' '` 'no such host:  :'). An empty or blank
    $TRIAD_GATEWAY never comes here: it is taken as unset (``main.parser``)."""
    if not target.strip():
        return f"no gateway address: --addr is empty: give HOST:PORT (make run's is {MAKE_RUN})"
    return f"{target!r} is no gateway address: give --addr HOST:PORT (make run's is {MAKE_RUN})"


NO_HAND = "hold no legal deck of"
"""The collection's refusal of a Random hand the player's free copies cannot make."""


def advised(error: grpc.aio.AioRpcError, args: argparse.Namespace) -> str:
    """``describe``'s line, with the option of the command typed that would have done:
    a practice or table on a 4x4 or 5x5 board refused for want of copies is told that
    --house-hands deals both hands from the catalog (RULES.md 11; found from outside:
    'a booster brings more' was all a new player's `practice --board 5x5` was told). A
    3x3 board deals no house hands: its refusal is left as it is."""
    line = describe(error)
    chosen = args.command in ("practice", "host", "challenge") and not args.house_hands
    if chosen and args.board != "3x3" and NO_HAND in (error.details() or ""):
        line += "; or --house-hands deals both hands from the catalog"
    return line


NOT_THE_GATEWAY = ("Socket closed", "ALPN", "WRONG_VERSION_NUMBER", "handshake failed")
"""How a connection ends when what answers at the address is not the gateway as the
client spoke to it: plain text to its TLS port, TLS to a web or metrics port."""


def unreached(details: str) -> str:
    """A connection that failed, with the address tried (found from outside: --addr at
    the web port, or --plaintext to the gateway, were told 'is `make run` running?'
    while it ran, and no line named the address)."""
    where = re.search(r"ipv[46]:(\S+?):? ", details)
    at = f" at {unquote(where.group(1))}" if where else ""
    if any(said in details for said in NOT_THE_GATEWAY):
        return (
            f"the client cannot speak with what answers{at}: make run's gateway is "
            f"--addr {MAKE_RUN}, over TLS (no --plaintext)"
        )
    return (
        f"cannot reach the gateway{at}: is `make run` running? "
        "(--addr HOST:PORT, --ca CERT for another gateway)"
    )
