"""Decks (RULES.md 2, 11) and locks (RULES.md 9): saving a deck of 5, 8 or 13 cards, the
Random deck of a table's size, house hands dealt from the catalog, locking copies for a
trading match or a trade and releasing them.

Pure functions returning events or raising a typed error naming the rule (STYLE 1).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from random import Random

from services.collection.domain.catalog import Character
from services.collection.domain.events import (
    CopiesLocked,
    CopiesReleased,
    DeckSaved,
    Holder,
    HolderKind,
    OwnedCopy,
)
from services.platform.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
    short_id,
)
from services.rules import DeckEntry, DeckRule, Side, Violation, holo_candidates
from services.rules.deck import (
    DECK_SIZE,
    STAR_LIMITS,
    card_label,
    validate_deck,
    within_star_limits,
)

MAX_DECKS = 50
MAX_DECK_NAME = 40
UNSHOWN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories a deck name may not hold: controls (terminal escapes), format
characters (zero-width spaces, direction overrides that show a name backwards), line
breaks, private and unassigned code points: nothing a reader sees as the name."""
JOINERS = frozenset("\u200c\u200d")
"""Format characters that scripts (Persian, Indic) and emoji sequences need."""

# Rules a deck breaks by its own content (INVALID_ARGUMENT), versus the player's state.
CONTENT_RULES = frozenset(
    {
        DeckRule.SIZE,
        DeckRule.DISTINCT_COPIES,
        DeckRule.DISTINCT_CHARACTERS,
        DeckRule.STARS,
        DeckRule.FIVE_STAR_LIMIT,
        DeckRule.FOUR_AND_FIVE_STAR_LIMIT,
    }
)


class UnknownCopies(NotFound):
    """Copies that do not exist or are not the player's."""


class CopiesLockedError(FailedPrecondition):
    """Copies held by another match or trade (RULES.md 9)."""


class DeckBroken(InvalidArgument):
    """The deck breaks a rule of RULES.md 2 by its own content."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations = tuple(violations)
        super().__init__(describe(violations))


class DeckUnavailable(FailedPrecondition):
    """The deck is well-formed, but a copy is not owned or is locked (RULES.md 2, 9)."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations = tuple(violations)
        super().__init__(describe(violations))


class NoRandomDeck(FailedPrecondition):
    """The free copies hold no legal deck to draw."""


def describe(violations: Sequence[Violation]) -> str:
    """Every broken rule with its cards, as one sentence per rule (each names its
    cards as the client shows them; the rule's code is in ``violations``, not here)."""
    return "; ".join(v.message for v in violations)


# --- decks ----------------------------------------------------------------------------------


def _labels(copy_ids: Sequence[str], owned: Mapping[str, OwnedCopy] | None = None) -> str:
    """Copies as the client shows them: by character name and short copy id."""
    known = owned or {}
    return ", ".join(
        card_label(i, known[i].character.name if i in known else "")
        for i in dict.fromkeys(copy_ids)
    )


def _be(copy_ids: Sequence[str]) -> str:
    return "is" if len(set(copy_ids)) == 1 else "are"


def entries(
    copy_ids: Sequence[str],
    copies: Mapping[str, OwnedCopy],
    gone: Mapping[str, OwnedCopy] | None = None,
) -> list[DeckEntry]:
    """Deck entries for the validator; a copy the player does not own counts as its own
    character of no rank, so only the ownership rule names it: by its character's name
    when ``gone`` holds it (a saved deck's copy traded or sold away), else by its id."""
    gone = gone or {}
    return [
        DeckEntry(i, copies[i].character.id, copies[i].character.stars, copies[i].character.name)
        if i in copies
        else DeckEntry(i, f"?{i}", 1, gone[i].character.name if i in gone else "")
        for i in copy_ids
    ]


def deck_violations(
    copy_ids: Sequence[str],
    owned: Mapping[str, OwnedCopy],
    locked: Mapping[str, Holder],
    board: int | None = None,
    gone: Mapping[str, OwnedCopy] | None = None,
) -> tuple[Violation, ...]:
    """Every rule of RULES.md 2, 9 and 11 the deck breaks now, with its cards (a locked
    one with what holds it and what frees it); ``board``: the side of the table it is
    for (None: a deck of 5, 8 or 13 for its own board); ``gone``: the copies of a saved
    deck the player no longer owns, to name them (:func:`entries`)."""
    held = {i: held_by(h) for i, h in locked.items()}
    return validate_deck(
        entries(copy_ids, owned, gone), owned=owned.keys(), locked=held, board=board
    )


def held_by(holder: Holder) -> str:
    """What holds a locked copy, and what frees it, as its owner reads it (RULES.md 9)."""
    if holder.kind is HolderKind.LISTING:
        return f"Auction House listing {short_id(holder.id)}: cancel the listing to use it"
    if holder.kind is HolderKind.TRADE:
        return f"pending trade {short_id(holder.id)} until it completes"
    return f"trading match {short_id(holder.id)} until it ends"


def deck_name(name: str) -> str:
    """``name`` without its surrounding spaces, if it is 1 to MAX_DECK_NAME characters a
    reader can see; else InvalidArgument saying what to change."""
    name = name.strip()
    if not 1 <= len(name) <= MAX_DECK_NAME:
        raise InvalidArgument(f"a deck name has 1 to {MAX_DECK_NAME} characters")
    unshown = dict.fromkeys(
        c for c in name if unicodedata.category(c) in UNSHOWN and c not in JOINERS
    )
    if unshown:
        codes = ", ".join(f"U+{ord(c):04X}" for c in unshown)
        raise InvalidArgument(
            f"a deck name cannot hold control or invisible characters ({codes}): "
            "use letters, digits, spaces and symbols"
        )
    if all(c in JOINERS or c.isspace() for c in name):
        raise InvalidArgument("a deck name needs at least one visible character")
    return name


def save_deck(
    player_id: str,
    deck_id: str,
    name: str,
    copy_ids: Sequence[str],
    owned: Mapping[str, OwnedCopy],
    locked: Mapping[str, Holder],
    replaced: Sequence[str] | None,
    deck_count: int,
) -> DeckSaved:
    """A deck is saved only when it can be played now. ``replaced`` is the saved deck's
    copies when replacing one; ``owned`` holds the player's copies among these ids."""
    name = deck_name(name)
    if replaced is None and deck_count >= MAX_DECKS:
        raise ResourceExhausted(f"a player keeps at most {MAX_DECKS} decks; delete one first")
    broken = deck_violations(copy_ids, owned, locked)
    content = [v for v in broken if v.rule in CONTENT_RULES]
    if content:
        raise DeckBroken(content)
    if broken:
        raise DeckUnavailable(broken)
    held = [i for i in replaced or () if i in locked]
    if held:
        raise CopiesLockedError(
            f"the deck being replaced holds locked copies ({_labels(held, owned)}); a locked "
            "copy cannot be put in a deck change until its match or trade completes"
        )
    return DeckSaved(player_id, deck_id, name, tuple(copy_ids))


def draw_random_deck(
    free: Sequence[OwnedCopy], rng: Random, size: int = DECK_SIZE
) -> tuple[OwnedCopy, ...]:
    """RULES.md 6 Random: a legal deck of ``size`` (RULES.md 11: 5, 8 or 13) from the
    free copies, drawn at random.

    One copy per character is drawn, then characters are taken in random order, each
    kept if the star limits still hold. That finds a deck whenever one exists: lower
    ranks never break a limit, and the 4★/5★ slots fill greedily up to what the limits
    allow."""
    by_character: dict[str, list[OwnedCopy]] = {}
    for copy in sorted(free, key=lambda c: c.copy_id):
        by_character.setdefault(copy.character.id, []).append(copy)
    candidates = [rng.choice(copies) for _, copies in sorted(by_character.items())]
    rng.shuffle(candidates)
    deck: list[OwnedCopy] = []
    for copy in candidates:
        stars = [c.character.stars for c in (*deck, copy)]
        if within_star_limits(stars.count(5), stars.count(4), size):
            deck.append(copy)
            if len(deck) == size:
                return tuple(deck)
    fives, high = STAR_LIMITS[size]
    # found from outside: a player left with four copies after a trade was told what a
    # deck needs, not what they hold, nor how to get more
    raise NoRandomDeck(
        f"your free copies hold no legal deck of {size}: it needs {size} different "
        f"characters with at most {_count(fives)} 5★ and at most {_count(high)} 4★ or "
        f"better, none of them locked; yours hold {len(by_character)} different "
        "characters (a booster brings more)"
    )


def _count(n: int) -> str:
    return {1: "one", 2: "two", 3: "three", 5: "five"}.get(n, str(n))


HOUSE_HOLO_CHANCE = 0.05
"""RULES.md 11: a house hand's card is Holographic with probability 5%, like Draft's."""


@dataclass(frozen=True, slots=True)
class HouseCard:
    """A house hand's card (RULES.md 11): a catalog character, maybe Holographic (its
    bonus side then, None when it has none below A), owned by nobody."""

    character: Character
    holo_side: Side | None
    holo: bool


def deal_house_hand(catalog: Sequence[Character], size: int, rng: Random) -> tuple[HouseCard, ...]:
    """**Decision** (RULES.md 11, house hands): a legal hand of ``size`` drawn at random
    from the whole catalog, each card Holographic with probability 5% (its side drawn
    among those below A). Characters are taken
    in random order, each kept if the hand's star limits still hold (always a hand when
    the catalog has enough characters of 3★ or less)."""
    if size not in STAR_LIMITS:
        raise InvalidArgument(f"a hand holds 5, 8 or 13 cards, not {size}")
    candidates = list(catalog)
    rng.shuffle(candidates)
    hand: list[Character] = []
    for character in candidates:
        stars = [c.stars for c in (*hand, character)]
        if within_star_limits(stars.count(5), stars.count(4), size):
            hand.append(character)
            if len(hand) == size:
                break
    else:
        raise ValueError(f"the catalog holds no legal hand of {size}")
    dealt = []
    for character in hand:
        holo = rng.random() < HOUSE_HOLO_CHANCE
        sides = holo_candidates(character.sides)
        dealt.append(HouseCard(character, rng.choice(sides) if holo and sides else None, holo))
    return tuple(dealt)


# --- locks (RULES.md 9) ---------------------------------------------------------------------


def lock(
    player_id: str,
    copy_ids: Sequence[str],
    owned: Collection[str],
    locks: Mapping[str, Holder],
    holder: Holder,
) -> CopiesLocked | None:
    """Lock all the copies for ``holder``, or none; None when the holder has them all."""
    if not copy_ids:
        raise InvalidArgument("name at least one copy to lock")
    unknown = [i for i in copy_ids if i not in owned]
    if unknown:
        raise UnknownCopies(f"{_labels(unknown)} {_be(unknown)} not in your collection")
    others = [i for i in copy_ids if i in locks and locks[i] != holder]
    if others:
        holders = sorted({f"{locks[i].kind.value} {short_id(locks[i].id)}" for i in others})
        raise CopiesLockedError(
            f"{_labels(others)} {_be(others)} locked by {', '.join(holders)} until it completes"
        )
    fresh = tuple(dict.fromkeys(i for i in copy_ids if i not in locks))
    return CopiesLocked(player_id, fresh, holder) if fresh else None


def release(player_id: str, held: Sequence[str], holder: Holder) -> CopiesReleased | None:
    return CopiesReleased(player_id, tuple(held), holder) if held else None
