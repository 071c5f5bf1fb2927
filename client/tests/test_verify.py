"""``triad-client verify`` recomputes boosters in the client: a draw as the server
records it (built here with the collection's own draw from a known seed, then sent
through the published catalog and odds as protobuf) matches; a changed card, a changed
holo, a seed that does not hash to its commitment are each named; a seed still in
force is not checkable yet."""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import CommandError
from client.render import plain_console
from client.verify import SIDES, catalog_of, check, slots_of, verify
from services.collection.domain.boosters import (
    ALGORITHM,
    PITY,
    SLOTS,
    draw_booster,
    seed_hash,
)
from services.collection.domain.catalog import load_catalog

SEED = "ab" * 32


def published() -> tuple[list[pb.Character], pb.BoosterOdds]:
    """The catalog and the odds as the gateway serves them."""
    characters = [
        pb.Character(
            character_id=c.id,
            name=c.name,
            stars=c.stars,
            sides=pb.Sides(top=c.sides[0], right=c.sides[1], bottom=c.sides[2], left=c.sides[3]),
        )
        for c in load_catalog()
    ]
    odds = pb.BoosterOdds(
        slots=[
            pb.BoosterSlotOdds(
                slot_index=i, star_odds=[pb.StarOdds(stars=s, weight=w) for s, w in slot.weights]
            )
            for i, slot in enumerate(SLOTS)
        ],
        pity=pb.PityRule(booster_count=PITY.booster_count, min_stars=PITY.min_stars),
        algorithm=ALGORITHM,
    )
    return characters, odds


def recorded(counter: int, pity: bool = False) -> pb.BoosterDraw:
    """The draw the server would record for ``counter`` under SEED."""
    contents = draw_booster(load_catalog(), SEED, "my seed", counter, pity)
    return pb.BoosterDraw(
        draw_id=f"draw-{counter}",
        seed_id="seed-1",
        server_seed_hash=seed_hash(SEED),
        client_seed="my seed",
        counter=counter,
        algorithm=ALGORITHM,
        pity_applied=pity,
        copies=[
            pb.OwnedCopy(
                copy_id=f"c{n}",
                character=pb.Character(character_id=card.character.id, name=card.character.name),
                holo=card.holo,
                holo_side=SIDES[card.holo_side]
                if card.holo_side is not None
                else pb.SIDE_UNSPECIFIED,
            )
            for n, card in enumerate(contents.cards)
        ],
    )


REVEALED = pb.ServerSeed(seed_id="seed-1", server_seed_hash=seed_hash(SEED), server_seed=SEED)


def test_a_booster_recomputed_from_its_revealed_seed_matches() -> None:
    characters, odds = published()
    catalog, slots = catalog_of(characters), slots_of(odds)
    for counter in range(40):
        for pity in (False, True):
            verdict = check(recorded(counter, pity), REVEALED, catalog, slots)
            assert verdict.verdict == "matches", (counter, pity, verdict.problems)


def test_a_card_the_seeds_do_not_give_is_named() -> None:
    characters, odds = published()
    draw = recorded(3)
    other = next(c for c in characters if c.character_id != draw.copies[2].character.character_id)
    draw.copies[2].character.CopyFrom(other)
    verdict = check(draw, REVEALED, catalog_of(characters), slots_of(odds))
    assert verdict.problems and verdict.problems[0].startswith(f"card 2 is {other.name}")
    assert verdict.verdict.startswith("DIFFERS: card 2 is")


def test_a_holo_flag_a_pity_flag_or_a_seed_that_breaks_its_commitment_differs() -> None:
    characters, odds = published()
    catalog, slots = catalog_of(characters), slots_of(odds)
    draw = recorded(5)
    draw.copies[0].holo = not draw.copies[0].holo
    assert check(draw, REVEALED, catalog, slots).problems
    # A pity flag the draw did not use changes the last card's rank odds.
    assert any(
        check(recorded(n, pity=False), REVEALED, catalog, slots).problems == ()
        and check(_flipped(recorded(n)), REVEALED, catalog, slots).problems
        for n in range(20)
    )
    lying = pb.ServerSeed(seed_id="seed-1", server_seed_hash="00" * 32, server_seed=SEED)
    problems = check(recorded(1), lying, catalog, slots).problems
    assert "the revealed server seed does not hash to its commitment" in problems


def _flipped(draw: pb.BoosterDraw) -> pb.BoosterDraw:
    draw.pity_applied = not draw.pity_applied
    return draw


def test_a_booster_of_the_seed_in_force_is_not_checkable_yet() -> None:
    characters, odds = published()
    in_force = pb.ServerSeed(seed_id="seed-1", server_seed_hash=seed_hash(SEED))
    verdict = check(recorded(0), in_force, catalog_of(characters), slots_of(odds))
    assert verdict.pending and not verdict.problems
    assert verdict.verdict == "not yet: its server seed is still in force"


class Boosters:
    """A gateway holding two draws; records the calls made to it."""

    def __init__(self) -> None:
        self.stub = self
        self.calls: list[str] = []

    async def ListBoosterDraws(self, request: g.ListBoosterDrawsRequest) -> Any:
        return g.ListBoosterDrawsResponse(draws=[recorded(0), recorded(1)])

    async def GetSeedCommitment(self, request: Any) -> Any:
        return g.GetSeedCommitmentResponse()

    async def SetClientSeed(self, request: Any) -> Any:
        return g.SetClientSeedResponse()

    async def ListServerSeeds(self, request: Any) -> Any:
        return g.ListServerSeedsResponse()

    async def call(self, method: Any, request: Any) -> Any:
        self.calls.append(type(request).__name__)
        return await method(request)


async def test_a_draw_that_names_no_booster_is_refused_before_the_client_seed_is_set() -> None:
    """Found from outside: `verify --client-seed NEW --draw typo` set the client seed,
    revealing the server seed in force, and only then refused the --draw."""
    client = Boosters()
    args = argparse.Namespace(json=False, client_seed="new seed", draw="zz")
    with pytest.raises(CommandError, match="no single booster of yours starts with 'zz'"):
        await verify(client, args, plain_console())
    assert client.calls == ["ListBoosterDrawsRequest"]
