"""What each public RPC is, for the hostile tests: its ``Plan`` says whether it only reads,
and how a request to it is made so that the contract refuses it whatever else it
carries.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from uuid import uuid4

from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD
from tests.e2e.hostile.hostile_values import Ids, bad_request_id, hostile_string

SERVICE = g.DESCRIPTOR.services_by_name["TriadGateway"]


LONG = "600"  # seconds: no timer fires during the test


RANKED = pb.LadderKey(ladder=pb.LADDER_RANKED, season=0)


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
    "SetPlan": Plan("write"),
    "CommitPlan": Plan("write"),
    "GiveUp": Plan("write"),
}
