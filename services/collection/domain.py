"""The collection's decisions about one player's wealth: pure functions returning events.

Each function takes the part of the player's state it needs (loaded by the store, in
the transaction that appends what it returns) and the random draws the handler made,
and returns the events to append, or raises a typed error naming the rule. Nothing here
does I/O, reads a clock or draws randomness of its own (STYLE 1).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from random import Random
from uuid import NAMESPACE_URL, uuid5

from services.collection import boosters
from services.collection.catalog import Catalog, Character
from services.collection.events import (
    BoosterDraw,
    BoosterOpened,
    CopiesLocked,
    CopiesReleased,
    CopyGranted,
    CopySource,
    CurrencyCredited,
    CurrencyDebited,
    CurrencyReason,
    DeckSaved,
    Holder,
    OwnedCopy,
    ServerSeedCommitted,
    ServerSeedRevealed,
)
from services.match.rules import DeckEntry, DeckRule, Side, Violation, holo_candidates
from services.match.rules.deck import DECK_SIZE, card_label, validate_deck, within_star_limits
from services.platform.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
    short_id,
)

STARTER_RANKS = (1, 1, 1, 1, 2, 2, 2, 3, 3, 3)
"""The starter collection: ten different characters, none above 3★, so any five of them
make a legal deck (RULES.md 2), whatever the holo draws."""
STARTER_COINS = 300
MATCH_WIN_COINS = 40
DAILY_FIRST_MATCH_COINS = 60
PAIR_REWARDED_MATCHES_PER_DAY = 5
"""The default of TRIAD_REWARD_MATCHES_PER_PAIR_PER_DAY: see :func:`match_reward`."""
PLACEMENTS_FOR_REWARD = 2
"""Turns alternate from the first placement (RULES.md 3), so two placements on the board
mean that each seat placed a card (its own or, after a missed turn, the server's for it)."""
MAX_DECKS = 50
MAX_DECK_NAME = 40
HOLO_CHANCE = 0.05
MAX_CLIENT_SEED = 64

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


class InsufficientFunds(FailedPrecondition):
    """A balance never goes negative."""


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


def copy_id_for(origin: str, index: int) -> str:
    """Copy ids derived from what created them, so a retried append makes the same ids."""
    return str(uuid5(NAMESPACE_URL, f"triad:copy:{origin}:{index}"))


# --- copies ---------------------------------------------------------------------------------


def draw_holo(character: Character, rng: Random) -> tuple[bool, Side | None]:
    """Holographic with probability 5%; the +1 side uniform among the sides below A
    (RULES.md 1 Decision; a character with four A sides gets none)."""
    if rng.random() >= HOLO_CHANCE:
        return False, None
    candidates = holo_candidates(character.sides)
    return True, rng.choice(candidates) if candidates else None


def starter_characters(catalog: Catalog, rng: Random) -> list[Character]:
    chosen: list[Character] = []
    for stars in sorted(set(STARTER_RANKS)):
        wanted = STARTER_RANKS.count(stars)
        pool = catalog.of_rank(stars)
        if len(pool) < wanted:
            raise ValueError(f"the catalog needs {wanted} characters of {stars}★")
        chosen += rng.sample(pool, wanted)
    return chosen


def grant(
    player_id: str,
    grant_id: str,
    characters: Sequence[Character],
    holos: Sequence[tuple[bool, Side | None]],
    source: CopySource,
    now: datetime,
) -> list[CopyGranted]:
    """New copies: with ``BoosterOpened``, the only way a copy comes into existence."""
    return [
        CopyGranted(
            player_id,
            OwnedCopy(
                copy_id_for(grant_id, index),
                player_id,
                character,
                holo,
                side,
                source,
                now,
            ),
            grant_id,
        )
        for index, (character, (holo, side)) in enumerate(zip(characters, holos, strict=True))
    ]


# --- currency -------------------------------------------------------------------------------


def credit(
    player_id: str, balance: int, amount: int, reason: CurrencyReason, reference_id: str
) -> CurrencyCredited:
    if amount <= 0:
        raise InvalidArgument(f"a credit adds a positive amount of coins, not {amount}")
    return CurrencyCredited(player_id, amount, reason, reference_id, balance + amount)


def spend(
    player_id: str, balance: int, amount: int, reason: CurrencyReason, reference_id: str
) -> CurrencyDebited:
    if amount <= 0:
        raise InvalidArgument(f"a spend takes a positive amount of coins, not {amount}")
    if amount > balance:
        raise InsufficientFunds(
            f"balance too low: {amount} coins needed, {balance} held; "
            "win matches to earn more (a balance never goes negative)"
        )
    return CurrencyDebited(player_id, amount, reason, reference_id, balance - amount)


class RewardDecision(StrEnum):
    """What a finished match paid for playing it, and why (metric and log label)."""

    PAID = "paid"
    UNPLAYED = "unplayed"
    """It ended before both players had placed a card: nothing is paid."""
    PAIR_LIMIT = "pair_limit"
    """The two players' rewarded matches of the UTC day had reached the limit."""


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """What a match's reward depends on, from its MatchFinished event."""

    match_id: str
    humans: tuple[str, ...]
    """The player ids of the human seats (one in a match against a bot)."""
    winner: str | None
    """The winning seat's player id; None for a draw."""
    placements: int
    day: str
    """The UTC day the match finished on (ISO date)."""


@dataclass(frozen=True, slots=True)
class MatchReward:
    decision: RewardDecision
    first_match: tuple[str, ...]
    """Who is paid the first-match-of-the-day bonus, if not paid yet that day."""
    winner: str | None
    """Who is paid MATCH_WIN_COINS."""


def match_reward(played: PlayedMatch, pair_rewarded_today: int, pair_limit: int) -> MatchReward:
    """The coins for playing a match.

    - Each human is paid DAILY_FIRST_MATCH_COINS for the first finished match of the UTC
      day; the winner of a match between two humans is paid MATCH_WIN_COINS.
    - **Decision:** a match that ended before both players placed a card pays nothing,
      also against a bot: a forfeit at move 0 is not a match played.
    - **Decision:** two humans are paid for at most ``pair_limit`` matches against each
      other per UTC day (TRIAD_REWARD_MATCHES_PER_PAIR_PER_DAY, default
      PAIR_REWARDED_MATCHES_PER_DAY = 5), counted per unordered pair; later matches of
      the pair that day pay nothing, and still count for ratings and Trade One. Five
      matches against the same person is more than a day of queued play brings, and
      bounds what a player earns from a second account of their own at 5 x 40 coins
      a day (plus the daily bonus, which is once a day anyway). A bot is not a second
      account: a match against a bot has no pair limit (it pays only the daily bonus).

    ``pair_rewarded_today`` is how many matches of the two humans paid earlier that UTC
    day (0 when a seat is a bot).
    """
    if played.placements < PLACEMENTS_FOR_REWARD:
        return MatchReward(RewardDecision.UNPLAYED, (), None)
    if len(played.humans) == 2 and pair_rewarded_today >= pair_limit:
        return MatchReward(RewardDecision.PAIR_LIMIT, (), None)
    winner = played.winner if len(played.humans) == 2 else None
    return MatchReward(RewardDecision.PAID, played.humans, winner)


def reward_pair(humans: Sequence[str]) -> tuple[str, str] | None:
    """The unordered pair the daily limit counts for: two humans, in id order."""
    if len(humans) != 2:
        return None
    low, high = sorted(humans)
    return low, high


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


def entries(copy_ids: Sequence[str], copies: Mapping[str, OwnedCopy]) -> list[DeckEntry]:
    """Deck entries for the validator; a copy we do not know counts as its own character
    of no rank, so only the ownership rule names it."""
    return [
        DeckEntry(i, copies[i].character.id, copies[i].character.stars, copies[i].character.name)
        if i in copies
        else DeckEntry(i, f"?{i}", 1)
        for i in copy_ids
    ]


def deck_violations(
    copy_ids: Sequence[str], owned: Mapping[str, OwnedCopy], locked: Collection[str]
) -> tuple[Violation, ...]:
    """Every rule of RULES.md 2 and 9 the deck breaks now, with its cards."""
    return validate_deck(entries(copy_ids, owned), owned=owned.keys(), locked=locked)


def save_deck(
    player_id: str,
    deck_id: str,
    name: str,
    copy_ids: Sequence[str],
    owned: Mapping[str, OwnedCopy],
    locked: Collection[str],
    replaced: Sequence[str] | None,
    deck_count: int,
) -> DeckSaved:
    """A deck is saved only when it can be played now. ``replaced`` is the saved deck's
    copies when replacing one; ``owned`` holds the player's copies among these ids."""
    name = name.strip()
    if not 1 <= len(name) <= MAX_DECK_NAME:
        raise InvalidArgument(f"a deck name has 1 to {MAX_DECK_NAME} characters")
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


def draw_random_deck(free: Sequence[OwnedCopy], rng: Random) -> tuple[OwnedCopy, ...]:
    """RULES.md 6 Random: a legal deck from the free copies, drawn at random.

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
        if within_star_limits(stars.count(5), stars.count(4)):
            deck.append(copy)
            if len(deck) == DECK_SIZE:
                return tuple(deck)
    raise NoRandomDeck(
        f"your free copies hold no legal deck: a deck needs {DECK_SIZE} different characters "
        "with at most one 5★ and at most two 4★ or better, none of them locked"
    )


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


# --- seeds and boosters ---------------------------------------------------------------------


def valid_client_seed(client_seed: str) -> str:
    if not 1 <= len(client_seed) <= MAX_CLIENT_SEED or not all(
        " " <= ch <= "~" for ch in client_seed
    ):
        raise InvalidArgument(f"a client seed is 1 to {MAX_CLIENT_SEED} printable ASCII characters")
    return client_seed


@dataclass(frozen=True, slots=True)
class ActiveSeed:
    seed_id: str
    server_seed: str
    seed_hash: str
    client_seed: str
    draw_count: int
    committed_at: datetime


def commit_seed(
    player_id: str, seed_id: str, server_seed: str, client_seed: str
) -> ServerSeedCommitted:
    return ServerSeedCommitted(player_id, seed_id, boosters.seed_hash(server_seed), client_seed)


def rotate_seed(
    player_id: str, old: ActiveSeed, seed_id: str, server_seed: str, client_seed: str
) -> tuple[ServerSeedRevealed, ServerSeedCommitted]:
    """The seed in force is revealed and a new one committed with the new client seed."""
    return (
        ServerSeedRevealed(player_id, old.seed_id, old.server_seed, old.draw_count),
        commit_seed(player_id, seed_id, server_seed, valid_client_seed(client_seed)),
    )


def open_booster(
    catalog: Catalog,
    player_id: str,
    draw_id: str,
    balance: int,
    seed: ActiveSeed,
    boosters_since_pity: int,
    now: datetime,
) -> tuple[CurrencyDebited, BoosterOpened]:
    """Pay for a booster and draw it from the seed in force at its next counter."""
    paid = spend(
        player_id, balance, boosters.BOOSTER_PRICE, CurrencyReason.BOOSTER_PURCHASE, draw_id
    )
    contents = boosters.draw_booster(
        catalog,
        seed.server_seed,
        seed.client_seed,
        seed.draw_count,
        boosters.pity_due(boosters_since_pity),
    )
    copies = tuple(
        OwnedCopy(
            copy_id_for(draw_id, index),
            player_id,
            card.character,
            card.holo,
            card.holo_side,
            CopySource.BOOSTER,
            now,
        )
        for index, card in enumerate(contents.cards)
    )
    draw = BoosterDraw(
        draw_id=draw_id,
        seed_id=seed.seed_id,
        seed_hash=seed.seed_hash,
        client_seed=seed.client_seed,
        counter=seed.draw_count,
        algorithm=boosters.ALGORITHM,
        copies=copies,
        pity_applied=contents.pity_applied,
        price=boosters.BOOSTER_PRICE,
        opened_at=now,
    )
    since = boosters.boosters_since_pity_after(boosters_since_pity, contents)
    return paid, BoosterOpened(player_id, draw, since)
