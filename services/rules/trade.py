"""The trade rules (RULES.md 7, 13): what changes hands after a match between two
players. The matchmaker offers them at tables, the match reports the one in force when
it ends and the collection settles it; all three speak of this one enum."""

from __future__ import annotations

from enum import StrEnum


class TradeRule(StrEnum):
    """What changes hands after a match (RULES.md 7, 13)."""

    NONE = "none"
    ONE = "one"
    """The winner chooses one copy of the loser's original deck."""
    DIRECT = "direct"
    """Each player receives the opponent's copies they own on the final board."""
    DIFFERENCE = "difference"
    """The winner chooses d copies of the loser's deck, d the score difference."""
    ALL = "all"
    """The winner receives the loser's whole original deck."""

    @property
    def label(self) -> str:
        """As the rulebook names it ("Trade One", "Direct"); empty for None."""
        if self is TradeRule.NONE:
            return ""
        return "Trade One" if self is TradeRule.ONE else self.value.capitalize()
