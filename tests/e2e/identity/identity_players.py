"""Players for the identity tests: registered through the public API, each recording every
message they receive (``Heard``) with the match version it shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

from google.protobuf.message import Message
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD


@dataclass
class Heard:
    """One message a player received, and the match version it shows (None: no view)."""

    what: str
    version: int | None
    data: bytes


@dataclass
class Player:
    api: Any
    id: str
    name: str
    tokens: g.AuthTokens
    heard: list[Heard] = field(default_factory=list)

    @property
    def meta(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.tokens.access_token}"),)

    async def ask(self, rpc: str, request: Message) -> Any:
        """Call as this player and record the answer."""
        reply = await getattr(self.api, rpc)(request, metadata=self.meta, timeout=20)
        view = getattr(reply, "view", None)
        version = view.version if view is not None and view.match_id else None
        self.heard.append(Heard(rpc, version, reply.SerializeToString()))
        return reply

    async def listen(self) -> None:
        """Record every push of a session stream until it ends."""
        async for push in self.api.OpenSession(
            g.OpenSessionRequest(client_version="identity-test"), metadata=self.meta
        ):
            kind = push.WhichOneof("push")
            version = None
            if kind == "match_view":
                version = push.match_view.version
            elif kind == "session_opened" and push.session_opened.HasField("active_match"):
                version = push.session_opened.active_match.version
            self.heard.append(Heard(f"push {kind}", version, push.SerializeToString()))
            if kind == "session_closed":
                return


async def join(api: Any) -> Player:
    reply = await api.Register(
        g.RegisterRequest(
            request_id=uuid4().hex, player_name=f"i{uuid4().hex[:12]}", password=PASSWORD
        )
    )
    return Player(api, reply.player.player_id, reply.player.player_name, reply.tokens)
