"""The Realm kernel against a naive reading of RULES.md section 17 on random positions.

The reference below is written for clarity, not speed: it recomputes every modified
value from the rulebook's list each time, walks the board by rows and columns and
tries every subset for Plus. The kernel (with its lazy copies, cached neighbour tables
and inlined checks) must agree with it on captures, cancellations, comparisons (with
the modifiers each side took), owners and the state handed back, on 3x3 and 4x4
boards with blocked cells and any modules.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from services.rules import Capture, Cause, Geometry
from services.rules.realm import (
    Alignment,
    Comparison,
    CreatureType,
    Law,
    Modifier,
    ModifierKind,
    Moral,
    Protection,
    RealmCard,
    RealmPlacement,
    RealmRules,
    RealmState,
    Saved,
    resolve,
)

T = CreatureType
ADVANTAGE = {  # (type, side) -> the foes it gains +1 against, attacking or defending
    (T.DRAGON, 0): {T.GIANT, T.HUMANOID},
    (T.UNDEAD, 3): {T.HUMANOID, T.BEAST},
    (T.FIEND, 0): {T.CELESTIAL},
    (T.CELESTIAL, 3): {T.FIEND, T.UNDEAD},
    (T.ABERRATION, 3): {T.HUMANOID},
}
WARD = {T.CONSTRUCT, T.CELESTIAL}
EMBER = {T.DRAGON, T.ELEMENTAL, T.FIEND}
ROT = {T.UNDEAD, T.OOZE, T.PLANT}
SILENCE = {T.ABERRATION, T.FEY}
BIND = {T.GIANT, T.HUMANOID, T.BEAST}


def neighbours(geometry: Geometry, cell: int) -> list[tuple[int, int, int]]:
    """(cell, this card's side, its side) for each playable neighbour, ascending."""
    row, col = divmod(cell, geometry.cols)
    found = []
    for side, d_row, d_col in ((0, -1, 0), (3, 0, -1), (1, 0, 1), (2, 1, 0)):
        r, c = row + d_row, col + d_col
        n = r * geometry.cols + c
        if 0 <= r < geometry.rows and 0 <= c < geometry.cols and n not in geometry.blocked:
            found.append((n, side, (side + 2) % 4))
    return found


def reference(
    geometry: Geometry,
    cards: list[RealmCard | None],
    owners: list[int | None],
    state: RealmState,
    cell: int,
    card: RealmCard,
    player: int,
    rules: RealmRules,
    lair: bool,
) -> RealmPlacement:
    enemy = 1 - player
    lair = lair and rules.lair
    board = list(cards)
    board[cell] = card
    own = list(owners)
    spent = list(state.hex_spent)
    spent[cell] = False
    rot = list(state.rot)
    rot[cell] = 0
    resistance = list(state.resistance_spent)
    captures: list[Capture] = []
    saved: list[Saved] = []
    comparisons: list[Comparison] = []
    embered: set[int] = set()
    bitten: set[int] = set()

    def value(at: int, side: int, foe_at: int, attacking: bool) -> tuple[int, list[Modifier]]:
        """The modified value of a side, and the modifiers that made it, in the
        rulebook's list order (Clash is added by ``compare``)."""
        me, foe = board[at], board[foe_at]
        assert me is not None and foe is not None
        v = me.sides[side]
        took: list[Modifier] = []

        def add(kind: ModifierKind, amount: int) -> None:
            nonlocal v
            v += amount
            took.append(Modifier(kind, amount))

        if rules.cursed and not attacking and me.kind in BIND:
            add(ModifierKind.BIND, -v)
        if rules.type_advantage:
            if foe.kind in ADVANTAGE.get((me.kind, side), set()):
                add(ModifierKind.TYPE_ADVANTAGE, 1)
            if not attacking and me.kind is T.CONSTRUCT and side == 2:
                add(ModifierKind.GUARD, 1)
        if lair and at == cell:
            add(ModifierKind.LAIR, 1)
        if rules.cursed:
            if me.kind in EMBER and (at == cell or not state.hex_spent[at]):
                add(ModifierKind.EMBER, 1)  # the placed card's Ember is whole
                embered.add(at)
            if not attacking and state.rot[at]:
                add(ModifierKind.ROT, -state.rot[at])
                bitten.add(at)
        return v, took

    def compare(at: int, side: int, foe_at: int, foe_side: int) -> bool:
        attack, ups = value(at, side, foe_at, True)
        defence, downs = value(foe_at, foe_side, at, False)
        a, d = board[at], board[foe_at]
        assert a is not None and d is not None
        clashing = {a.alignment.law, d.alignment.law} == {Law.LAWFUL, Law.CHAOTIC} or {
            a.alignment.moral,
            d.alignment.moral,
        } == {Moral.GOOD, Moral.EVIL}
        if rules.clash and clashing and attack != defence:
            higher = ups if attack > defence else downs
            higher.append(Modifier(ModifierKind.ALIGNMENT_CLASH, 1))
            attack, defence = (attack + 1, defence) if attack > defence else (attack, defence + 1)
        comparisons.append(Comparison(at, foe_at, attack, defence, tuple(ups), tuple(downs)))
        return attack > defence

    def attempt(n: int, cause: Cause) -> bool:
        target = board[n]
        assert target is not None
        if rules.cursed and target.kind in WARD and not spent[n]:
            spent[n] = True
            saved.append(Saved(n, cause, Protection.WARD))
            return False
        if rules.resistance and target.legendary and not resistance[enemy]:
            resistance[enemy] = True
            saved.append(Saved(n, cause, Protection.RESISTANCE))
            return False
        own[n] = player
        captures.append(Capture(n, cause))
        return True

    def printed(n: int, side: int) -> int:
        there = board[n]
        assert there is not None
        return there.sides[side]

    near = [(n, m, t) for n, m, t in neighbours(geometry, cell) if board[n] is not None]
    special: dict[int, Cause] = {}
    if rules.same:
        matching = [n for n, m, t in near if card.sides[m] == printed(n, t)]
        if len(matching) >= 2:
            special.update((n, Cause.SAME) for n in matching if own[n] == enemy)
    if rules.plus:
        foes = [(n, m, t) for n, m, t in near if own[n] == enemy]
        for size in range(2, len(foes) + 1):
            for group in combinations(foes, size):
                mine = sum(card.sides[m] for _, m, _ in group)
                theirs = sum(printed(n, t) for n, _, t in group)
                if mine == theirs:
                    for n, _, _ in group:
                        special.setdefault(n, Cause.PLUS)
    for n in sorted(special):
        attempt(n, special[n])
    for n, m, t in near:
        if own[n] == enemy and compare(cell, m, n, t):
            attempt(n, Cause.BASIC)
    if rules.combo and not (rules.cursed and card.kind in SILENCE):
        queue = sorted(c.cell for c in captures)
        for attacker in queue:
            for n, m, t in neighbours(geometry, attacker):
                taken = board[n] is not None and own[n] == enemy and compare(attacker, m, n, t)
                if taken and attempt(n, Cause.COMBO):
                    queue.append(n)
    for at in embered:
        spent[at] = True
    for at in bitten:
        rot[at] = 0
    own[cell] = player
    if rules.cursed and card.kind in ROT:
        for n, _, _ in near:
            if own[n] == enemy:
                rot[n] += 1
    lair_spent = list(state.lair_spent)
    if lair:
        lair_spent[player] = True
    return RealmPlacement(
        cell,
        tuple(captures),
        tuple(saved),
        tuple(comparisons),
        tuple(own),
        RealmState(
            tuple(spent),
            tuple(rot),
            (resistance[0], resistance[1]),
            (lair_spent[0], lair_spent[1]),
        ),
    )


def random_card(rng: random.Random, low: int = 1) -> RealmCard:
    return RealmCard(
        (rng.randint(low, 10), rng.randint(low, 10), rng.randint(low, 10), rng.randint(low, 10)),
        kind=rng.choice(list(CreatureType)),
        alignment=Alignment(rng.choice(list(Law)), rng.choice(list(Moral))),
        legendary=rng.random() < 0.3,
    )


@pytest.mark.parametrize("seed", range(6))
def test_the_kernel_agrees_with_a_naive_reading_of_the_rulebook(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(400):
        rows = cols = rng.choice((3, 4))
        size = rows * cols
        blocked = frozenset(rng.sample(range(size), rng.randint(0, 2)))
        geometry = Geometry.of(rows, cols, blocked)
        open_cells = [c for c in range(size) if c not in blocked]
        occupied = set(rng.sample(open_cells, rng.randint(1, len(open_cells) - 1)))
        # Small side values make Same, Plus and ties common.
        low = rng.choice((1, 4))
        cards = [random_card(rng, low) if c in occupied else None for c in range(size)]
        owners = [rng.randint(0, 1) if c in occupied else None for c in range(size)]
        player = rng.randint(0, 1)
        state = RealmState(
            tuple(c in occupied and rng.random() < 0.3 for c in range(size)),
            tuple(rng.choice((0, 0, 1, 2)) if c in occupied else 0 for c in range(size)),
            (rng.random() < 0.3, rng.random() < 0.3),
            (False, False),
        )
        rules = RealmRules(*(rng.random() < 0.6 for _ in range(8)))
        cell = rng.choice([c for c in open_cells if c not in occupied])
        card = random_card(rng, low)
        lair = rng.random() < 0.3
        got = resolve(geometry, cards, owners, state, cell, card, player, rules, lair)
        want = reference(geometry, cards, owners, state, cell, card, player, rules, lair)
        assert got == want, (rules, cards, owners, state, cell, card, player, lair)
