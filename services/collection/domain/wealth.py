"""A player's wealth: copies coming into existence, and coins in and out.

Pure functions returning events (STYLE 1): each takes the part of the player's state it
needs (loaded in the transaction that appends what it returns) and the random draws the
handler made, and returns the events to append, or raises a typed error naming the rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from random import Random
from uuid import NAMESPACE_URL, uuid5

from services.collection.domain.catalog import Catalog, Character
from services.collection.domain.events import (
    CopyGranted,
    CopySource,
    CurrencyCredited,
    CurrencyDebited,
    CurrencyReason,
    OwnedCopy,
)
from services.platform.errors import FailedPrecondition, InvalidArgument
from services.rules import Side, holo_candidates

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
HOLO_CHANCE = 0.05
HOW_TO_EARN = (
    f"coins come from matches ({DAILY_FIRST_MATCH_COINS} for your first of the UTC day, "
    f"{MATCH_WIN_COINS} for a win against another player) and Auction House sales"
)
"""What a player short of coins is told (found from outside: "win matches to earn more",
though a win against a bot pays nothing)."""


class InsufficientFunds(FailedPrecondition):
    """A balance never goes negative."""


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


def check_credit(amount: int) -> int:
    """A credit adds a positive amount of coins."""
    if amount <= 0:
        raise InvalidArgument(f"a credit adds a positive amount of coins, not {amount}")
    return amount


def check_spend(amount: int) -> int:
    """A spend takes a positive amount of coins."""
    if amount <= 0:
        raise InvalidArgument(f"a spend takes a positive amount of coins, not {amount}")
    return amount


def credit(
    player_id: str, balance: int, amount: int, reason: CurrencyReason, reference_id: str
) -> CurrencyCredited:
    check_credit(amount)
    return CurrencyCredited(player_id, amount, reason, reference_id, balance + amount)


def spend(
    player_id: str, balance: int, amount: int, reason: CurrencyReason, reference_id: str
) -> CurrencyDebited:
    check_spend(amount)
    if amount > balance:
        raise InsufficientFunds(
            f"balance too low: {amount} coins needed, {balance} held; {HOW_TO_EARN} "
            "(a balance never goes negative)"
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
      bounds what a player's matches against a second account of their own earn at
      5 x 40 coins a day (plus the daily bonus, which is once a day anyway). A bot is
      not a second account: a match against a bot has no pair limit (it pays only the
      daily bonus). What this does not bound: a new account's starter grant
      (STARTER_COINS and ten copies) can be handed to another account through the
      Auction House, which RULES.md 15 opens to every player; only registration's rate
      limit slows that, and a limit on who may trade would be a new rule.

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
