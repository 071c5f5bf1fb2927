"""Hostile input against every public RPC (issue 10, item 3), through the TLS gateway with
every service a process on real PostgreSQL and NATS.

The RPCs are enumerated from the service descriptor. Each has a plan (``PLANS``) saying
whether it only reads, and how a request to it is made so that the contract refuses it
whatever else it carries; a new RPC without a plan fails the test. Requests are then
generated field by field from the descriptor: empty, huge, control-character and
injection-looking strings, extreme and negative numbers, unknown enum values, random
bytes, the ids of other players' matches, trades, decks, copies, tickets, tables,
drafts and seeds; forged, altered, expired, revoked and missing tokens; replays of
request ids; messages over the size limit.

Honesty of the "nothing changed" check: every request sent is, by construction, one of

- a read (the RPC changes nothing whatever it is sent; read once before the snapshot, so
  nothing is created lazily on the first read);
- a request the contract refuses: a bad token, an oversized or malformed message, a bad
  request id, an id of someone else's thing, an invalid value where any value of the
  field would otherwise do (a client seed, a stale seed hash), or a queue or table call
  by a player who is seated in a running match;
- an identical replay of the attacker's own earlier successful write, which returns the
  first answer and acts no second time.

So every table of every service schema must read the same after the attack: the md5 of
each table's ordered rows is compared. Timers that would change state on their own
(turns, disconnects, trade choice, drafts) are set to ten minutes.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import random
import re
import string
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD, SECRET
from devtools.stack import Stack, checksums, stack
from gateway.accounts import TokenSigner

pytestmark = pytest.mark.integration

SERVICE = g.DESCRIPTOR.services_by_name["TriadGateway"]
PER_RPC = 260
"""Generated requests per RPC; with the token, replay and size cases over 10,000."""
CONCURRENCY = 12
LONG = "600"  # seconds: no timer fires during the test
RANKED = pb.LadderKey(ladder=pb.LADDER_RANKED, season=0)

REFUSALS = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}
"""What a hostile request may get. Not UNAVAILABLE either: every service is up, and the
gateway reports an internal fault of a service as UNAVAILABLE."""
LEAKS = re.compile(
    r"Traceback|File \"|\.py\b|site-packages|/work/|asyncpg|psycopg|SELECT |INSERT |UPDATE |"
    r"DELETE FROM|syntax error|violates|relation \"|Exception|Error\(",
)


# ---- what each RPC is --------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """How to attack one RPC. ``kind``: "read" (changes nothing whatever it is sent),
    "write" (authenticated, must be refused), "open" (no token; must be refused),
    "stream" (the session stream: opening one is a write)."""

    kind: str
    poison: Callable[[Message, random.Random, Ids], None] | None = None
    """Makes a generated write refused whatever its other fields (beyond the foreign ids
    the generator uses anyway)."""
    weight: float = 1.0
    """Share of PER_RPC: the password RPCs cost a deliberately slow hash each."""


@dataclass
class Ids:
    """Other players' things, and the attacker's own (used for reads and replays only)."""

    foreign: dict[str, list[str]] = field(default_factory=dict)
    own: dict[str, list[str]] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    used_refresh: list[str] = field(default_factory=list)


def bad_request_id(rng: random.Random) -> str:
    return rng.choice(["", "r" * 65, "r" * rng.randint(66, 5000)])


def poison_request_id(request: Message, rng: random.Random, ids: Ids) -> None:
    request.request_id = bad_request_id(rng)  # type: ignore[attr-defined]


def poison_client_seed(request: Message, rng: random.Random, ids: Ids) -> None:
    seed = rng.choice(["", "s" * 65, "\x01seed", "caf\u00e9", "tab\there", "x" * 10_000])
    request.client_seed = seed  # type: ignore[attr-defined]


def poison_seed_hash(request: Message, rng: random.Random, ids: Ids) -> None:
    request.expected_server_seed_hash = rng.choice(  # type: ignore[attr-defined]
        [hashlib.sha256(rng.randbytes(8)).hexdigest(), "0" * 64, "zz", "\x00" * 3]
    )


def poison_register(request: Message, rng: random.Random, ids: Ids) -> None:
    choice = rng.randrange(4)
    if choice == 0:  # an invalid name
        request.player_name = rng.choice(  # type: ignore[attr-defined]
            ["", "ab", "n" * 21, "[BOT]Evil", "white space", "caf\u00e9s", "a\x00b", "../x"]
        )
    elif choice == 1:  # a password too short or too long
        request.player_name = f"h{uuid4().hex[:12]}"  # type: ignore[attr-defined]
        request.password = rng.choice(["", "short", "p" * 201])  # type: ignore[attr-defined]
    elif choice == 2:  # a taken name, in another case
        request.player_name = rng.choice(ids.names).swapcase()  # type: ignore[attr-defined]
        request.password = PASSWORD  # type: ignore[attr-defined]
    else:  # a bad request id
        poison_request_id(request, rng, ids)


def poison_login(request: Message, rng: random.Random, ids: Ids) -> None:
    choice = rng.randrange(4)
    if choice == 0:
        request.player_name = ""  # type: ignore[attr-defined]
    elif choice == 1:
        request.password = ""  # type: ignore[attr-defined]
    elif choice == 2:  # a victim's name with a wrong password
        request.player_name = rng.choice(ids.names)  # type: ignore[attr-defined]
        request.password = "not the password " + rng.choice("abc")  # type: ignore[attr-defined]
    else:
        poison_request_id(request, rng, ids)


def poison_refresh(request: Message, rng: random.Random, ids: Ids) -> None:
    if rng.random() < 0.5:
        request.refresh_token = rng.choice(ids.used_refresh)  # type: ignore[attr-defined]
        request.request_id = uuid4().hex  # type: ignore[attr-defined]


def in_a_match(request: Message, rng: random.Random, ids: Ids) -> None:
    """Nothing to add: the attacker holds a seat in a running match, and the contract
    refuses queueing, practice and tables then (FAILED_PRECONDITION) whatever the rest."""


def unknown_characters(request: Message, rng: random.Random, ids: Ids) -> None:
    """A team of characters the roster does not have: refused whatever the rest."""
    request.characters[:] = [hostile_string(rng) + "?" for _ in range(3)]  # type: ignore[attr-defined]


PLANS: dict[str, Plan] = {
    "Register": Plan("open", poison_register, 0.25),
    "Login": Plan("open", poison_login, 0.25),
    "RefreshToken": Plan("open", poison_refresh),
    "Logout": Plan("write", poison_request_id),
    "GetPlayerStatus": Plan("read"),
    "ListCatalog": Plan("read"),
    "ListCollection": Plan("read"),
    "GetCopy": Plan("read"),
    "SaveDeck": Plan("write"),  # copies and decks only ever someone else's
    "ListDecks": Plan("read"),
    "DeleteDeck": Plan("write"),
    "ValidateDeck": Plan("read"),
    "GetBalance": Plan("read"),
    "GetBoosterOdds": Plan("read"),
    "GetSeedCommitment": Plan("read"),
    "SetClientSeed": Plan("write", poison_client_seed),
    "OpenBooster": Plan("write", poison_seed_hash),
    "ListBoosterDraws": Plan("read"),
    "ListServerSeeds": Plan("read"),
    "Enqueue": Plan("write", in_a_match),
    "CancelTicket": Plan("write"),
    "StartPractice": Plan("write", in_a_match),
    "SwitchToPractice": Plan("write"),
    "CreateTable": Plan("write", in_a_match),
    "ListTables": Plan("read"),
    "JoinTable": Plan("write", in_a_match),
    "CloseTable": Plan("write"),
    "FindGame": Plan("write", in_a_match),
    "DeclineChallenge": Plan("write"),  # tables only ever someone else's, none to the attacker
    "GetActiveMatch": Plan("read"),
    "GetMatchView": Plan("read"),
    "PlaceCard": Plan("write"),
    "Forfeit": Plan("write"),
    "GetDraft": Plan("read"),
    "RevealDraftCards": Plan("write"),
    "PickDraftCard": Plan("write"),
    "GetPendingTrade": Plan("read"),
    "ChooseTradeCard": Plan("write"),
    "GetRating": Plan("read"),
    "ListRatingHistory": Plan("read"),
    "GetLeaderboard": Plan("read"),
    # The Auction House: copies only ever someone else's, listing ids never a real one
    # (a real open listing would be bought), so every write is refused.
    "CreateListing": Plan("write"),
    "CancelListing": Plan("write"),
    "BuyListing": Plan("write"),
    "ListAuction": Plan("read"),
    "ListMyListings": Plan("read"),
    "OpenSession": Plan("stream"),
    # Skirmish: the attacker has no battle, so every battle id is someone else's or none.
    "StartPracticeBattle": Plan("write", unknown_characters),
    "GetActiveBattle": Plan("read"),
    "GetBattleView": Plan("read"),
    "SetFormation": Plan("write"),
    "CommitPlan": Plan("write"),
    "GiveUp": Plan("write"),
}

ID_FIELDS = {
    "match_id": "match",
    "trade_id": "trade",
    "deck_id": "deck",
    "copy_id": "copy",
    "copy_ids": "copy",
    "ticket_id": "ticket",
    "table_id": "table",
    "draft_id": "draft",
    "seed_id": "seed",
    "card_id": "card",
    "draft_card_id": "draft_card",
    "character_ids": "character",
}
NAME_FIELDS = {"player_name", "challenged_player_name"}


# ---- generating requests -----------------------------------------------------------


def hostile_string(rng: random.Random) -> str:
    return rng.choice(
        [
            "",
            " ",
            "x" * rng.randint(1, 64),
            "y" * rng.randint(65, 300),
            "z" * rng.randint(10_000, 200_000),
            str(uuid4()),
            uuid4().hex,
            "\x00",
            "nul\x00inside",
            "\u202e\u0000\uffff",
            "\U0001f4a5" * rng.randint(1, 50),
            "' OR '1'='1",
            "%s%s%s%n",
            "../../../etc/passwd",
            "${jndi:ldap://x}",
            "-1",
            "9" * 40,
            "".join(rng.choices(string.printable, k=rng.randint(1, 100))),
        ]
    )


def hostile_int(rng: random.Random, bits: int) -> int:
    top = (1 << (bits - 1)) - 1
    return rng.choice([0, -1, 1, 2, 3, 4, 8, 9, 10, 100, 101, 200, 201, top, -top - 1, -5])


def value_for(fd: FieldDescriptor, rng: random.Random, ids: Ids, own: bool, depth: int) -> Any:
    t = fd.type
    if t == FieldDescriptor.TYPE_STRING:
        kind = ID_FIELDS.get(fd.name)
        if kind is not None and rng.random() < 0.6:
            pool = ids.foreign.get(kind, []) + (ids.own.get(kind, []) if own else [])
            if pool:
                return rng.choice(pool)
        if fd.name in NAME_FIELDS and rng.random() < 0.5:
            return rng.choice(ids.names)
        if fd.name == "request_id" and rng.random() < 0.8:
            return uuid4().hex  # well formed, so the rest reaches the services
        return hostile_string(rng)
    if t == FieldDescriptor.TYPE_BYTES:
        return rng.randbytes(rng.randint(0, 64))
    if t == FieldDescriptor.TYPE_BOOL:
        return rng.random() < 0.5
    if t == FieldDescriptor.TYPE_ENUM:
        known = [v.number for v in fd.enum_type.values]
        return rng.choice([*known, 999, -7, 1 << 30])
    if t in (
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SFIXED32,
    ):
        return hostile_int(rng, 32)
    if t in (
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_SFIXED64,
    ):
        return hostile_int(rng, 64)
    if t in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32):
        return rng.choice([0, 1, (1 << 32) - 1])
    if t in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
        return rng.choice([0, 1, (1 << 64) - 1])
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return rng.choice([0.0, -1.0, 1e308, float("nan"), float("inf")])
    raise AssertionError(f"no generator for field {fd.full_name} of type {t}")


def fill(message: Message, rng: random.Random, ids: Ids, own: bool, depth: int = 0) -> Message:
    """Set a random subset of the fields of ``message`` to hostile values, recursively."""
    chosen_oneofs = {
        o.name: rng.choice([None, *[f.name for f in o.fields]])
        for o in message.DESCRIPTOR.oneofs
        if not o.name.startswith("_")  # proto3 optional fields are synthetic oneofs
    }
    for fd in message.DESCRIPTOR.fields:
        oneof = fd.containing_oneof
        if oneof is not None and not oneof.name.startswith("_"):
            if chosen_oneofs[oneof.name] != fd.name:
                continue
        elif rng.random() < 0.3:
            continue
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            if depth > 3:
                continue
            target = getattr(message, fd.name)
            if fd.is_repeated:
                if fd.message_type.GetOptions().map_entry:
                    continue
                for _ in range(rng.choice([0, 1, 2, 5])):
                    fill(target.add(), rng, ids, own, depth + 1)
            else:
                target.SetInParent()
                fill(target, rng, ids, own, depth + 1)
        elif fd.is_repeated:
            count = rng.choice([0, 1, 2, 4, 5, 6, 300])
            if count == 300 and fd.type != FieldDescriptor.TYPE_STRING and rng.random() < 0.3:
                count = 150_000  # under the size limit, but a long list to echo back
            getattr(message, fd.name).extend(
                value_for(fd, rng, ids, own, depth) for _ in range(count)
            )
        else:
            setattr(message, fd.name, value_for(fd, rng, ids, own, depth))
    return message


# ---- tokens ------------------------------------------------------------------------


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def bad_tokens(good: str, attacker_id: str, victim_id: str, revoked: list[str]) -> list[str]:
    """Authorization header values that must all be UNAUTHENTICATED."""
    version, body, signature = good.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    now = datetime.now(UTC)

    def signed(payload: dict[str, Any], key: bytes = SECRET.encode(), ver: str = "v1") -> str:
        text = f"{ver}.{b64(json.dumps(payload).encode())}"
        return f"{text}.{b64(hmac.new(key, text.encode(), hashlib.sha256).digest())}"

    as_victim = {**claims, "sub": victim_id}
    never = {**claims, "exp": int((now + timedelta(days=3650)).timestamp())}
    wrong_key = TokenSigner(b"k" * 48).issue(attacker_id, claims["name"], now).token
    expired = (
        TokenSigner(SECRET.encode()).issue(attacker_id, claims["name"], now - timedelta(hours=2))
    ).token
    jwt_none = ".".join(
        [
            b64(json.dumps({"alg": "none", "typ": "JWT"}).encode()),
            b64(json.dumps(as_victim).encode()),
            "",
        ]
    )
    tokens = [
        "",
        "garbage",
        "a.b.c",
        good[:-3] + ("AAA" if not good.endswith("AAA") else "BBB"),
        f"{version}.{b64(json.dumps(as_victim).encode())}.{signature}",  # altered claims
        f"{version}.{b64(json.dumps(never).encode())}.{signature}",  # extended expiry
        f"{version}.{body}.",  # no signature
        f"{version}.{body}",  # two parts
        f"{version}.{body}.{signature}.{signature}",  # four parts
        f"v0.{body}.{signature}",  # another version
        f"none.{body}.{signature}",
        signed(as_victim, key=b""),  # signed with an empty key
        signed(as_victim, ver="v2"),
        signed({k: v for k, v in as_victim.items() if k != "exp"}),  # right key, no expiry
        signed({**as_victim, "exp": "soon"}),
        wrong_key,
        expired,
        jwt_none,
        b64(bytes(range(256))),
        *revoked,
    ]
    headers = [f"Bearer {t}" for t in tokens]
    headers += ["", "Bearer", f"bearer {good}", f"Basic {good}", f"Token {good}", good]
    return headers


# ---- calling -----------------------------------------------------------------------


@dataclass
class Outcome:
    rpc: str
    case: str
    code: grpc.StatusCode
    details: str

    @property
    def kind(self) -> str:
        return PLANS[self.rpc].kind


class Caller:
    """Raw calls by method path: requests go as bytes, so malformed ones can be sent."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.channel = channel
        self.outcomes: list[Outcome] = []
        self.gate = asyncio.Semaphore(CONCURRENCY)

    async def send(self, rpc: str, case: str, body: bytes, authorization: str | None) -> Outcome:
        method: MethodDescriptor = SERVICE.methods_by_name[rpc]
        path = f"/{SERVICE.full_name}/{rpc}"
        metadata = None if authorization is None else (("authorization", authorization),)
        async with self.gate:
            code, details = grpc.StatusCode.OK, ""
            try:
                if method.server_streaming:
                    stream = self.channel.unary_stream(path)(body, metadata=metadata, timeout=30)
                    async for reply in stream:  # a session that opens is read once and left
                        assert isinstance(reply, bytes)
                        stream.cancel()
                        break
                else:
                    await self.channel.unary_unary(path)(body, metadata=metadata, timeout=30)
            except grpc.aio.AioRpcError as error:
                code, details = error.code(), error.details() or ""
        outcome = Outcome(rpc, case, code, details)
        self.outcomes.append(outcome)
        return outcome


MAX_MESSAGE = 1 << 20  # services/platform/grpcserver.py


def holds_nul(message: Message) -> bool:
    """Whether any text in ``message`` holds a NUL character (PostgreSQL cannot store
    one, so every service refuses it as INVALID_ARGUMENT)."""
    for fd, value in message.ListFields():
        values = value if fd.is_repeated else [value]
        if fd.type == FieldDescriptor.TYPE_STRING and any("\x00" in v for v in values):
            return True
        if fd.type == FieldDescriptor.TYPE_MESSAGE and any(holds_nul(v) for v in values):
            return True
    return False


def holds_unknown_enum(message: Message) -> bool:
    """Whether any enum field of ``message`` holds a number its enum does not define
    (every service refuses it as INVALID_ARGUMENT)."""
    for fd, value in message.ListFields():
        values = value if fd.is_repeated else [value]
        if fd.enum_type is not None and any(v not in fd.enum_type.values_by_number for v in values):
            return True
        if fd.type == FieldDescriptor.TYPE_MESSAGE and any(holds_unknown_enum(v) for v in values):
            return True
    return False


def unicode_breaker() -> bytes:
    """A request_id (field 1, length-delimited) that is not UTF-8."""
    return b"\x0a\x04\xff\xfe\xc0\x80"


# ---- the backend and its players --------------------------------------------------


@pytest.fixture(scope="module")
def backend(
    shared_database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    logs = tmp_path_factory.mktemp("hostile")
    with stack(
        shared_database_url,
        nats_url,
        logs,
        overrides={
            "match": {"TRIAD_TURN_SECONDS": LONG, "TRIAD_DISCONNECT_SECONDS": LONG},
            "collection": {
                "TRIAD_TRADE_CHOICE_SECONDS": LONG,
                "TRIAD_DRAFT_PICK_SECONDS": LONG,
                "TRIAD_DRAFT_INACTIVITY_SECONDS": LONG,
            },
            "matchmaker": {"TRIAD_MATCHMAKER_BOT_FILL_SECONDS": LONG},
        },
        gateways=(
            # The hostile traffic must reach the services, not the rate limiter.
            {"TRIAD_RATE_PER_SECOND": "100000", "TRIAD_RATE_BURST": "100000"},
            {
                "TRIAD_RATE_PER_SECOND": "1",
                "TRIAD_RATE_BURST": "5",
                "TRIAD_REGISTRATION_BURST": "3",
                "TRIAD_REGISTRATIONS_PER_MINUTE": "0.5",
            },
        ),
    ) as running:
        yield running


@pytest.fixture
async def channel(backend: Stack) -> AsyncIterator[grpc.aio.Channel]:
    async with backend.channel() as opened:
        yield opened


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


# ---- the test ----------------------------------------------------------------------


def test_every_public_rpc_has_a_plan() -> None:
    """A new RPC fails here until someone says how to attack it."""
    assert set(PLANS) == set(SERVICE.methods_by_name)
    for rpc, plan in PLANS.items():
        streaming = SERVICE.methods_by_name[rpc].server_streaming
        assert (plan.kind == "stream") == streaming, rpc
        has_request_id = "request_id" in SERVICE.methods_by_name[rpc].input_type.fields_by_name
        assert (plan.kind in ("write", "open")) == has_request_id, rpc


async def test_hostile_requests_get_proper_statuses_and_change_nothing(
    backend: Stack, channel: grpc.aio.Channel, shared_database_url: str
) -> None:
    api = backend.api(channel)
    attacker, ids, extra = await world(api)
    await read_everything_once(attacker, ids)
    before = await settled(shared_database_url, backend.schemas)
    log_sizes = {name: len(text) for name, text in backend.logs().items()}

    rng = random.Random(20261130)
    good = f"Bearer {attacker.tokens.access_token}"
    tokens = bad_tokens(
        attacker.tokens.access_token, attacker.id, extra["victim"], extra["revoked"]
    )
    caller = Caller(channel)
    pending: list[Awaitable[Outcome]] = []
    expected: dict[int, grpc.StatusCode] = {}

    def send(
        rpc: str, case: str, body: bytes, auth: str | None, must: grpc.StatusCode | None = None
    ) -> None:
        if must is not None:
            expected[len(pending)] = must
        pending.append(caller.send(rpc, case, body, auth))

    for rpc, plan in PLANS.items():
        method = SERVICE.methods_by_name[rpc]
        cls = GetMessageClass(method.input_type)
        authenticated = plan.kind != "open"
        for _ in range(max(1, int(PER_RPC * plan.weight))):
            request = fill(cls(), rng, ids, own=plan.kind == "read")
            roll = rng.random()
            if authenticated and (plan.kind == "stream" or roll < 0.25):
                # A body refused whatever the caller is is refused before the token is
                # read: too large (by grpc), holding a NUL or an enum value the contract
                # does not define (by every service's edge).
                body = request.SerializeToString()
                must = grpc.StatusCode.UNAUTHENTICATED
                if len(body) > MAX_MESSAGE:
                    must = grpc.StatusCode.RESOURCE_EXHAUSTED
                elif holds_nul(request) or holds_unknown_enum(request):
                    must = grpc.StatusCode.INVALID_ARGUMENT
                send(rpc, "bad token", body, rng.choice(tokens), must)
                continue
            if plan.kind == "read":
                send(rpc, "read", request.SerializeToString(), good)
                continue
            if plan.poison is not None:
                plan.poison(request, rng, ids)
            if rng.random() < 0.15:
                poison_request_id(request, rng, ids)
            send(rpc, "refused", request.SerializeToString(), good if authenticated else None)
        # the same for every RPC: oversized, not protobuf, not UTF-8
        auth = good if authenticated else None
        huge = cls().SerializeToString() + b"\xfa\x3f" + b"\x80\x80\x50" + b"h" * (1 << 20)
        send(rpc, "oversized", huge, auth, grpc.StatusCode.RESOURCE_EXHAUSTED)
        for garbage in (
            rng.randbytes(40),
            b"\xff" * 9,
            unicode_breaker(),
            b"\x0a\xff\xff\xff\xff\x0f",
        ):
            send(rpc, "malformed", garbage, auth)
    for rpc, request in extra["replays"].items():  # the same request: the first answer
        for _ in range(20):
            send(rpc, "replay", request.SerializeToString(), good, grpc.StatusCode.OK)
        changed = type(request)()
        changed.CopyFrom(request)
        fill(changed, rng, ids, own=False)
        changed.request_id = request.request_id  # type: ignore[attr-defined]
        if changed != request:  # the same id for a different request
            for _ in range(20):
                send(rpc, "reused id", changed.SerializeToString(), good)

    started = time.monotonic()
    outcomes = await asyncio.gather(*pending)
    elapsed = time.monotonic() - started

    codes = Counter(o.code for o in outcomes)
    by_case = Counter((o.case, o.code.name) for o in outcomes)
    print(f"{len(outcomes)} hostile requests in {elapsed:.1f} s: {dict(codes)}")
    print("\n".join(f"  {case:10} {code:20} {n}" for (case, code), n in sorted(by_case.items())))
    samples: dict[tuple[str, str], Outcome] = {}
    for o in outcomes:
        samples.setdefault((o.case, o.code.name), o)
    for (case, code), o in sorted(samples.items()):
        print(f"  e.g. {case} {code}: {o.rpc} {o.details[:150]!r}")
    assert len(outcomes) >= 10_000
    wrong = []
    for index, outcome in enumerate(outcomes):
        must = expected.get(index)
        if must is not None and outcome.code != must:
            wrong.append(outcome)
        elif must is None and (outcome.case == "read" or outcome.kind == "read"):
            if outcome.code != grpc.StatusCode.OK and outcome.code not in REFUSALS:
                wrong.append(outcome)
        elif must is None and outcome.code not in REFUSALS:
            wrong.append(outcome)
        if LEAKS.search(outcome.details) or len(outcome.details) > 1000:
            wrong.append(outcome)
    shown = "\n".join(f"{o.rpc} {o.case}: {o.code.name} {o.details[:200]!r}" for o in wrong[:30])
    assert not wrong, f"{len(wrong)} improper answers, first:\n{shown}"

    after = await checksums(shared_database_url, backend.schemas)
    changed_tables = [t for t in before if before[t] != after.get(t)]
    assert not changed_tables and set(after) == set(before), f"changed: {changed_tables}"
    for name, text in backend.logs().items():
        new = text[log_sizes.get(name, 0) :]
        assert "Traceback" not in new, (
            f"{name} logged a fault:\n{new[new.find('Traceback') - 2000 :][:4000]}"
        )


async def test_a_low_rate_limit_is_resource_exhausted(backend: Stack) -> None:
    """The second gateway allows 1 request a second with bursts of 5: a burst of 40 from
    one player over several RPCs is mostly refused, and the refusal says to slow down."""
    rpcs = ["GetBalance", "GetPlayerStatus", "ListCatalog", "GetActiveMatch"]
    async with backend.channel(backend.gateways[1]) as channel:
        me = await join(backend.api(channel))
        results = await asyncio.gather(
            *(
                getattr(me, rpcs[i % 4])(
                    GetMessageClass(SERVICE.methods_by_name[rpcs[i % 4]].input_type)()
                )
                for i in range(40)
            ),
            return_exceptions=True,
        )
    refused = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert len(refused) >= len(results) - 6
    unexpected = [
        (r.code(), r.details()) for r in refused if r.code() != grpc.StatusCode.RESOURCE_EXHAUSTED
    ]
    assert not unexpected
    assert all("slow down" in (r.details() or "") for r in refused)


async def test_new_accounts_from_one_address_are_limited_and_a_refusal_creates_nothing(
    backend: Stack,
) -> None:
    """The second gateway allows 3 new accounts per address, then one every two
    minutes: sign-ups past that are RESOURCE_EXHAUSTED before any password is hashed,
    and the refused names do not exist; a retried sign-up is answered as before."""
    async with backend.channel(backend.gateways[1]) as channel:
        api = backend.api(channel)
        names = [f"r{uuid4().hex[:12]}" for _ in range(6)]
        outcomes: list[tuple[str, str, Any]] = []
        for name in names:
            request_id = uuid4().hex
            request = g.RegisterRequest(request_id=request_id, player_name=name, password=PASSWORD)
            try:
                outcomes.append((name, request_id, await api.Register(request, timeout=20)))
            except grpc.aio.AioRpcError as error:
                outcomes.append((name, request_id, error))
        made = [(n, r, o) for n, r, o in outcomes if not isinstance(o, grpc.aio.AioRpcError)]
        refused = [o for _, _, o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
        assert 1 <= len(made) <= 3 and len(refused) >= 3  # the other tests may have used some
        assert all(e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for e in refused)
        told = "too many new accounts from your address"
        assert all(told in (e.details() or "") for e in refused)
        name, request_id, first = made[0]
        again = await api.Register(
            g.RegisterRequest(request_id=request_id, player_name=name, password=PASSWORD),
            timeout=20,
        )
        assert again.player.player_id == first.player.player_id
    async with backend.channel() as channel:
        api = backend.api(channel)
        for name, _, outcome in outcomes:
            if not isinstance(outcome, grpc.aio.AioRpcError):
                continue
            with pytest.raises(grpc.aio.AioRpcError) as login:
                await api.Login(
                    g.LoginRequest(request_id=uuid4().hex, player_name=name, password=PASSWORD),
                    timeout=20,
                )
            assert login.value.code() == grpc.StatusCode.UNAUTHENTICATED
