"""Placement resolution at a Realm table, RULES.md section 17, in the rulebook's order.

When X places P on c:

1. **Same and Plus** on printed values, on the board as it was before the placement:
   one special set (a card in both is ``same``). Realm Plus takes every set of two or
   more *enemy* neighbours whose facing sides add up to P's sides facing them.
2. **Basic**: P attacks every enemy neighbour, in ascending cell order, on modified
   values.
3. **Combo**: every card captured in steps 1-2 (ascending), then each card the chain
   captures, attacks its enemy neighbours (ascending) on modified values.

Every capture is an *attempt* (the special set ascending, then basic, then the Combo
queue): Ward, then Legendary Resistance, may cancel it; the card then stays an enemy,
starts no Combo, and a later attempt of the same placement may take it.

The per-match state the modules need (Ward/Ember spent, pending Rot, Resistance and
Lair spent) is a :class:`RealmState` that comes in and goes out; nothing is kept here.
The interpretations of the rulebook are listed in :mod:`services.rules.realm`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from services.rules.geometry import Contact, Contacts, Geometry
from services.rules.realm.cards import Hex, RealmCard
from services.rules.realm.modifiers import ADVANTAGE, GUARD, clashes
from services.rules.realm.outcome import (
    Comparison,
    LairSpent,
    Modifier,
    ModifierKind,
    Protection,
    RealmPlacement,
    RealmRules,
    RealmState,
    Saved,
)
from services.rules.resolve import Capture, Cause, Owners, Touching, _same

_PLUS, _BASIC, _COMBO = Cause.PLUS, Cause.BASIC, Cause.COMBO
_WARD, _EMBER, _ROT, _SILENCE, _BIND = Hex.WARD, Hex.EMBER, Hex.ROT, Hex.SILENCE, Hex.BIND

_M = ModifierKind
_TYPE, _GUARD, _LAIR, _EMBERED, _CLASH = (
    (Modifier(kind, 1),)
    for kind in (_M.TYPE_ADVANTAGE, _M.GUARD, _M.LAIR, _M.EMBER, _M.ALIGNMENT_CLASH)
)
"""The +1 modifiers, each as the one-item tuple a comparison records."""

Cards = Sequence[RealmCard | None]


_SUBSETS = {
    k: [s for size in range(2, k + 1) for s in combinations(range(k), size)] for k in range(5)
}
"""Every set of two or more positions among k enemy neighbours (at most four)."""


class _Work:
    """The placement being resolved: the working owners and state, and what it records."""

    __slots__ = (
        "captured",
        "captures",
        "card",
        "cards",
        "cell",
        "clash",
        "comparisons",
        "cursed",
        "embered",
        "enemy",
        "hex_spent",
        "lair",
        "owners",
        "player",
        "resistance",
        "resistance_spent",
        "rot",
        "rotted",
        "saved",
        "type_advantage",
    )

    def __init__(
        self,
        cards: Cards,
        owners: Sequence[int | None],
        state: RealmState,
        cell: int,
        card: RealmCard,
        player: int,
        rules: RealmRules,
        lair: bool,
    ) -> None:
        self.cards = cards
        self.owners = list(owners)
        self.cell = cell
        self.card = card
        self.player = player
        self.enemy = 1 - player
        self.type_advantage = rules.type_advantage
        self.clash = rules.clash
        self.cursed = rules.cursed
        self.resistance = rules.resistance
        self.lair = 1 if lair else 0
        self.hex_spent: Sequence[bool] = state.hex_spent  # copied on the first change
        if state.hex_spent[cell]:
            _spend(self, cell, False)  # a card just placed has its hex whole
        self.rot = state.rot
        self.resistance_spent = state.resistance_spent
        self.captures: list[Capture] = []
        self.captured: list[int] = []
        self.saved: list[Saved] = []
        self.comparisons: list[Comparison] = []
        self.embered: set[int] = set()
        self.rotted: set[int] = set()


def resolve(
    geometry: Geometry,
    cards: Cards,
    owners: Sequence[int | None],
    state: RealmState,
    cell: int,
    card: RealmCard,
    player: int,
    rules: RealmRules,
    lair: bool = False,
) -> RealmPlacement:
    """Resolve ``player`` (0 or 1) placing ``card`` on the empty ``cell``, declaring
    Lair when ``lair``. ``cards`` and ``owners`` describe the board before the
    placement; ``state`` is the match's Realm state before it. Nothing is mutated: the
    owners and state after the placement are in the result.

    Raises :class:`LairSpent` when Lair is declared (with the module on) by a player who
    has already used it; a Lair declared while the module is off does nothing.
    """
    lair = lair and rules.lair
    if lair and state.lair_spent[player]:
        raise LairSpent("Lair is once per match, and this player has already declared it")
    contacts = geometry.ascending
    work = _Work(cards, owners, state, cell, card, player, rules, lair)
    sides = card.sides
    touching: Touching = [
        (n, sides[mine], other.sides[theirs])
        for n, mine, theirs in contacts[cell]
        if (other := cards[n]) is not None
    ]
    special: dict[int, Cause] = {}
    if rules.same:  # the standard Same, on printed values; no Same Wall here
        _same(touching, 0, work.owners, work.enemy, special)
    if rules.plus:
        _plus(touching, work.owners, work.enemy, special)
    for n in sorted(special):
        _attempt(work, n, special[n])
    _basic(work, contacts[cell])
    if rules.combo and work.captured and not (work.cursed and card.hex is _SILENCE):
        _combo(work, contacts)
    return _settle(work, contacts[cell], state, lair)


def _plus(touching: Touching, owners: Owners, enemy: int, special: dict[int, Cause]) -> None:
    """Realm Plus, on printed values: every set of two or more enemy neighbours whose
    sides facing P add up to P's sides facing them joins the special set."""
    enemies = [(n, mine - theirs) for n, mine, theirs in touching if owners[n] == enemy]
    if len(enemies) < 2:
        return
    for subset in _SUBSETS[len(enemies)]:
        if sum(enemies[i][1] for i in subset) == 0:
            for i in subset:
                n = enemies[i][0]
                if n not in special:  # a card in both sets is `same`
                    special[n] = _PLUS


def _attempt(work: _Work, n: int, cause: Cause) -> bool:
    """One capture attempt on the enemy card on ``n``: the card's Ward cancels it if
    whole (Cursed), else its owner's Legendary Resistance if unspent; otherwise it
    changes owner. Returns whether it did."""
    target = work.cards[n]
    assert target is not None
    if work.cursed and target.hex is _WARD and not work.hex_spent[n]:
        _spend(work, n, True)
        work.saved.append(Saved(n, cause, Protection.WARD))
        return False
    if work.resistance and target.legendary:
        spent = work.resistance_spent
        if not spent[work.enemy]:
            work.resistance_spent = (True, spent[1]) if work.enemy == 0 else (spent[0], True)
            work.saved.append(Saved(n, cause, Protection.RESISTANCE))
            return False
    work.owners[n] = work.player
    work.captures.append(Capture(n, cause))
    work.captured.append(n)
    return True


def _spend(work: _Work, cell: int, spent: bool) -> None:
    """Mark the hex of the card on ``cell`` spent (or whole), copying the state's
    tuple on the first change."""
    hex_spent = work.hex_spent
    if not isinstance(hex_spent, list):
        hex_spent = work.hex_spent = list(hex_spent)
    hex_spent[cell] = spent


def _wins(
    work: _Work,
    attacker: int,
    card: RealmCard,
    side: int,
    defender: int,
    foe: RealmCard,
    foe_side: int,
) -> bool:
    """One basic or Combo comparison: is the attacker's modified value strictly higher?
    Recorded with the modifiers each side took (shared one-item tuples: the bot's
    search runs this in its inner loop)."""
    attack = card.sides[side]
    defence = foe.sides[foe_side]
    ups: tuple[Modifier, ...] = ()
    downs: tuple[Modifier, ...] = ()
    if work.cursed and foe.hex is _BIND:
        downs = (Modifier(_M.BIND, -defence),)
        defence = 0
    if work.type_advantage:
        if foe.kind in ADVANTAGE[card.kind][side]:
            attack += 1
            ups = _TYPE
        if card.kind in ADVANTAGE[foe.kind][foe_side]:
            defence += 1
            downs += _TYPE
        if GUARD[foe.kind] == foe_side:
            defence += 1
            downs += _GUARD
    if attacker == work.cell and work.lair:
        attack += 1
        ups += _LAIR
    if work.cursed:  # each hex's function runs only for the cards that carry it
        if card.hex is _EMBER and _ember(work, attacker):
            attack += 1
            ups += _EMBERED
        if foe.hex is _EMBER and _ember(work, defender):
            defence += 1
            downs += _EMBERED
        if work.rot[defender]:
            rot = _rot(work, defender)
            defence -= rot
            downs += (Modifier(_M.ROT, -rot),)
    if work.clash and attack != defence and clashes(card.alignment, foe.alignment):
        if attack > defence:
            attack += 1
            ups += _CLASH
        else:
            defence += 1
            downs += _CLASH
    work.comparisons.append(Comparison(attacker, defender, attack, defence, ups, downs))
    return attack > defence


def _ember(work: _Work, cell: int) -> int:
    """Ember (the card on ``cell`` carries it): +1 on every side throughout the first
    placement in which the card takes part in a basic or Combo comparison; spent when
    that placement ends."""
    if not work.hex_spent[cell]:
        work.embered.add(cell)
        return 1
    return 0


def _rot(work: _Work, cell: int) -> int:
    """Pending Rot: -1 per Rot on every defence of the next placement in which the card
    defends; cleared when that placement ends."""
    work.rotted.add(cell)
    return work.rot[cell]


def _basic(work: _Work, near: tuple[Contact, ...]) -> None:
    """Basic: P attacks every enemy neighbour, ascending, on modified values."""
    cards, owners, enemy, cell, card = work.cards, work.owners, work.enemy, work.cell, work.card
    for n, mine, theirs in near:
        if owners[n] == enemy:
            foe = cards[n]
            assert foe is not None
            if _wins(work, cell, card, mine, n, foe, theirs):
                _attempt(work, n, _BASIC)


def _combo(work: _Work, contacts: Contacts) -> None:
    """Realm Combo: every card captured so far (ascending), then each card the chain
    captures, attacks its enemy neighbours (ascending) on modified values."""
    cards, owners, enemy = work.cards, work.owners, work.enemy
    queue = sorted(work.captured)
    for attacker in queue:  # the queue grows while we walk it
        card = cards[attacker]
        assert card is not None
        for n, mine, theirs in contacts[attacker]:
            if owners[n] == enemy:
                foe = cards[n]
                assert foe is not None
                if _wins(work, attacker, card, mine, n, foe, theirs) and _attempt(work, n, _COMBO):
                    queue.append(n)


def _settle(
    work: _Work, near: tuple[Contact, ...], state: RealmState, lair: bool
) -> RealmPlacement:
    """The placement's end: Embers used are spent, Rots that bit are cleared, a placed
    Rot card marks the neighbours that are enemy now, and P stands on its cell."""
    owners, cell, player = work.owners, work.cell, work.player
    owners[cell] = player
    for used in work.embered:
        _spend(work, used, True)
    hex_spent = work.hex_spent
    rot = state.rot
    if work.rotted or rot[cell] or (work.cursed and work.card.hex is _ROT):
        rot_list = list(rot)
        for bitten in work.rotted:
            rot_list[bitten] = 0
        rot_list[cell] = 0  # a card just placed has nothing pending
        if work.cursed and work.card.hex is _ROT:
            enemy = work.enemy
            for n, _, _ in near:
                if owners[n] == enemy:
                    rot_list[n] += 1
        rot = tuple(rot_list)
    lair_spent = state.lair_spent
    if lair:
        lair_spent = (True, lair_spent[1]) if player == 0 else (lair_spent[0], True)
    after = RealmState(
        hex_spent if isinstance(hex_spent, tuple) else tuple(hex_spent),
        rot,
        work.resistance_spent,
        lair_spent,
    )
    return RealmPlacement(
        cell,
        tuple(work.captures),
        tuple(work.saved),
        tuple(work.comparisons),
        tuple(owners),
        after,
    )
