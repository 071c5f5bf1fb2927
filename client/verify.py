"""Checking booster draws in the client (services/collection/FAIRNESS.md): ``seed``
shows the commitment in force and sets a client seed (which reveals the server seed
in force); ``verify`` recomputes the player's boosters here, from the revealed server
seeds, the published odds and the catalog, and says whether each matches what the
server drew. The derivation is the collection's own pure module
(``services.collection.domain.boosters``, standard library only), not a copy of it."""

from __future__ import annotations

import argparse
import json
import uuid
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import Caller, CommandError, as_json, pages
from services.collection.domain.boosters import ALGORITHM, SlotOdds, draw_booster, seed_hash
from services.collection.domain.catalog import Catalog
from services.rules import Side

SIDES = {Side.TOP: pb.SIDE_TOP, Side.RIGHT: pb.SIDE_RIGHT, Side.BOTTOM: pb.SIDE_BOTTOM}
SIDES[Side.LEFT] = pb.SIDE_LEFT


@dataclass(frozen=True)
class Check:
    """One booster checked: ``problems`` empty when it matches; ``pending`` when its
    server seed is still in force (not revealed, so not checkable yet)."""

    draw: pb.BoosterDraw
    problems: tuple[str, ...] = ()
    pending: bool = False

    @property
    def verdict(self) -> str:
        if self.pending:
            return "not yet: its server seed is still in force"
        return "matches" if not self.problems else "DIFFERS: " + "; ".join(self.problems)


def catalog_of(characters: list[pb.Character]) -> Catalog:
    """The catalog the server published, as the draw reads it: each character read back
    by the collection's own mapping (its Realm attributes too, which the draw never
    reads; a character sent without them takes the shipped catalog's). The mapping is
    loaded here, for this command only: with the platform's edge and structlog it is
    about a third of the client's start."""
    from services.collection.mapping import character_back

    return Catalog(character_back(c) for c in characters)


def slots_of(odds: pb.BoosterOdds) -> tuple[SlotOdds, ...]:
    """The published integer weights per slot, ranks in ascending order."""
    return tuple(
        SlotOdds(tuple((s.stars, s.weight) for s in sorted(slot.star_odds, key=lambda s: s.stars)))
        for slot in sorted(odds.slots, key=lambda s: s.slot_index)
    )


def check(
    draw: pb.BoosterDraw, seed: pb.ServerSeed | None, catalog: Catalog, slots: tuple[SlotOdds, ...]
) -> Check:
    """Recompute ``draw`` from its revealed ``seed`` and compare it card by card."""
    if seed is None or not seed.server_seed:
        return Check(draw, pending=True)
    problems = []
    if draw.algorithm and draw.algorithm != ALGORITHM:
        return Check(draw, (f"drawn with {draw.algorithm!r}; this client knows {ALGORITHM}",))
    if seed_hash(seed.server_seed) != seed.server_seed_hash:
        problems.append("the revealed server seed does not hash to its commitment")
    if draw.server_seed_hash != seed.server_seed_hash:
        problems.append("the draw names another commitment than its seed's")
    expected = draw_booster(
        catalog, seed.server_seed, draw.client_seed, draw.counter, draw.pity_applied, slots
    )
    if len(expected.cards) != len(draw.copies):
        problems.append(f"{len(draw.copies)} cards drawn, {len(expected.cards)} expected")
    for slot, (want, got) in enumerate(zip(expected.cards, draw.copies, strict=False)):
        side = SIDES[want.holo_side] if want.holo_side is not None else pb.SIDE_UNSPECIFIED
        if want.character.id != got.character.character_id:
            problems.append(
                f"card {slot} is {got.character.name}, the seeds give {want.character.name}"
            )
        elif want.holo != got.holo or side != got.holo_side:
            problems.append(f"card {slot}'s holo differs from the seeds'")
    return Check(draw, tuple(problems))


async def seed(client: Caller, args: argparse.Namespace, console: Console) -> int:
    """``seed`` shows the commitment in force; ``seed set TEXT`` sets the client seed."""
    if args.seed_command == "set":
        changed = await client.call(
            client.stub.SetClientSeed,
            g.SetClientSeedRequest(request_id=uuid.uuid4().hex, client_seed=args.client_seed),
        )
        if args.json:
            print(as_json(changed))
            return 0
        if changed.HasField("revealed_seed"):
            old = changed.revealed_seed
            console.print(f"Revealed server seed {old.server_seed} ({old.draw_count} boosters).")
        commitment = changed.commitment
    else:
        commitment = (
            await client.call(client.stub.GetSeedCommitment, g.GetSeedCommitmentRequest())
        ).commitment
        if args.json:
            print(as_json(commitment))
            return 0
    console.print(
        f"Server seed hash {commitment.server_seed_hash}, client seed "
        f"{commitment.client_seed!r}, next booster counter {commitment.next_counter}."
    )
    return 0


async def verify(client: Caller, args: argparse.Namespace, console: Console) -> int:
    """Recompute the player's boosters (or one, ``--draw``); exit 1 if one differs."""
    stub = client.stub
    # The boosters first (found from outside: `verify --client-seed NEW --draw typo` set
    # the seed, revealing the one in force, then refused the --draw).
    draws = [
        d
        for page in await pages(
            lambda token: client.call(
                stub.ListBoosterDraws, g.ListBoosterDrawsRequest(page_size=200, page_token=token)
            )
        )
        for d in page.draws
    ]
    if args.draw:
        draws = [d for d in draws if d.draw_id.startswith(args.draw)]
        if len(draws) != 1:
            raise CommandError(
                f"no single booster of yours starts with {args.draw!r}: see triad-client verify"
            )
    if not draws:
        raise CommandError("you opened no booster yet: triad-client booster opens one")
    commitment = (
        await client.call(stub.GetSeedCommitment, g.GetSeedCommitmentRequest())
    ).commitment
    if not args.json:
        console.print(
            f"Commitment in force: server seed hash {commitment.server_seed_hash[:16]}..., "
            f"client seed {commitment.client_seed!r}, next counter {commitment.next_counter}."
        )
    if args.client_seed:
        changed = await client.call(
            stub.SetClientSeed,
            g.SetClientSeedRequest(request_id=uuid.uuid4().hex, client_seed=args.client_seed),
        )
        if not args.json:
            console.print(
                f"Client seed set to {args.client_seed!r}: the server seed in force is revealed."
            )
            if changed.HasField("revealed_seed"):
                console.print(f"Revealed: {changed.revealed_seed.server_seed}")
    seeds = {
        s.seed_id: s
        for page in await pages(
            lambda token: client.call(
                stub.ListServerSeeds, g.ListServerSeedsRequest(page_size=200, page_token=token)
            )
        )
        for s in page.seeds
    }
    odds = (await client.call(stub.GetBoosterOdds, g.GetBoosterOddsRequest())).odds
    listed = await pages(
        lambda token: client.call(
            stub.ListCatalog, g.ListCatalogRequest(page_size=200, page_token=token)
        )
    )
    catalog = catalog_of([c for page in listed for c in page.characters])
    checks = [check(d, seeds.get(d.seed_id), catalog, slots_of(odds)) for d in draws]
    differs = [c for c in checks if c.problems]
    if args.json:
        print(as_json_checks(checks))
    else:
        table = Table(title=f"Boosters recomputed here ({ALGORITHM})", title_justify="left")
        for heading in ("booster", "counter", "cards", "verdict"):
            table.add_column(heading)
        for c in checks:
            names = ", ".join(copy.character.name for copy in c.draw.copies)
            table.add_row(c.draw.draw_id[:8], str(c.draw.counter), names, c.verdict)
        console.print(table)
        if any(c.pending for c in checks):
            console.print(
                "Boosters of the seed in force are checked once it is revealed: "
                "triad-client verify --client-seed NEW sets a new client seed and reveals it."
            )
        checked = sum(1 for c in checks if not c.pending)
        console.print(
            f"{checked - len(differs)} of {checked} checkable boosters match the seeds."
            if not differs
            else f"{len(differs)} booster(s) DIFFER from what the seeds give."
        )
    return 1 if differs else 0


def as_json_checks(checks: list[Check]) -> str:
    return json.dumps(
        {
            "boosters": [
                {
                    "drawId": c.draw.draw_id,
                    "counter": c.draw.counter,
                    "verified": not c.pending and not c.problems,
                    "pending": c.pending,
                    "problems": list(c.problems),
                }
                for c in checks
            ]
        }
    )


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    seeds = sub.add_parser("seed", parents=[common], help="the seed commitment; set a client seed")
    seed_sub = seeds.add_subparsers(dest="seed_command")
    seed_sub.add_parser("show", parents=[common], help="the commitment in force (the default)")
    setting = seed_sub.add_parser(
        "set", parents=[common], help="set your client seed (reveals the server seed in force)"
    )
    setting.add_argument("client_seed", help="1..64 printable ASCII characters")
    checking = sub.add_parser(
        "verify", parents=[common], help="recompute your boosters here and compare (FAIRNESS.md)"
    )
    checking.add_argument(
        "--client-seed", help="first set this client seed, revealing the server seed in force"
    )
    checking.add_argument("--draw", help="only this booster (its id or the start of it)")
