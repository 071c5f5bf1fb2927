"""The connection to the gateway and the logged-in player: the state file of tokens
per profile, authenticated calls (an expired access token refreshed once), printing an
answer, and one line for a failed call."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from triad.v1 import gateway_pb2 as g

T = TypeVar("T")
DEV_CA = Path(".run/tls/gateway-dev.crt")


class CommandError(Exception):
    """Something the user must fix; printed without a traceback."""


ClientError = CommandError


class Caller(Protocol):
    stub: Any

    async def call(self, method: Callable[..., Awaitable[Any]], request: Message) -> Any: ...


class State:
    def __init__(self, path: Path, profile: str) -> None:
        self.path, self.profile = path, profile
        self.data: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}

    @property
    def tokens(self) -> dict[str, str]:
        found = self.data.get(self.profile)
        if not found:
            raise ClientError(f"not logged in as profile {self.profile!r}: run register or login")
        return dict(found)

    def save(self, player: g.Player, tokens: g.AuthTokens) -> None:
        self.data[self.profile] = {
            "player_id": player.player_id,
            "player_name": player.player_name,
            "access_token": tokens.access_token,
            "refresh_token": tokens.refresh_token,
        }
        self._write()

    def update(self, tokens: g.AuthTokens) -> None:
        entry = self.tokens
        entry.update(access_token=tokens.access_token, refresh_token=tokens.refresh_token)
        self.data[self.profile] = entry
        self._write()

    def forget(self) -> None:
        self.data.pop(self.profile, None)
        self._write()

    def _write(self) -> None:
        self.path.write_text(json.dumps(self.data, indent=1))
        self.path.chmod(0o600)


class Client:
    def __init__(self, stub: Any, state: State) -> None:
        self.stub, self.state = stub, state

    def metadata(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.state.tokens['access_token']}"),)

    async def call(self, method: Callable[..., Awaitable[T]], request: Message) -> T:
        """An authenticated call; an expired access token is refreshed once."""
        try:
            return await method(request, metadata=self.metadata(), timeout=15)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAUTHENTICATED or "expired" not in (
                error.details() or ""
            ):
                raise
        refreshed = await self.stub.RefreshToken(
            g.RefreshTokenRequest(
                request_id=uuid.uuid4().hex, refresh_token=self.state.tokens["refresh_token"]
            ),
            timeout=15,
        )
        self.state.update(refreshed.tokens)
        return await method(request, metadata=self.metadata(), timeout=15)


def channel(args: argparse.Namespace) -> grpc.aio.Channel:
    if args.plaintext:
        return grpc.aio.insecure_channel(args.addr)
    ca = Path(args.ca) if args.ca else (DEV_CA if DEV_CA.exists() else None)
    root = ca.read_bytes() if ca is not None else None
    return grpc.aio.secure_channel(args.addr, grpc.ssl_channel_credentials(root_certificates=root))


def password(args: argparse.Namespace) -> str:
    return args.password or os.environ.get("TRIAD_PASSWORD") or getpass.getpass("Password: ")


def out(args: argparse.Namespace, message: Message, text: str = "") -> None:
    if args.json or not text:
        print(json.dumps(json_format.MessageToDict(message), indent=None if args.json else 1))
    else:
        print(text)


def as_json(message: Message) -> str:
    return json.dumps(json_format.MessageToDict(message))


async def pages(fetch: Callable[[str], Awaitable[Any]]) -> list[Any]:
    """Every page of a listing, following next_page_token."""
    found, token = [], ""
    while True:
        page = await fetch(token)
        found.append(page)
        token = page.next_page_token
        if not token:
            return found


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
    if code == grpc.StatusCode.UNAVAILABLE and "connect" in (error.details() or ""):
        return (
            "cannot reach the gateway: is `make run` running? "
            "(--addr HOST:PORT, --ca CERT for another gateway)"
        )
    said = (error.details() or "").strip().splitlines()[0:1]
    for api, ours in API_STEPS.items():
        said = [s.replace(api, ours) for s in said]
    words = code.name.lower().replace("_", " ")
    line = f"{words}: {said[0]}" if said else words
    advice = ADVICE.get(code, "")
    said_already, _, rest = advice.partition(": ")
    if rest and said_already in line:  # 'log in again' said: only the command
        advice = rest
    if advice and advice not in line:
        line += f" ({advice})"
    return line
