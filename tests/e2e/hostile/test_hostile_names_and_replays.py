"""Hostile values the generated attack (test_hostile_requests.py) cannot reach, through
the TLS gateway with every service a process on real PostgreSQL and NATS: it sends only
other players' copies to SaveDeck, so a deck name is never read; it has no battle, so no
battle id or practice battle is ever real; it replays only three writes.

- A deck name is what a reader sees: control characters (terminal escapes), zero-width
  and direction-override characters, line breaks and whitespace alone are refused, and
  no deck is saved; any visible text of any script, emoji included, is kept as typed.
- A request id reused for a different request is INVALID_ARGUMENT on every write whose
  first run succeeded (one per kind of thing: match, table, queue, deck, listing,
  battle), and the first result stands.
- Another player's listing or battle: refused, and it stays as it was.
"""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import grpc
import pytest
from google.protobuf.message import Message
from triad.v1 import gateway_pb2 as g

from devtools.stack import Stack
from tests.e2e.sessions import Player, join

pytestmark = pytest.mark.integration


REUSED = "was already used for a different request"


async def refusal(player: Player, rpc: str, request: Message) -> tuple[grpc.StatusCode, str]:
    try:
        await player.call(rpc, request)
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    raise AssertionError(f"{rpc} was accepted: {request}")


async def copies(player: Player) -> list[str]:
    reply = await player.call("ListCollection", g.ListCollectionRequest(page_size=200))
    return [e.copy.copy_id for e in reply.entries]


@pytest.fixture
async def api(backend: Stack, channel: grpc.aio.Channel) -> Any:
    return backend.api(channel)


UNSEEN = {
    "\x1b[31mred": "U+001B",  # a terminal escape
    "bell\x07": "U+0007",
    "del\x7f": "U+007F",
    "\u200b": "U+200B",  # ZERO WIDTH SPACE: a name that shows nothing
    "evil\u202emoc.exe": "U+202E",  # RIGHT-TO-LEFT OVERRIDE: shows backwards
    "\ufeffbom": "U+FEFF",
    "two\u2028lines": "U+2028",
    "private\ue000": "U+E000",
}


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467 family"
"""An emoji sequence joined by ZERO WIDTH JOINERs: joiners are kept where text needs them."""


async def test_a_deck_name_a_reader_cannot_see_is_refused_and_saves_nothing(api: Any) -> None:
    ann = await join(api)
    deck = (await copies(ann))[:5]
    for name, code in UNSEEN.items():
        request = g.SaveDeckRequest(request_id=uuid4().hex, name=name, copy_ids=deck)
        refused = await refusal(ann, "SaveDeck", request)
        assert refused[0] == grpc.StatusCode.INVALID_ARGUMENT, (name, refused)
        assert "control or invisible characters" in refused[1] and code in refused[1], refused
    for name in ("", "   ", "\t\n", "\u3000", "\u200d", "n" * 41):
        request = g.SaveDeckRequest(request_id=uuid4().hex, name=name, copy_ids=deck)
        refused = await refusal(ann, "SaveDeck", request)
        assert refused[0] == grpc.StatusCode.INVALID_ARGUMENT, (name, refused)
    assert not (await ann.call("ListDecks", g.ListDecksRequest())).decks
    kept = {
        "  Main  ": "Main",
        "Ωmega deck": "Ωmega deck",
        "火の デッキ": "火の デッキ",
        FAMILY: FAMILY,
        "n" * 40: "n" * 40,
    }
    for name, shown in kept.items():
        request = g.SaveDeckRequest(request_id=uuid4().hex, name=name, copy_ids=deck)
        saved = await ann.call("SaveDeck", request)
        assert saved.deck.name == shown
    listed = (await ann.call("ListDecks", g.ListDecksRequest())).decks
    assert sorted(d.name for d in listed) == sorted(kept.values())
