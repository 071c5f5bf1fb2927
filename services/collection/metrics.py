"""The collection service's Prometheus metrics (names are what dashboards and alerts use)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

from services.collection.domain.draft_session import Status as DraftStatus
from services.collection.domain.events import CurrencyChange, CurrencyCredited, CurrencyReason
from services.collection.domain.wealth import RewardDecision
from services.platform.metrics import zeroed

BOOLEANS = ("false", "true")
REASONS = [reason.value for reason in CurrencyReason]

BOOSTERS_OPENED = zeroed(
    Counter(
        "triad_boosters_opened_total",
        "Boosters opened, by whether the pity rule applied.",
        ["pity"],
    ),
    pity=BOOLEANS,
)
CARDS_DRAWN = zeroed(
    Counter(
        "triad_booster_cards_total",
        "Cards drawn from boosters, by star rank and holo.",
        ["stars", "holo"],
    ),
    stars=[str(stars) for stars in range(1, 6)],
    holo=BOOLEANS,
)
COINS_IN = zeroed(
    Counter("triad_coins_credited_total", "Coins credited, by reason.", ["reason"]),
    reason=REASONS,
)
COINS_OUT = zeroed(
    Counter("triad_coins_debited_total", "Coins debited, by reason.", ["reason"]),
    reason=REASONS,
)
MATCH_REWARDS = zeroed(
    Counter(
        "triad_match_rewards_total",
        "Finished matches by what they paid for playing: paid, unplayed (ended before both "
        "players placed a card), pair_limit (the pair's rewarded matches of the day reached).",
        ["decision"],
    ),
    decision=[decision.value for decision in RewardDecision],
)
TRADES_OPENED = Counter("triad_trades_opened_total", "Trade One trades opened.")
TRADES_COMPLETED = zeroed(
    Counter(
        "triad_trades_completed_total",
        "Trades whose copies moved, by who chose (winner, server, or the rule itself: All, "
        "Direct).",
        ["chooser"],
    ),
    chooser=("winner", "server", "rule"),
)
LOCKED_COPIES = Gauge(
    "triad_locked_copies", "Copies locked now, by what holds them (from the database).", ["holder"]
)
TRADES_PENDING = Gauge(
    "triad_trades_pending",
    "Trades waiting for the winner's choice now (from the database: the trades holding "
    "locks; each holds the loser's whole deck, 5, 8 or 13 copies).",
)
TRADE_OVERDUE = Gauge(
    "triad_trade_overdue_seconds",
    "How far the most overdue pending trade is past its choice deadline, in seconds (from "
    "the database; 0 when none is): the server picks at the deadline, so this stays near 0.",
)
DRAFTS = zeroed(
    Counter("triad_drafts_total", "Draft sessions, by how they ended.", ["outcome"]),
    outcome=[s.value for s in DraftStatus if s is not DraftStatus.PICKING],
)
DRAFT_AUTO_PICKS = Counter(
    "triad_draft_auto_picks_total",
    "Draft picks the server made at the pick deadline to complete a player's deck.",
)
LISTINGS_OPEN = Gauge(
    "triad_auction_listings_open", "Auction House listings open now (from the database)."
)
AUCTION_LISTINGS = zeroed(
    Counter(
        "triad_auction_listings_total",
        "Auction House listings by how they changed: created, sold, cancelled, expired.",
        ["event"],
    ),
    event=("created", "sold", "cancelled", "expired"),
)
AUCTION_SALES = Counter("triad_auction_sales_total", "Auction House listings sold.")
AUCTION_FEES_BURNED = Counter(
    "triad_auction_fees_burned_total",
    "Coins the Auction House fee took out of the economy (5% of each sale, rounded down).",
)
AUCTION_VIOLATIONS = Gauge(
    "triad_auction_conservation_violations",
    "Auction House rows breaking conservation (from the database; 0 when all is well): an "
    "open listing whose copy is not locked by it or not the seller's, a listing lock "
    "without its open listing, a sale without a buyer.",
)


def count_coins(*changes: CurrencyChange) -> None:
    """Count the coins these credits (``COINS_IN``) and debits (``COINS_OUT``) move."""
    for change in changes:
        moved = COINS_IN if isinstance(change, CurrencyCredited) else COINS_OUT
        moved.labels(reason=change.reason.value).inc(change.amount)
