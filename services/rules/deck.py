"""The deck rules (RULES.md sections 2 and 11), each failure named with the cards it
concerns.

A deck is five copies of five different characters with at most one 5★ and at most
one 4★, or two 4★ and no 5★ (equivalently #5★ ≤ 1 and #5★ + #4★ ≤ 2). Larger boards
play larger hands (RULES.md 11): eight cards on 4×4 (#5★ ≤ 1, #5★ + #4★ ≤ 3) and
thirteen on 5×5 (#5★ ≤ 2, #5★ + #4★ ≤ 5), always of different characters. Every copy
must be owned by the player and not locked (section 9) when the match starts; the
caller passes what it knows of ownership and locks, so the validator stays pure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

DECK_SIZE = 5
"""The standard board's hand (3×3)."""
MAX_FIVE_STARS = 1
MAX_FOUR_AND_FIVE_STARS = 2
STAR_LIMITS: dict[int, tuple[int, int]] = {5: (1, 2), 8: (1, 3), 13: (2, 5)}
"""**Decision** (RULES.md 11): per hand size, (most 5★, most 4★ + 5★)."""
HAND_SIZES = tuple(STAR_LIMITS)
BOARD_HANDS: dict[int, int] = {3: 5, 4: 8, 5: 13}
"""RULES.md 11: the hand each board (by its side length) is played with."""
_WORDS = {5: "five", 8: "eight", 13: "thirteen"}


def hand_size_for(board: int) -> int:
    """The hand of a ``board`` × ``board`` table (RULES.md 11)."""
    return BOARD_HANDS[board]


def deck_size_problem(size: int, board: int | None = None) -> str | None:
    """Why a deck of ``size`` cards cannot play (on a ``board`` × ``board`` table when
    given, else on any board), or None."""
    if board is not None:
        wanted = BOARD_HANDS[board]
        if size == wanted:
            return None
        return f"a {board}x{board} table needs a deck of {wanted}; this one holds {size}"
    if size in STAR_LIMITS:
        return None
    return f"a deck holds 5 cards (3x3 board), 8 (4x4) or 13 (5x5); this one holds {size}"


SHORT_ID = 8
"""Characters of a copy id that name it in messages, as the client shows it."""


class DeckRule(StrEnum):
    SIZE = "deck_size"
    DISTINCT_COPIES = "distinct_copies"
    DISTINCT_CHARACTERS = "distinct_characters"
    STARS = "star_rank_range"
    FIVE_STAR_LIMIT = "five_star_limit"
    FOUR_AND_FIVE_STAR_LIMIT = "four_and_five_star_limit"
    NOT_OWNED = "not_owned"
    LOCKED = "locked"


def within_star_limits(fives: int, fours: int, size: int = DECK_SIZE) -> bool:
    """#5★ and #5★ + #4★ within the limits of a hand of ``size`` (5: ≤ 1 and ≤ 2)."""
    most_fives, most_high = STAR_LIMITS.get(size, STAR_LIMITS[DECK_SIZE])
    return fives <= most_fives and fives + fours <= most_high


def star_limits(hand_size: int) -> tuple[int, int]:
    """(most 5★, most 4★ + 5★) in a hand of ``hand_size`` cards: the table's row for the
    largest listed hand that is not larger (a Sudden Death round's rebuilt hand, RULES.md
    12, can have any size). What a bot guessing hidden cards assumes of a hand."""
    fitting = [size for size in STAR_LIMITS if size <= hand_size] or [min(STAR_LIMITS)]
    return STAR_LIMITS[max(fitting)]


@dataclass(frozen=True, slots=True)
class DeckEntry:
    copy_id: str
    character_id: str
    stars: int
    name: str = ""
    """The character's name, when known: messages name the card by it."""

    @property
    def label(self) -> str:
        """The card as the client shows it (:func:`card_label`)."""
        return card_label(self.copy_id, self.name)


def card_label(copy_id: str, name: str = "") -> str:
    """A copy as the client shows it: "Hailstone Golemite (821aa49e)", or "copy 821aa49e"
    when its character is not known here."""
    short = copy_id[:SHORT_ID]
    return f"{name} ({short})" if name else f"copy {short}"


@dataclass(frozen=True, slots=True)
class Violation:
    rule: DeckRule
    copy_ids: tuple[str, ...]
    message: str


def validate_deck(
    entries: Sequence[DeckEntry],
    owned: Collection[str] | None = None,
    locked: Collection[str] | Mapping[str, str] = (),
    board: int | None = None,
) -> tuple[Violation, ...]:
    """Every rule the deck breaks; an empty tuple means the deck is legal.

    ``owned`` is the set of copy ids the player owns (``None`` skips that check);
    ``locked`` the copy ids locked by an active trading match, a pending trade or an
    Auction House listing (a mapping names what holds each, and what frees it);
    ``board`` the side length of the table it is for (None: a deck of 5, 8 or 13 for
    any board). The star limits are those of the table's hand when ``board`` is given
    (found from outside: seven cards with three 4★ for a 4x4 table were also told that
    a deck may hold two 4★, the limit of five, when eight may hold three), else of the
    deck's size (of 5 when it has none).
    """
    found: list[Violation] = []
    size = len(entries)
    if (problem := deck_size_problem(size, board)) is not None:
        found.append(_about(DeckRule.SIZE, entries, problem))
    hand = size if board is None else BOARD_HANDS[board]
    limits_of = hand if hand in STAR_LIMITS else DECK_SIZE
    most_fives, most_high = STAR_LIMITS[limits_of]
    word = _WORDS[limits_of]
    a_deck = "a deck" if limits_of == DECK_SIZE else f"a deck of {word}"
    if hand not in STAR_LIMITS:  # the size is already wrong: name no count it does not have
        a_deck, word = "a deck", "all"
    first = {e.copy_id: e for e in reversed(entries)}
    for copy_id, n in Counter(e.copy_id for e in entries).items():
        if n > 1:
            found.append(
                Violation(
                    DeckRule.DISTINCT_COPIES,
                    (copy_id,),
                    f"{first[copy_id].label} appears {n} times; each copy can be in a deck once",
                )
            )
    by_character: dict[str, list[DeckEntry]] = {}
    for e in entries:
        by_character.setdefault(e.character_id, []).append(e)
    for same in by_character.values():
        # One copy over and over is said once, above (found from outside: the same fact
        # three ways in one message); copies of one character, here.
        distinct = list({e.copy_id: e for e in same}.values())
        if len(distinct) > 1:
            found.append(
                _about(
                    DeckRule.DISTINCT_CHARACTERS,
                    distinct,
                    f"{_labels(distinct)} are the same character; {a_deck} needs {word} "
                    "different characters",
                )
            )
    bad_stars = tuple(e for e in entries if not 1 <= e.stars <= 5)
    if bad_stars:
        found.append(_these_are(DeckRule.STARS, bad_stars, "ranked outside 1 to 5★"))
    fives = tuple(e for e in entries if e.stars == 5)
    fours = tuple(e for e in entries if e.stars == 4)
    if len(fives) > most_fives:
        at_most = "one" if most_fives == 1 else str(most_fives)
        found.append(
            _about(
                DeckRule.FIVE_STAR_LIMIT,
                fives,
                f"{len(fives)} cards are 5★ ({_labels(fives)}); {a_deck} may hold at most "
                f"{at_most}",
            )
        )
    if len(fives) + len(fours) > most_high:
        found.append(
            _about(
                DeckRule.FOUR_AND_FIVE_STAR_LIMIT,
                fives + fours,
                f"{len(fives)} 5★ and {len(fours)} 4★ cards ({_labels(fives + fours)}); "
                + (
                    "a deck may hold one 5★ and one 4★, or two 4★ and no 5★"
                    if limits_of == DECK_SIZE
                    else f"{a_deck} may hold at most {most_fives} 5★ and "
                    f"{most_high} 4★ or 5★ cards in all"
                ),
            )
        )
    strangers = () if owned is None else tuple(e for e in entries if e.copy_id not in owned)
    if strangers:
        found.append(_these_are(DeckRule.NOT_OWNED, strangers, "not in your collection"))
    # Only the player's own copies can be locked for them: a stranger's lock is not
    # theirs to know, and not what keeps them from this deck.
    held = tuple(e for e in entries if e.copy_id in locked and e not in strangers)
    holders: dict[str, list[DeckEntry]] = {}
    for e in held:
        holder = locked[e.copy_id] if isinstance(locked, Mapping) else _SOME_LOCK
        holders.setdefault(holder, []).append(e)
    for holder, these in holders.items():
        found.append(_these_are(DeckRule.LOCKED, these, f"locked by {holder}"))
    return tuple(found)


_SOME_LOCK = "an active trading match, a pending trade or a listing until that ends"


def _about(rule: DeckRule, entries: Sequence[DeckEntry], message: str) -> Violation:
    """A violation of ``rule`` by the copies of ``entries``."""
    return Violation(rule, tuple(e.copy_id for e in entries), message)


def _these_are(rule: DeckRule, entries: Sequence[DeckEntry], what: str) -> Violation:
    """A violation of ``rule`` saying "<cards> is/are <what>" of ``entries``."""
    return _about(rule, entries, f"{_labels(entries)} {_be(entries)} {what}")


def _labels(entries: Sequence[DeckEntry]) -> str:
    return ", ".join(dict.fromkeys(e.label for e in entries))


def _be(entries: Sequence[DeckEntry]) -> str:
    return "is" if len({e.copy_id for e in entries}) == 1 else "are"
