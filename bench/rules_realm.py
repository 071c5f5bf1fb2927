"""Realm positions and the Realm kernel's workload for the rules engine benchmark
(bench/rules.py; RULES.md 17, issue 20): random mid-game 3x3 positions with the Realm
state earlier placements would leave, every module on, and the check that the kernel
agrees with ``RealmBoard.place``.
"""

from __future__ import annotations

import random

from bench.report import Workload
from bench.rules_positions import capture_mix
from services.rules import ACE, Geometry
from services.rules.realm import (
    Alignment,
    CreatureType,
    Law,
    Moral,
    RealmBoard,
    RealmCard,
    RealmRules,
    RealmState,
)
from services.rules.realm import resolve as realm_resolve

ALL_REALM = RealmRules(
    same=True,
    plus=True,
    combo=True,
    type_advantage=True,
    clash=True,
    lair=True,
    resistance=True,
    cursed=True,
)
REALM_TARGET = 150_000
"""Realm placements per second issue 20 asks, every module on, one core."""
LEGENDARY_CHANCE = 0.2
HEX_SPENT_CHANCE = 0.3
ROT_PENDING: tuple[int, ...] = (0, 0, 0, 0, 1, 2)
"""Pending Rot on a board card: none most often, sometimes one or two."""
SPENT_CHANCE = 0.3
"""Each seat's Resistance, and the mover's Lair, already spent."""
LAIR_CHANCE = 0.25
"""The mover declares Lair when it still has it."""

RealmCase = tuple[
    tuple[RealmCard | None, ...], tuple[int | None, ...], RealmState, int, RealmCard, int, bool
]
"""What the Realm ``resolve`` takes besides geometry and rules: cards, owners, state,
cell, card, player, Lair."""


def random_realm_card(rng: random.Random) -> RealmCard:
    """Uniform sides, creature type and alignment words; Legendary one time in five."""
    return RealmCard(
        (rng.randint(1, ACE), rng.randint(1, ACE), rng.randint(1, ACE), rng.randint(1, ACE)),
        kind=rng.choice(REALM_TYPES),
        alignment=Alignment(rng.choice(LAWS), rng.choice(MORALS)),
        legendary=rng.random() < LEGENDARY_CHANCE,
    )


REALM_TYPES: tuple[CreatureType, ...] = tuple(CreatureType)
LAWS: tuple[Law, ...] = tuple(Law)
MORALS: tuple[Moral, ...] = tuple(Moral)


def random_realm_case(rng: random.Random, geometry: Geometry) -> RealmCase:
    """A random mid-game Realm position like :func:`random_midgame` (1..8 occupied
    cells), with the state earlier placements would leave: spent hexes, pending Rot,
    spent Resistances and Lair, and a Lair declared now and then."""
    size = geometry.size
    occupied = set(rng.sample(geometry.playable, rng.randint(1, len(geometry.playable) - 1)))
    cards = tuple(random_realm_card(rng) if c in occupied else None for c in range(size))
    owners = tuple(rng.randint(0, 1) if c in occupied else None for c in range(size))
    player = rng.randint(0, 1)
    lair_spent = rng.random() < SPENT_CHANCE
    state = RealmState(
        tuple(c in occupied and rng.random() < HEX_SPENT_CHANCE for c in range(size)),
        tuple(rng.choice(ROT_PENDING) if c in occupied else 0 for c in range(size)),
        (rng.random() < SPENT_CHANCE, rng.random() < SPENT_CHANCE),
        (lair_spent, False) if player == 0 else (False, lair_spent),
    )
    cell = rng.choice([c for c in geometry.playable if c not in occupied])
    lair = not lair_spent and rng.random() < LAIR_CHANCE
    return cards, owners, state, cell, random_realm_card(rng), player, lair


def realm_cross_check(
    geometry: Geometry, rules: RealmRules, cases: list[RealmCase]
) -> dict[str, float]:
    """The kernel must agree with ``RealmBoard.place`` on every position and leave its
    inputs alone; the mix says what the workload exercised."""
    found, saved = [], 0
    for cards, owners, state, cell, card, player, lair in cases:
        placement = realm_resolve(geometry, cards, owners, state, cell, card, player, rules, lair)
        board = RealmBoard.empty(geometry, rules)
        for c, (on, owner) in enumerate(zip(cards, owners, strict=True)):
            if on is not None and owner is not None:
                board = board.with_card(c, on, owner)
        placed, again = board.with_state(state).place(cell, card, player, lair)
        if again != placement or placed.owners != placement.owners:
            raise RuntimeError(f"Realm kernel and RealmBoard.place disagree on cell {cell}")
        found.append(placement.captures)
        saved += bool(placement.saved)
    mix = capture_mix(found)
    mean = mix.pop("mean_captures_per_placement")  # last in the report, as it always was
    return mix | {
        "placements_with_a_capture_cancelled": round(saved / len(cases), 4),
        "mean_captures_per_placement": mean,
    }


def realm_workload(geometry: Geometry, rules: RealmRules, cases: list[RealmCase]) -> Workload:
    def run(loops: int) -> int:
        kernel = realm_resolve
        for _ in range(loops):
            for cards, owners, state, cell, card, player, lair in cases:
                kernel(geometry, cards, owners, state, cell, card, player, rules, lair)
        return loops * len(cases)

    return Workload(
        "realm_resolve",
        "placements/s",
        "Realm resolve() on pre-generated random mid-game 3x3 positions with their Realm "
        "state, every module on; returns new owners and state (inputs untouched)",
        run,
    )
