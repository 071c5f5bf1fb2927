"""Which optional rules and boards may be combined in one match (RULES.md 6, 11, 12, 16,
17). The one
place these checks live: the match service refuses a CreateMatch breaking them, the
matchmaker a custom table, a practice match or a Roulette draw breaking them.

Pure: the rule flags in, the broken combination named out (None when it is fine).
"""

from __future__ import annotations

TRADE_ONE_NEEDS = ("Closed visibility", "Same", "Plus", "Combo")
"""What every trade rule needs (RULES.md 6, 13), Trade One first."""
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
    *,
    closed: bool,
    same: bool,
    plus: bool,
    combo: bool,
    trade: str = "",
    trade_one: bool = False,
    realm: bool = False,
    same_wall: bool = False,
) -> str | None:
    """Why these rules cannot be played together, or None.

    ``closed``: the hands are hidden (Closed visibility). ``trade``: the trade rule's
    name as a player reads it ("Trade One", "Direct", "Difference", "All"), empty for
    None. Combo chains from Same or Plus captures, so alone it is no rule; a trade rule
    is played for keeps, only with Closed visibility and Same, Plus and Combo all on
    (RULES.md 13 Decision: Direct with All Open is refused like Trade One).
    ``trade_one=True`` says ``trade="Trade One"`` (callers that know only that rule).
    ``realm``: the Realm family (RULES.md 17), whose Combo any capture starts, so it
    may be on alone. ``same_wall``: Same Wall (RULES.md 4) only adds matches to Same, so
    without Same it would be shown on the table and do nothing (found from outside); a
    Realm table refuses it anyway (``realm_problem``).
    """
    if combo and not (same or plus) and not realm:
        return "Combo needs Same or Plus on: it chains from their captures"
    if same_wall and not same and not realm:
        return "Same Wall needs Same on: an A facing the board edge counts as one more Same match"
    trade = trade or ("Trade One" if trade_one else "")
    if trade:
        missing = [
            name
            for name, on in zip(TRADE_ONE_NEEDS, (closed, same, plus, combo), strict=True)
            if not on
        ]
        if missing:
            return (
                f"{trade} needs Closed visibility with Same, Plus and Combo on; "
                f"this rule set lacks {', '.join(missing)}"
            )
    return None


BOARDS = (3, 4, 5)
"""RULES.md 11: the boards a table plays, by side length."""
MAX_BLOCKED = 5
"""RULES.md 11: a 5x5 board blocks 0 to 5 cells."""


def board_problem(
    *, rows: int, cols: int, blocked: int, house_hands: bool, trades: bool, realm: bool = False
) -> str | None:
    """Why a table cannot be played on this board (RULES.md 11), or None.

    ``blocked``: how many cells are blocked; ``trades``: a trade rule other than None;
    ``realm``: a Realm table (RULES.md 17), which may deal house hands on 3x3 too.
    """
    if rows != cols or rows not in BOARDS:
        return f"a table plays on a 3x3, 4x4 or 5x5 board, not {rows}x{cols}"
    if blocked and rows != 5:
        return (
            f"blocked cells are for the 5x5 board only: a {rows}x{cols} table has none "
            f"(asked for {blocked})"
        )
    if not 0 <= blocked <= MAX_BLOCKED:
        return f"a 5x5 table blocks 0 to {MAX_BLOCKED} cells, not {blocked}"
    if house_hands and rows == 3 and not realm:
        return (
            "house hands are dealt on the 4x4 and 5x5 boards (or at a Realm table): "
            "choose one, or bring decks"
        )
    if house_hands and trades:
        return (
            "house hands never trade: their cards belong to nobody; choose the trade rule "
            "None, or bring decks"
        )
    return None


REALM_BOARDS = (3, 4)
"""RULES.md 17: a Realm table plays on 3x3 or the 4x4 Great Cloth."""


def realm_problem(
    *, rows: int, cols: int, blocked: int, elemental: bool, same_wall: bool, trades: bool
) -> str | None:
    """Why a Realm table (RULES.md 17) cannot be played with these rules, or None: any
    module set goes, on 3x3 or the 4x4 Great Cloth, without Elemental or Same Wall (not
    Realm modules), never for keeps."""
    if rows != cols or rows not in REALM_BOARDS:
        return f"a Realm table plays on 3x3 or the 4x4 Great Cloth, not {rows}x{cols}"
    if blocked:
        return "a Realm table has no blocked cells"
    if elemental or same_wall:
        return "a Realm table plays no Elemental or Same Wall: choose Realm modules instead"
    if trades:
        return "Realm tables never trade: choose the trade rule None"
    return None
