"""The published verification procedure (services/collection/FAIRNESS.md), followed from
the outside: over gRPC only, with its own implementation of ``hmac-sha256-v1`` written
from the document, it recomputes 1,000 booster draws of four players and finds every
card, holo flag, holo side and pity flag the service drew, and every commitment kept."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from uuid import uuid4

import grpc
import pytest
from triad.v1 import collection_pb2 as c
from triad.v1 import collection_pb2_grpc
from triad.v1 import common_pb2 as pb

from devtools.processes import Service
from services.collection.tests.process import collection_service

if TYPE_CHECKING:
    Stub = collection_pb2_grpc.CollectionServiceAsyncStub

pytestmark = pytest.mark.integration

PLAYERS = 4
BOOSTERS_PER_PLAYER = 250
ROTATE_EVERY = 100  # so each player's draws span three seeds


class Words:
    """The document's random words: HMAC-SHA256 blocks read as big-endian u32."""

    def __init__(self, seed: str, client_seed: str, counter: int) -> None:
        self.key = bytes.fromhex(seed)
        self.prefix = f"{client_seed}:{counter}"
        self.block = 0
        self.buffer: list[int] = []

    def next(self) -> int:
        if not self.buffer:
            message = f"{self.prefix}:{self.block}".encode()
            digest = hmac.new(self.key, message, hashlib.sha256).digest()
            self.buffer = [int.from_bytes(digest[i : i + 4], "big") for i in range(0, 32, 4)]
            self.block += 1
        return self.buffer.pop(0)

    def uniform(self, n: int) -> int:
        while True:
            u = self.next()
            if u < (2**32 // n) * n:
                return u % n


def weighted(words: Words, ranks: list[tuple[int, int]]) -> int:
    r = words.uniform(sum(w for _, w in ranks))
    for stars, weight in ranks:
        if r < weight:
            return stars
        r -= weight
    raise AssertionError("r is below the total weight")


def recompute(
    draw: pb.BoosterDraw,
    seed: str,
    odds: pb.BoosterOdds,
    catalog: list[pb.Character],
) -> list[tuple[str, bool, int]]:
    """(character id, holo, holo side) of each slot, per the document."""
    words = Words(seed, draw.client_seed, draw.counter)
    cards: list[tuple[str, bool, int]] = []
    for index, slot in enumerate(odds.slots):
        ranks = [(s.stars, s.weight) for s in sorted(slot.star_odds, key=lambda s: s.stars)]
        if draw.pity_applied and index == len(odds.slots) - 1:
            ranks = [(s, w) for s, w in ranks if s >= odds.pity.min_stars]
        stars = weighted(words, ranks)
        of_rank = sorted((x for x in catalog if x.stars == stars), key=lambda x: x.character_id)
        character = of_rank[words.uniform(len(of_rank))]
        holo = words.uniform(10_000) < 500
        side: int = pb.SIDE_UNSPECIFIED
        values = [character.sides.top, character.sides.right, character.sides.bottom,
                  character.sides.left]  # fmt: skip
        below_ace = [pb.SIDE_TOP + i for i, v in enumerate(values) if v < 10]
        if holo and below_ace:
            side = below_ace[words.uniform(len(below_ace))]
        cards.append((character.character_id, holo, side))
    return cards


@pytest.fixture
def service(shared_database_url: str, tmp_path: Path) -> Iterator[Service]:
    with collection_service(shared_database_url, None, tmp_path / "collection.log") as s:
        yield s


@pytest.fixture
async def stub(service: Service) -> AsyncIterator[Stub]:
    async with grpc.aio.insecure_channel(service.address) as channel:
        yield collection_pb2_grpc.CollectionServiceStub(channel)


async def play(stub: Stub, player: str) -> list[str]:
    """Open the boosters, rotating the seed now and then; return the hashes committed
    before each seed's first draw."""
    await stub.CreditCurrency(
        c.CollectionServiceCreditCurrencyRequest(
            request_id=uuid4().hex,
            player_id=player,
            amount=100 * BOOSTERS_PER_PLAYER,
            reason=pb.CURRENCY_REASON_GRANT,
            reference_id="fairness-test",
        )
    )
    committed = []
    for n in range(BOOSTERS_PER_PLAYER):
        if n % ROTATE_EVERY == 0:
            if n:
                await stub.SetClientSeed(
                    c.CollectionServiceSetClientSeedRequest(
                        request_id=uuid4().hex, player_id=player, client_seed=f"{player}#{n}"
                    )
                )
            commitment = (
                await stub.GetSeedCommitment(
                    c.CollectionServiceGetSeedCommitmentRequest(player_id=player)
                )
            ).commitment
            committed.append(commitment.server_seed_hash)
        await stub.OpenBooster(
            c.CollectionServiceOpenBoosterRequest(
                request_id=uuid4().hex,
                player_id=player,
                expected_server_seed_hash=committed[-1],
            )
        )
    # Rotate once more, so every seed that drew is revealed.
    await stub.SetClientSeed(
        c.CollectionServiceSetClientSeedRequest(
            request_id=uuid4().hex, player_id=player, client_seed="final"
        )
    )
    return committed


async def test_a_client_recomputes_1000_booster_draws_from_the_published_procedure(
    stub: Stub,
) -> None:
    players = [f"verifier-{n}-{uuid4().hex[:6]}" for n in range(PLAYERS)]
    commitments = await asyncio.gather(*(play(stub, p) for p in players))
    odds = (await stub.GetBoosterOdds(c.CollectionServiceGetBoosterOddsRequest())).odds
    assert odds.algorithm == "hmac-sha256-v1"
    catalog = list(
        (await stub.ListCatalog(c.CollectionServiceListCatalogRequest(page_size=500))).characters
    )
    checked = 0
    for player, committed in zip(players, commitments, strict=True):
        seeds = {
            s.seed_id: s
            for s in (
                await stub.ListServerSeeds(
                    c.CollectionServiceListServerSeedsRequest(player_id=player)
                )
            ).seeds
        }
        draws = list(
            (
                await stub.ListBoosterDraws(
                    c.CollectionServiceListBoosterDrawsRequest(player_id=player, page_size=1000)
                )
            ).draws
        )
        draws.reverse()  # oldest first
        assert len(draws) == BOOSTERS_PER_PLAYER
        used = [s for s in seeds.values() if s.draw_count]
        assert sorted(s.server_seed_hash for s in used) == sorted(committed)
        since = 0
        counters: dict[str, int] = {}
        for draw in draws:
            seed = seeds[draw.seed_id]
            assert seed.server_seed, "every seed that drew is revealed after the rotation"
            assert (
                hashlib.sha256(bytes.fromhex(seed.server_seed)).hexdigest()
                == (seed.server_seed_hash)
                == draw.server_seed_hash
            )
            assert draw.counter == counters.get(draw.seed_id, 0)
            counters[draw.seed_id] = draw.counter + 1
            assert draw.pity_applied == (since == odds.pity.booster_count - 1)
            expected = recompute(draw, seed.server_seed, odds, catalog)
            got = [(x.character.character_id, x.holo, x.holo_side) for x in draw.copies]
            assert got == expected
            for x in draw.copies:
                printed = [x.printed_sides.top, x.printed_sides.right, x.printed_sides.bottom,
                           x.printed_sides.left]  # fmt: skip
                base = [x.character.sides.top, x.character.sides.right,
                        x.character.sides.bottom, x.character.sides.left]  # fmt: skip
                bonus = [int(x.holo_side == pb.SIDE_TOP + i) for i in range(4)]
                assert printed == [b + d for b, d in zip(base, bonus, strict=True)]
            high = any(x.character.stars >= odds.pity.min_stars for x in draw.copies)
            since = 0 if high else since + 1
            checked += 1
        assert counters == {s.seed_id: s.draw_count for s in used}
    assert checked == PLAYERS * BOOSTERS_PER_PLAYER == 1000
