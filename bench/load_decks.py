"""The cards a simulated player of the load generator plays: the strongest legal five
of its free copies (RULES.md section 2), and the strongest card of a Trade One offer."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb

from services.rules.deck import DECK_SIZE, within_star_limits


def strength(sides: pb.Sides) -> int:
    return int(sides.top + sides.right + sides.bottom + sides.left)


def strongest_deck(copies: list[pb.OwnedCopy]) -> list[str] | None:
    """Five free copies of five different characters, at most one 5★ and at most two
    of 4★ or more (RULES.md section 2, as the match service's deck rules count them),
    strongest first; ``None`` if there are not."""
    chosen: list[str] = []
    characters: set[str] = set()
    fives = fours = 0
    for copy in sorted(copies, key=lambda c: -strength(c.printed_sides)):
        stars = copy.character.stars
        if copy.character.character_id in characters:
            continue
        if not within_star_limits(fives + (stars >= 5), fours + (stars == 4), DECK_SIZE):
            continue
        chosen.append(copy.copy_id)
        characters.add(copy.character.character_id)
        fives += stars >= 5
        fours += stars == 4
        if len(chosen) == DECK_SIZE:
            return chosen
    return None
