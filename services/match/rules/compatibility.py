"""Which optional rules may be combined in one match (RULES.md 6, 11, 12, 16). The one
place these checks live: the match service refuses a CreateMatch breaking them, the
matchmaker a custom table, a practice match or a Roulette draw breaking them.

Pure: the rule flags in, the broken combination named out (None when it is fine).
"""

from __future__ import annotations

TRADE_ONE_NEEDS = ("Closed visibility", "Same", "Plus", "Combo")
SUDDEN_DEATH_MODES = ("custom", "practice")
"""RULES.md 12, 16: Sudden Death is a table rule: custom tables, and practice with a
table's rules. It combines with every other rule (a trade rule settles from the final
round)."""


def sudden_death_problem(mode: str) -> str | None:
    """Why Sudden Death cannot be played in ``mode`` (its lower-case name), or None."""
    if mode in SUDDEN_DEATH_MODES:
        return None
    return (
        f"Sudden Death is a table rule: host a custom table (or practise with one's "
        f"rules) to play it, not {mode.capitalize()}"
    )


def rule_set_problem(
    *, closed: bool, same: bool, plus: bool, combo: bool, trade_one: bool
) -> str | None:
    """Why these rules cannot be played together, or None.

    ``closed``: the hands are hidden (Closed visibility). Combo chains from Same or Plus
    captures, so alone it is no rule; Trade One is played for keeps, only with Closed
    visibility and Same, Plus and Combo all on.
    """
    if combo and not (same or plus):
        return "Combo needs Same or Plus on: it chains from their captures"
    if trade_one:
        missing = [
            name
            for name, on in zip(TRADE_ONE_NEEDS, (closed, same, plus, combo), strict=True)
            if not on
        ]
        if missing:
            return (
                "Trade One needs Closed visibility with Same, Plus and Combo on; "
                f"this rule set lacks {', '.join(missing)}"
            )
    return None
