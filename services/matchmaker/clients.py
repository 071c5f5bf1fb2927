"""The other services as the matchmaker calls them (the ports in ``handlers.py``): gRPC
adapters of the match, collection, rating and battle services, and in-repo stand-ins for the
collection and rating services while their addresses (TRIAD_COLLECTION_ADDR,
TRIAD_RATING_ADDR) are not configured.

Every gRPC call has a deadline. A refusal comes back as the platform's domain error with
the other service's message (it names the rule); anything else (UNAVAILABLE, a
deadline, an internal fault) as ``Unavailable``, which the matchmaker retries.

The stand-ins keep the matchmaker honest about what it does not know: every player
rates 1500 (RULES.md 10's starting rating), nobody owes a trade or a draft, and a
player's deck is a legal stand-in drawn deterministically from the built-in characters
below (the same deck id always gives the same cards); bot decks are drawn from them
too. Nothing is locked, so nothing needs releasing. The catalog belongs to the
collection service (DrawBotDeck); the 24 built-in characters' sides follow a budget per
star rank (sum of the four sides: 1★ 13-15, 2★ 17-19, 3★ 21-23, 4★ 25-26, 5★ 28-29).
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from random import Random
from typing import Any, ClassVar, TypeVar

import grpc
from google.protobuf.message import Message
from triad.v1 import battle_pb2 as bat
from triad.v1 import battle_pb2_grpc, collection_pb2_grpc, match_pb2_grpc, rating_pb2_grpc
from triad.v1 import collection_pb2 as col
from triad.v1 import common_pb2 as pb
from triad.v1 import match_pb2 as m
from triad.v1 import rating_pb2 as rat

from services import wire
from services.matchmaker import mapping
from services.matchmaker.domain import UNRATED, Card, DeckChoice, Seat, legal_deck
from services.matchmaker.handlers import DeckRequest, MatchSpec
from services.platform.downstream import AS_REFUSAL, call
from services.platform.errors import FailedPrecondition, InvalidArgument
from services.platform.interceptors import carried
from services.rules.deck import within_star_limits
from services.rules.realm import CreatureType

T = TypeVar("T")


class _Downstream:
    """A gRPC adapter of another service (``SERVICE``, reached by a ``STUB``): every
    call has the clients' deadline; a refusal is final for the start
    (FAILED_PRECONDITION, or NOT_FOUND), anything else the platform's ``Unavailable``,
    which the matchmaker retries."""

    SERVICE: ClassVar[str]
    STUB: ClassVar[type[Any]]

    def __init__(self, channel: grpc.aio.Channel, timeout: float) -> None:
        self._stub: Any = self.STUB(channel)
        self._timeout = timeout

    async def _ask(self, rpc: Callable[..., Awaitable[T]], request: Message) -> T:
        pending = rpc(request, timeout=self._timeout, metadata=carried())
        return await call(self.SERVICE, pending, kinds=AS_REFUSAL)


class GrpcMatches(_Downstream):
    SERVICE = "match"
    STUB = match_pb2_grpc.MatchServiceStub

    async def active_match(self, player_id: str) -> str | None:
        request = m.MatchServiceGetActiveMatchRequest(player_id=player_id)
        reply = await self._ask(self._stub.GetActiveMatch, request)
        return str(reply.active_match.match_id) if reply.HasField("active_match") else None

    async def away_since(self, player_id: str) -> datetime | None:
        request = m.MatchServiceGetActiveMatchRequest(player_id=player_id)
        reply = await self._ask(self._stub.GetActiveMatch, request)
        return wire.moment(reply.away_since) if reply.HasField("away_since") else None

    async def create(self, spec: MatchSpec) -> None:
        seats = [
            m.SeatSetup(
                player=mapping.seat_player(Seat(s.player_id, s.name, bot_level=s.bot_level), index),
                deck=[mapping.card(c) for c in s.cards],
            )
            for index, s in enumerate(spec.seats)
        ]
        request = m.MatchServiceCreateMatchRequest(
            request_id=spec.request_id,
            match_id=spec.match_id,
            mode=mapping.MODES[spec.mode],
            origin_mode=mapping.MODES[spec.origin_mode]
            if spec.origin_mode
            else pb.MODE_UNSPECIFIED,
            rules=mapping.rules(spec.rules),
            ladder=mapping.ladder_key(spec.ladder),
            seats=seats,
            origin_id=spec.origin_id,
            realm_draw_pile=[mapping.card(c) for c in spec.draw_pile],
        )
        await self._ask(self._stub.CreateMatch, request)


BATTLE_REFUSAL = {**AS_REFUSAL, grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument}
"""A battle the battle service refuses as INVALID_ARGUMENT (a practice battle's team
outside the roster) is refused so to its player (gateway.proto: StartPracticeBattle)."""


class GrpcBattles(_Downstream):
    """The battle service, for the Battle queue (Skirmish)."""

    SERVICE = "battle"
    STUB = battle_pb2_grpc.BattleServiceStub

    async def create(self, battle_id: str, seats: Sequence[Seat]) -> None:
        request = bat.BattleServiceCreateBattleRequest(
            battle_id=battle_id,
            request_id=battle_id,
            seats=[mapping.battle_seat(s) for s in seats],
        )
        pending = self._stub.CreateBattle(request, timeout=self._timeout, metadata=carried())
        await call(self.SERVICE, pending, kinds=BATTLE_REFUSAL)

    async def active_battle(self, player_id: str) -> str | None:
        request = bat.BattleServiceGetActiveBattleRequest(player_id=player_id)
        reply = await self._ask(self._stub.GetActiveBattle, request)
        # A battle whose seat the CPU took over is lost, only watched: it holds nobody.
        return None if reply.taken_over else str(reply.battle_id) or None


class GrpcCollection(_Downstream):
    """Decks, obligations, bot decks and drafts: all the collection service's."""

    SERVICE = "collection"
    STUB = collection_pb2_grpc.CollectionServiceStub

    async def resolve(self, asked: DeckRequest) -> tuple[Card, ...]:
        request = col.CollectionServiceResolveDeckForMatchRequest(
            hand_size=asked.hand_size,
            request_id=f"resolve:{asked.purpose_id}:{asked.player_id}",
            player_id=asked.player_id,
            deck=mapping.deck_choice(asked.choice),
            purpose_id=asked.purpose_id,
            lock_for=pb.LockHolder(match_id=asked.purpose_id) if asked.lock else None,
        )
        reply = await self._ask(self._stub.ResolveDeckForMatch, request)
        return tuple(mapping.card_back(c) for c in reply.cards)

    async def check(self, player_id: str, choice: DeckChoice, hand_size: int = 0) -> None:
        request = col.CollectionServiceValidateDeckRequest(player_id=player_id, hand_size=hand_size)
        if choice.random:
            request.random.SetInParent()
        else:
            request.deck_id = choice.deck_id
        reply = await self._ask(self._stub.ValidateDeck, request)
        if not reply.valid:
            broken = "; ".join(v.message for v in reply.violations) or "it breaks a deck rule"
            raise FailedPrecondition(f"your deck cannot be played now: {broken}")

    async def release(self, match_id: str) -> None:
        request = col.CollectionServiceReleaseCopiesRequest(
            request_id=f"release:{match_id}", holder=pb.LockHolder(match_id=match_id)
        )
        await self._ask(self._stub.ReleaseCopies, request)

    async def blocking(self, player_id: str, current_match_id: str = "") -> str | None:
        request = col.CollectionServiceHasPendingObligationsRequest(
            player_id=player_id, current_match_id=current_match_id
        )
        reply = await self._ask(self._stub.HasPendingObligations, request)
        if not reply.blocked:
            return None
        return "; ".join(o.message for o in reply.obligations) or "an obligation is pending"

    async def draw(
        self, request_id: str, hand_size: int = 5, house: bool = False
    ) -> tuple[Card, ...]:
        request = col.CollectionServiceDrawBotDeckRequest(
            request_id=request_id, hand_size=hand_size, house=house
        )
        reply = await self._ask(self._stub.DrawBotDeck, request)
        return tuple(mapping.card_back(c) for c in reply.cards)

    async def create(
        self, draft_id: str, pairing_id: str, ladder: str, players: Sequence[tuple[str, str]]
    ) -> None:
        request = col.CollectionServiceCreateDraftRequest(
            request_id=f"draft:{draft_id}",
            draft_id=draft_id,
            pairing_id=pairing_id,
            ladder=mapping.ladder_key(ladder),
            participants=[pb.PlayerRef(player_id=p, player_name=n) for p, n in players],
        )
        await self._ask(self._stub.CreateDraft, request)


class GrpcRatings(_Downstream):
    SERVICE = "rating"
    STUB = rating_pb2_grpc.RatingServiceStub

    async def ratings(self, ladder: str, player_ids: Sequence[str]) -> dict[str, int]:
        request = rat.RatingServiceBatchGetRatingsRequest(
            ladder=mapping.ladder_key(ladder), player_ids=list(player_ids)
        )
        reply = await self._ask(self._stub.BatchGetRatings, request)
        return {r.player_id: r.rating for r in reply.ratings}


# --------------------------------------------------------------------------- stand-ins

# (id, name, stars, element, (top, right, bottom, left))
CHARACTERS: tuple[tuple[str, str, int, str, tuple[int, int, int, int]], ...] = (
    ("mm-01", "Moss Sprite", 1, "earth", (4, 3, 2, 5)),
    ("mm-02", "Tide Minnow", 1, "water", (2, 5, 4, 3)),
    ("mm-03", "Ember Newt", 1, "fire", (5, 2, 3, 4)),
    ("mm-04", "Frost Moth", 1, "ice", (3, 4, 5, 2)),
    ("mm-05", "Dust Hare", 1, "", (4, 4, 3, 3)),
    ("mm-06", "Reed Piper", 1, "wind", (3, 5, 3, 3)),
    ("mm-07", "Gloom Toad", 2, "poison", (5, 4, 5, 3)),
    ("mm-08", "Spark Finch", 2, "thunder", (3, 6, 4, 5)),
    ("mm-09", "Lantern Monk", 2, "holy", (6, 3, 5, 4)),
    ("mm-10", "Drift Heron", 2, "wind", (4, 5, 6, 3)),
    ("mm-11", "Clay Sentry", 2, "earth", (5, 5, 4, 4)),
    ("mm-12", "Brine Crab", 2, "water", (6, 4, 3, 6)),
    ("mm-13", "Cinder Lynx", 3, "fire", (7, 5, 4, 6)),
    ("mm-14", "Hail Warden", 3, "ice", (5, 7, 6, 4)),
    ("mm-15", "Storm Kestrel", 3, "thunder", (6, 4, 7, 5)),
    ("mm-16", "Thorn Witch", 3, "poison", (4, 6, 5, 7)),
    ("mm-17", "Vale Knight", 3, "", (6, 6, 5, 5)),
    ("mm-18", "Coral Oracle", 3, "water", (7, 4, 6, 5)),
    ("mm-19", "Gale Duelist", 4, "wind", (8, 6, 7, 4)),
    ("mm-20", "Basalt Golem", 4, "earth", (5, 8, 4, 8)),
    ("mm-21", "Dawn Paladin", 4, "holy", (7, 7, 6, 6)),
    ("mm-22", "Venom Regent", 4, "poison", (4, 7, 8, 7)),
    ("mm-23", "Aurora Wyrm", 5, "ice", (9, 6, 8, 6)),
    ("mm-24", "Sunforge Titan", 5, "fire", (6, 9, 6, 8)),
)


KINDS = tuple(kind.value for kind in CreatureType)
"""The built-in characters' creature types (Realm tables, RULES.md 17), by id."""


def draw_deck(rng: Random, id_prefix: str, origin: str, size: int = 5) -> tuple[Card, ...]:
    """A legal deck of ``size`` cards (RULES.md 2, 11) from the built-in characters.

    Shuffles the characters and keeps each one that still fits the star limits, so
    every legal combination can come out and the draw never fails.
    """
    order = list(CHARACTERS)
    rng.shuffle(order)
    chosen: list[tuple[str, str, int, str, tuple[int, int, int, int]]] = []
    for entry in order:
        stars = [c[2] for c in chosen] + [entry[2]]
        if within_star_limits(stars.count(5), stars.count(4), size):
            chosen.append(entry)
        if len(chosen) == size:
            break
    deck = tuple(
        Card(
            card_id=f"{id_prefix}-{index}-{character_id}",
            origin=origin,
            character_id=character_id,
            name=name,
            stars=stars,
            element=element,
            sides=sides,
            printed=sides,
            kind=KINDS[int(character_id.removeprefix("mm-")) % len(KINDS)],
            alignment="neutral neutral",
        )
        for index, (character_id, name, stars, element, sides) in enumerate(chosen)
    )
    assert size != 5 or legal_deck([c.stars for c in deck], [c.character_id for c in deck])
    return deck


class StarterDecks:
    async def resolve(self, asked: DeckRequest) -> tuple[Card, ...]:
        # Random draws per purpose (a new deck each match); a saved deck is stable.
        player_id = asked.player_id
        seed = f"{player_id}:{asked.choice.deck_id or 'random:' + asked.purpose_id}"
        return draw_deck(Random(seed), f"starter-{player_id}", "owned_copy", asked.hand_size)

    async def release(self, match_id: str) -> None:
        return None

    async def check(self, player_id: str, choice: DeckChoice, hand_size: int = 0) -> None:
        return None  # every stand-in deck is legal, of every size


class FixedRatings:
    async def ratings(self, ladder: str, player_ids: Sequence[str]) -> dict[str, int]:
        return dict.fromkeys(player_ids, UNRATED)


class NoObligations:
    async def blocking(self, player_id: str, current_match_id: str = "") -> str | None:
        return None


class LocalBotDecks:
    async def draw(
        self, request_id: str, hand_size: int = 5, house: bool = False
    ) -> tuple[Card, ...]:
        # Seeded by the request id: a retry draws the same deck, as DrawBotDeck promises.
        tag = hashlib.sha256(request_id.encode()).hexdigest()[:12]
        origin = "house" if house else "bot"
        return draw_deck(Random(request_id), f"{origin}-{tag}", origin, hand_size)
