"""The connection to the gateway and the logged-in player: the state file of tokens
per profile, authenticated calls (an expired access token refreshed once), printing an
answer (``failures``: one line for a failed call)."""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import getpass
import json
import os
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from triad.v1 import gateway_pb2 as g

T = TypeVar("T")
DEV_CA = Path(".run/tls/gateway-dev.crt")
"""The development certificate ``make run`` makes, relative to the checkout."""
CHECKOUT = Path(__file__).resolve().parents[1]


def dev_ca(here: Path | None = None, checkout: Path = CHECKOUT) -> Path | None:
    """The development certificate to trust when no --ca is given: the one under the
    current directory, else the one of the checkout this client runs from (so that it
    works from any directory), else None (the system's roots)."""
    for root in (here or Path.cwd(), checkout):
        if (root / DEV_CA).exists():
            return root / DEV_CA
    return None


class CommandError(Exception):
    """Something the user must fix; printed without a traceback."""


ClientError = CommandError


class Caller(Protocol):
    stub: Any

    async def call(self, method: Callable[..., Awaitable[Any]], request: Message) -> Any: ...


class Holder(Caller, Protocol):
    """A caller that also holds the player's session stream (``Client.pushes``)."""

    def pushes(self) -> AsyncIterator[g.OpenSessionResponse]: ...


REOPENED = frozenset({g.SESSION_CLOSE_REASON_TOKEN_EXPIRED, g.SESSION_CLOSE_REASON_SERVER_SHUTDOWN})
"""Why a session stream ends that the client opens again at once (gateway.proto: after
a refresh; on any gateway), the player none the wiser."""


Entry = dict[str, Any]
"""A profile's entry in the state file: its player, tokens and ``retries``."""
RETRIES = 50
"""How many ``--request-id`` targets a profile keeps for a retry (``State.remember``)."""
MATCHES = 20
"""How many of its matches' ids a profile keeps (``State.saw_match``)."""


def _read(path: Path) -> dict[str, Any]:
    """The state file's profiles ({} while there is none). One that is not what this
    client writes (found from outside: an empty file, `touch ~/.triad-client.json`,
    ended every command in a JSONDecodeError traceback) is named, with what to do."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise ClientError(
            f"{path} is not a state file of triad-client's (a JSON object of profiles): "
            "move it away (or set $TRIAD_CLIENT_STATE) and log in again"
        )
    return data


class State:
    def __init__(self, path: Path, profile: str) -> None:
        self.path, self.profile = path, profile
        self.data: dict[str, Any] = _read(path)

    @property
    def tokens(self) -> dict[str, str]:
        found = self.data.get(self.profile)
        if not found:
            raise ClientError(  # found from outside: which command, with the profile, was not said
                f"not logged in as profile {self.profile!r}: run "
                f"triad-client --profile {self.profile} login NAME (or register NAME)"
            )
        return dict(found)

    def save(self, player: g.Player, tokens: g.AuthTokens) -> None:
        self._write(
            {
                "player_id": player.player_id,
                "player_name": player.player_name,
                "access_token": tokens.access_token,
                "refresh_token": tokens.refresh_token,
            }
        )

    def update(self, tokens: g.AuthTokens) -> None:
        entry = self.tokens
        entry.update(access_token=tokens.access_token, refresh_token=tokens.refresh_token)
        self._write(entry)

    def recall(self, request_id: str) -> str | None:
        """What a command sent with this ``--request-id`` named (``remember``), if this
        profile sent it: a retry names it again though it is gone from the lists the
        start of an id is looked for in (a listing the first try bought)."""
        known: dict[str, str] = (self.data.get(self.profile) or {}).get("retries", {})
        return known.get(request_id)

    def remember(self, request_id: str, target: str) -> None:
        """Keeps what a command with this ``--request-id`` names (the latest RETRIES), in
        the entry as the file holds it now: tokens another terminal of this profile
        refreshed meanwhile are not put back to the spent ones read at start."""

        def kept(entry: dict[str, Any]) -> dict[str, Any]:
            known = {**entry.get("retries", {}), request_id: target}
            return {**entry, "retries": dict(list(known.items())[-RETRIES:])}

        self._write(kept)

    def matches(self) -> list[str]:
        """The whole ids of this profile's latest matches (``saw_match``), newest last."""
        return list((self.data.get(self.profile) or {}).get("matches", []))

    def saw_match(self, match_id: str) -> None:
        """Keeps a match's whole id, for ``view`` to find from the start the screen
        shows once it is over (the latest MATCHES)."""
        if match_id and match_id not in self.matches():
            self._write(
                lambda entry: {**entry, "matches": [*entry.get("matches", []), match_id][-MATCHES:]}
            )

    def forget(self) -> None:
        self._write(None)

    def reread(self) -> dict[str, str]:
        """This profile's tokens as the file holds them now (another client's may be newer)."""
        self.data = _read(self.path)
        return self.tokens

    def _write(self, entry: Entry | Callable[[Entry], Entry] | None) -> None:
        """This profile's entry (None: none; a function: made from the entry the file
        holds now), written over the file as it is now: other profiles' clients (other
        terminals) refresh their own tokens meanwhile, and a copy read at start would put
        back their spent ones (found from outside: two players queued from one state file
        logged each other out). Under a lock, and whole or not at all (a rename)."""
        lock = self.path.with_name(self.path.name + ".lock")
        with open(lock, "a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            current = _read(self.path)
            if callable(entry):
                entry = entry(current.get(self.profile) or self.tokens)
            if entry is None:
                current.pop(self.profile, None)
            else:
                current[self.profile] = entry
            fresh = self.path.with_name(self.path.name + ".new")
            # private from its first byte (a file made readable by all, then narrowed,
            # let the tokens be read in between); never through a planted link
            written = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            os.fchmod(written, 0o600)  # a .new left by an older client kept its mode
            with os.fdopen(written, "w") as out:
                out.write(json.dumps(current, indent=1))
            os.replace(fresh, self.path)
            self.data = current


class Client:
    def __init__(self, stub: Any, state: State) -> None:
        self.stub, self.state = stub, state
        self._refreshing = asyncio.Lock()

    def metadata(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.state.tokens['access_token']}"),)

    async def call(self, method: Callable[..., Awaitable[T]], request: Message) -> T:
        """An authenticated call; an expired access token is refreshed once."""
        used = self.state.tokens["access_token"]
        try:
            return await method(request, metadata=self.metadata(), timeout=15)
        except grpc.aio.AioRpcError as error:
            if not _expired(error):
                raise
        await self.refresh(used)
        return await method(request, metadata=self.metadata(), timeout=15)

    async def refresh(self, expired: str | None = None) -> None:
        """A new token pair for the refresh token, which rotates: presented twice, the
        second is refused. ``expired``: the access token the caller found expired; if
        another caller of this client refreshed it meanwhile, its new pair serves this one
        too (the session stream and a call find the token expired at once, a client
        started after it expired, say: found from outside, the session stream's refresh
        failed without a word, and 30 s into the battle the CPU took the seat of a player
        playing at their screen). Where another client of this profile (another terminal)
        refreshed meanwhile, the tokens it wrote are taken, not the spent one sent again
        (found from outside: 'the refresh token is not valid any more: log in again')."""
        async with self._refreshing:
            if expired is not None and self.state.tokens["access_token"] != expired:
                return
            spent = self.state.tokens["refresh_token"]
            if self.state.reread()["refresh_token"] != spent:
                return
            try:
                refreshed = await self.stub.RefreshToken(
                    g.RefreshTokenRequest(request_id=uuid.uuid4().hex, refresh_token=spent),
                    timeout=15,
                )
            except grpc.aio.AioRpcError:
                if self.state.reread()["refresh_token"] != spent:
                    return  # refreshed by another client at the same moment
                raise
            self.state.update(refreshed.tokens)

    async def pushes(self) -> AsyncIterator[g.OpenSessionResponse]:
        """The player's session stream, for as long as it is read. Ended by the server
        for a token that expired, or by a gateway that stops, it is opened again at once
        (``REOPENED``: the token refreshed first), so a screen outlives any token and the
        player never counts as away; it ends with the push that closed it for good (a
        newer session elsewhere, a logout)."""
        moving = 0  # tries to reach another gateway after one stopped
        opened = False  # a stream has been open: its breaking is the gateway's, not ours
        while True:
            used = self.state.tokens["access_token"]
            stream = self.stub.OpenSession(
                g.OpenSessionRequest(client_version=CLIENT_VERSION), metadata=self.metadata()
            )
            closed = None
            try:
                async for push in stream:
                    moving, opened = 0, True
                    if push.HasField("session_closed"):
                        closed = push.session_closed.reason
                        if closed in REOPENED:
                            break
                    self.state.saw_match(match_of(push))
                    yield push
                    if closed is not None:
                        return
            except grpc.aio.AioRpcError as error:
                if (moving or opened) and _broken(error) and moving < MOVING_TRIES:
                    # A gateway stopped (not up yet: again), or one that crashed, which
                    # says nothing: its stream just breaks (found from outside: the client
                    # quit, its ticket stayed queued, and it was paired into a match the
                    # player never saw, lost on two missed turns).
                    closed = g.SESSION_CLOSE_REASON_SERVER_SHUTDOWN
                    await asyncio.sleep(1 if moving else 0.2)
                elif not _expired(error):
                    raise
                else:
                    closed = g.SESSION_CLOSE_REASON_TOKEN_EXPIRED
            finally:
                stream.cancel()
            if closed == g.SESSION_CLOSE_REASON_SERVER_SHUTDOWN:
                moving += 1
            if closed is None:
                return  # the server ended the stream without a word: the caller decides
            if closed == g.SESSION_CLOSE_REASON_TOKEN_EXPIRED:
                await self.refresh(used)


CLIENT_VERSION = "triad-client/0.1"


def match_of(push: g.OpenSessionResponse) -> str:
    """The whole id of the match ``push`` shows, if any."""
    if push.HasField("match_view"):
        return str(push.match_view.match_id)
    return str(
        push.session_opened.active_match.match_id or push.session_opened.missed_match.match_id
    )


MOVING_TRIES = 30
"""Seconds, about, that a broken session stream is opened again before the client gives
up: within a match's disconnect grace and the 30 s before the CPU takes a battle seat."""


def _broken(error: grpc.aio.AioRpcError) -> bool:
    """The stream was cut or its gateway cannot be reached: the connection's fault, not
    the request's (UNAVAILABLE; INTERNAL, as a stream reset by a killed peer may read)."""
    return error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL)


def _expired(error: grpc.aio.AioRpcError) -> bool:
    """The access token is refused in a way a refresh mends: it expired, or it is not
    valid any more (the gateway's token secret was rotated without an overlap; found from
    outside: every terminal was told to log in again while a refresh would have served)."""
    details = error.details() or ""
    return error.code() == grpc.StatusCode.UNAUTHENTICATED and (
        "access token expired" in details or "access token is not valid" in details
    )


def channel(args: argparse.Namespace) -> grpc.aio.Channel:
    if args.plaintext:
        return grpc.aio.insecure_channel(args.addr)
    ca = Path(args.ca) if args.ca else dev_ca()
    root = ca.read_bytes() if ca is not None else None
    return grpc.aio.secure_channel(args.addr, grpc.ssl_channel_credentials(root_certificates=root))


def password(args: argparse.Namespace) -> str:
    """--password, $TRIAD_PASSWORD, else asked at the terminal; off a terminal, the first
    line of stdin (`echo ... | triad-client login ann`). None is the caller's mistake
    (found from outside: with stdin at its end the client ended in an EOFError
    traceback; an empty line asked a second time, then the same traceback)."""
    given = args.password or os.environ.get("TRIAD_PASSWORD")
    if given:
        return given
    try:
        typed = getpass.getpass("Password: ") if sys.stdin.isatty() else sys.stdin.readline()
    except KeyboardInterrupt:  # found from outside: the shell's prompt went on 'Password: '
        print(file=sys.stderr)
        raise
    if not typed.rstrip("\r\n"):
        raise ClientError("no password: type one, or give --password or $TRIAD_PASSWORD")
    return typed.rstrip("\r\n")


def as_dict(message: Message) -> dict[str, Any]:
    """``message`` as --json prints it: every field, a zero or an empty list too (found
    from outside: a score of 0 or an empty hand was left out, and a script reading the
    key failed); a message field not set, or an optional one, stays out."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def out(args: argparse.Namespace, message: Message, text: str = "") -> None:
    if args.json or not text:
        print(json.dumps(as_dict(message), indent=None if args.json else 1))
    else:
        print(text)


def as_json(message: Message) -> str:
    return json.dumps(as_dict(message))


async def pages(fetch: Callable[[str], Awaitable[Any]]) -> list[Any]:
    """Every page of a listing, following next_page_token."""
    found, token = [], ""
    while True:
        page = await fetch(token)
        found.append(page)
        token = page.next_page_token
        if not token:
            return found
