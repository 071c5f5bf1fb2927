"""Typed rule violations. Each message says what is wrong and what would be right."""

from __future__ import annotations


class RuleViolation(ValueError):
    """A move or a setup that the rules forbid."""


class CellOutsideBoard(RuleViolation):
    pass


class CellBlocked(RuleViolation):
    pass


class CellOccupied(RuleViolation):
    pass


class CardNotInHand(RuleViolation):
    pass


class NotYourTurn(RuleViolation):
    pass


class GameOver(RuleViolation):
    pass
