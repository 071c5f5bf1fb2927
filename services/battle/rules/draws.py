"""The random draws of a battle, made by the caller from an explicit generator and then
recorded: the engine itself never draws."""

from __future__ import annotations

from random import Random

from services.battle.rules.content import Roster


def shuffled_decks(
    roster: Roster, teams: tuple[tuple[str, ...], tuple[str, ...]], rng: Random
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Each team's 12 cards in a shuffled order (BATTLE.md 3), from ``rng`` only."""
    decks = []
    for members in teams:
        cards = [c for m in members for c in roster.characters[m].cards]
        rng.shuffle(cards)
        decks.append(tuple(cards))
    return decks[0], decks[1]
