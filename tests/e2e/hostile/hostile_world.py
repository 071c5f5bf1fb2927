"""The world the hostile tests attack: victims with a match, a pending trade, decks, a
queued ticket, an open table, a draft and seeds; every read made once before the
snapshot; checksums once they settle.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any
from uuid import uuid4

from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD
from devtools.stack import checksums
from tests.e2e.hostile.hostile_plans import PLANS, RANKED, SERVICE
from tests.e2e.hostile.hostile_values import Ids


class Player:
    def __init__(self, api: Any, reply: Any, request_id: str) -> None:
        self.api = api
        self.id: str = reply.player.player_id
        self.name: str = reply.player.player_name
        self.tokens: g.AuthTokens = reply.tokens
        self.register_request_id = request_id

    @property
    def meta(self) -> tuple[tuple[str, str]]:
        return (("authorization", f"Bearer {self.tokens.access_token}"),)

    def __getattr__(self, rpc: str) -> Callable[[Message], Awaitable[Any]]:
        method = getattr(self.api, rpc)
        return lambda request: method(request, metadata=self.meta, timeout=20)


async def join(api: Any) -> Player:
    request_id = uuid4().hex
    reply = await api.Register(
        g.RegisterRequest(
            request_id=request_id, player_name=f"h{uuid4().hex[:12]}", password=PASSWORD
        )
    )
    return Player(api, reply, request_id)


async def until(probe: Callable[[], Awaitable[Any]], ok: Callable[[Any], bool], what: str) -> Any:
    deadline = time.monotonic() + 30
    while not ok(found := await probe()):
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.1)
    return found


async def paired(a: Player, b: Player, mode: int, deck: pb.DeckChoice | None) -> str:
    """Queue both, ``a`` with ``deck`` and ``b`` with Random (no deck for Draft); the
    match (or draft) id they are paired into."""
    for p, choice in ((a, deck), (b, None if deck is None else RANDOM)):
        request = g.EnqueueRequest(request_id=uuid4().hex, mode=mode)  # type: ignore[arg-type]
        if choice is not None:
            request.deck.CopyFrom(choice)
        await p.Enqueue(request)
    status = await until(
        lambda: a.GetPlayerStatus(g.GetPlayerStatusRequest()),
        lambda r: bool(r.status.active_match_id or r.status.draft_id),
        "the pair is paired",
    )
    return str(status.status.active_match_id or status.status.draft_id)


RANDOM = pb.DeckChoice(random=pb.RandomDeck())


async def world(api: Any) -> tuple[Player, Ids, dict[str, Any]]:
    """Victims with a match, a pending trade, decks, a queued ticket, an open table and a
    draft; an attacker seated in a match of their own, with a deck, a rotated client
    seed, a bought booster, a used refresh token and a revoked access token."""
    v = [await join(api) for _ in range(9)]
    attacker, partner = await join(api), await join(api)
    ids = Ids(names=[p.name for p in v])

    copies = {
        p.id: [e.copy.copy_id for e in (await p.ListCollection(g.ListCollectionRequest())).entries]
        for p in v
    }
    deck = (
        await v[0].SaveDeck(
            g.SaveDeckRequest(request_id=uuid4().hex, name="Main", copy_ids=copies[v[0].id][:5])
        )
    ).deck
    ids.foreign["deck"] = [deck.deck_id]
    ids.foreign["copy"] = [c for p in v for c in copies[p.id]]
    ids.foreign["seed"] = [
        (await p.GetSeedCommitment(g.GetSeedCommitmentRequest())).commitment.seed_id for p in v[:3]
    ]

    # the attacker's own history: successful writes to replay, spent and revoked tokens
    own_copies = [
        e.copy.copy_id for e in (await attacker.ListCollection(g.ListCollectionRequest())).entries
    ]
    ids.own["copy"] = own_copies
    replays: dict[str, Message] = {
        "SetClientSeed": g.SetClientSeedRequest(request_id=uuid4().hex, client_seed="mine"),
    }
    await attacker.SetClientSeed(replays["SetClientSeed"])
    commitment = (await attacker.GetSeedCommitment(g.GetSeedCommitmentRequest())).commitment
    replays["OpenBooster"] = g.OpenBoosterRequest(
        request_id=uuid4().hex, expected_server_seed_hash=commitment.server_seed_hash
    )
    bought = await attacker.OpenBooster(replays["OpenBooster"])
    replays["SaveDeck"] = g.SaveDeckRequest(
        request_id=uuid4().hex, name="Mine", copy_ids=own_copies[5:10]
    )
    own_deck = (await attacker.SaveDeck(replays["SaveDeck"])).deck
    ids.own["deck"] = [own_deck.deck_id]
    ids.own["seed"] = [commitment.seed_id]
    ids.own["copy"] += [c.copy_id for c in bought.draw.copies]
    # a running Closed match between two victims, and a finished one with its trade open
    running = await paired(v[0], v[1], pb.MODE_RANKED, pb.DeckChoice(deck_id=deck.deck_id))
    finished = await paired(v[2], v[3], pb.MODE_RANKED, RANDOM)
    await v[2].Forfeit(g.ForfeitRequest(request_id=uuid4().hex, match_id=finished))
    trade = (
        await until(
            lambda: v[3].GetPendingTrade(g.GetPendingTradeRequest()),
            lambda r: r.HasField("trade") and len(r.trade.offered_copies) == 5,
            "the winner's trade opens",
        )
    ).trade
    ids.foreign["trade"] = [trade.trade_id]
    hand = (await v[0].GetMatchView(g.GetMatchViewRequest(match_id=running))).view.my_hand
    ids.foreign["card"] = [c.card.card_id for c in hand]
    # the attacker's own running match: queues and tables refuse them from now on
    own_match = await paired(attacker, partner, pb.MODE_RANKED, RANDOM)
    ids.foreign["match"] = [running, finished]
    ids.own["match"] = [own_match]
    # a draft between two victims, with cards revealed
    draft = await paired(v[4], v[5], pb.MODE_DRAFT, None)
    ids.foreign["draft"] = [draft]
    revealed = await v[4].RevealDraftCards(
        g.RevealDraftCardsRequest(request_id=uuid4().hex, draft_id=draft, booster_index=0)
    )
    ids.foreign["draft_card"] = [
        s.revealed.card_id
        for b in revealed.draft.boosters
        for s in b.slots
        if s.HasField("revealed")
    ]
    # a victim waiting alone in the Ranked queue, and one hosting an open table
    ticket = (
        await v[6].Enqueue(
            g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_RANKED, deck=RANDOM)
        )
    ).ticket
    ids.foreign["ticket"] = [ticket.ticket_id]
    table = (
        await v[7].CreateTable(
            g.CreateTableRequest(
                request_id=uuid4().hex,
                settings=pb.TableSettings(
                    rules=pb.Rules(visibility=pb.VISIBILITY_THREE_OPEN, same=True), random_deck=True
                ),
            )
        )
    ).table
    ids.foreign["table"] = [table.table_id]
    catalog = await attacker.ListCatalog(g.ListCatalogRequest(page_size=5))
    ids.foreign["character"] = [c.character_id for c in catalog.characters]

    spare = await api.Login(
        g.LoginRequest(request_id=uuid4().hex, player_name=attacker.name, password=PASSWORD)
    )
    rotated = await api.RefreshToken(
        g.RefreshTokenRequest(request_id=uuid4().hex, refresh_token=spare.tokens.refresh_token)
    )
    ids.used_refresh = [spare.tokens.refresh_token]
    await api.Logout(
        g.LogoutRequest(request_id=uuid4().hex),
        metadata=(("authorization", f"Bearer {rotated.tokens.access_token}"),),
    )
    return (
        attacker,
        ids,
        {"replays": replays, "revoked": [rotated.tokens.access_token], "victim": v[0].id},
    )


async def read_everything_once(attacker: Player, ids: Ids) -> None:
    """Every read, well formed, before the snapshot: whatever a first read creates
    lazily exists already."""
    for rpc, plan in PLANS.items():
        if plan.kind != "read":
            continue
        request = GetMessageClass(SERVICE.methods_by_name[rpc].input_type)()
        if "ladder" in request.DESCRIPTOR.fields_by_name:
            request.ladder.CopyFrom(RANKED)  # type: ignore[attr-defined]
        if "match_id" in request.DESCRIPTOR.fields_by_name:
            request.match_id = ids.own["match"][0]  # type: ignore[attr-defined]
        if "copy_id" in request.DESCRIPTOR.fields_by_name:
            request.copy_id = ids.own["copy"][0]  # type: ignore[attr-defined]
        if "deck_id" in request.DESCRIPTOR.fields_by_name:
            request.deck_id = ids.own["deck"][0]  # type: ignore[attr-defined]
        if rpc in ("GetDraft", "GetBattleView"):
            continue  # the attacker has none; reading another's is in the attack
        await getattr(attacker, rpc)(request)


async def settled(database_url: str, schemas: list[str]) -> dict[str, str]:
    """Checksums once two readings a second apart agree (relays and consumers done)."""
    before = await checksums(database_url, schemas)
    for _ in range(30):
        await asyncio.sleep(1.0)
        now = await checksums(database_url, schemas)
        if now == before:
            return now
        before = now
    changing = [t for t in now if now[t] != before.get(t)]
    raise AssertionError(f"the tables never settle: {changing}")
