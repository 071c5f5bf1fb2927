"""Guessing the opponent's hidden cards from public information only.

Under Closed and Three Open a bot does not know some of the opponent's unplayed cards.
It searches a few *samples*: complete positions in which the hidden slots hold cards
drawn from what is still possible. The draw sees only what the seat sees: the number of
hidden cards, the opposing cards already played or revealed, and, when the caller gives
one, the catalog of characters (public game data). Never the real hidden cards: the
:class:`SeatKnowledge` it reads cannot hold them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from random import Random

from services.match.bots.knowledge import SeatKnowledge
from services.rules import ACE, Card, Element, Sides
from services.rules.deck import BOARD_HANDS, DECK_SIZE, star_limits

ELEMENTS: tuple[Element | None, ...] = (*Element, None)


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """A character as public game data: what a hidden card may be. ``weight`` is how
    likely it is to turn up in a deck, relative to the others (1 if unknown)."""

    character_id: str
    stars: int
    element: Element | None
    sides: Sides
    weight: float = 1.0


def sample_unseen(
    seat: SeatKnowledge, rng: Random, catalog: Sequence[CatalogEntry] | None = None
) -> tuple[Card, ...]:
    """Cards for the opponent's hidden slots, drawn from what is still possible.

    With a catalog: characters the opponent has not shown yet (a hand holds different
    characters) that keep the star limits of the hand size the board deals (RULES.md
    11), by weight. Without one, or
    when the catalog cannot complete a legal deck: random cards whose sides are drawn
    uniformly from the side values of every card in sight (the seat's hand, the board,
    the opponent's revealed cards), and elements likewise. Decks of one match come from
    the same collection economy, so that is what "plausible" can mean without a
    catalog; uniform 1..A sides would make every hidden card a threat.
    """
    count = seat.opponent_hidden
    if count == 0:
        return ()
    if catalog:
        drawn = _from_catalog(seat, rng, catalog, count)
        if drawn is not None:
            return drawn
    visible = [*seat.hand, *seat.opponent_known, *(e[0] for e in seat.board if e is not None)]
    values = [side for card in visible for side in card.sides] or list(range(1, ACE + 1))
    elements = [card.element for card in visible] or list(ELEMENTS)
    return tuple(_plausible_card(rng, values, elements, i) for i in range(count))


def _plausible_card(
    rng: Random, values: Sequence[int], elements: Sequence[Element | None], index: int
) -> Card:
    sides = (rng.choice(values), rng.choice(values), rng.choice(values), rng.choice(values))
    return Card(sides, rng.choice(elements), f"unseen-{index}")


def _from_catalog(
    seat: SeatKnowledge, rng: Random, catalog: Sequence[CatalogEntry], count: int
) -> tuple[Card, ...] | None:
    used = {seen.character_id for seen in seat.opponent_seen}
    stars = [seen.stars for seen in seat.opponent_seen]
    most_fives, most_high = star_limits(BOARD_HANDS.get(seat.rows, DECK_SIZE))
    drawn: list[Card] = []
    for index in range(count):
        fives = stars.count(5)
        high = fives + stars.count(4)
        allowed = [
            entry
            for entry in catalog
            if entry.character_id not in used
            and not (entry.stars == 5 and fives >= most_fives)
            and not (entry.stars >= 4 and high >= most_high)
        ]
        if not allowed:
            return None
        entry = rng.choices(allowed, weights=[e.weight for e in allowed])[0]
        used.add(entry.character_id)
        stars.append(entry.stars)
        drawn.append(Card(entry.sides, entry.element, f"unseen-{index}"))
    return tuple(drawn)
