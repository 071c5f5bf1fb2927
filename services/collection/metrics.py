"""The collection service's Prometheus metrics (names are what dashboards and alerts use)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

BOOSTERS_OPENED = Counter(
    "triad_boosters_opened_total", "Boosters opened, by whether the pity rule applied.", ["pity"]
)
CARDS_DRAWN = Counter(
    "triad_booster_cards_total",
    "Cards drawn from boosters, by star rank and holo.",
    ["stars", "holo"],
)
COINS_IN = Counter("triad_coins_credited_total", "Coins credited, by reason.", ["reason"])
COINS_OUT = Counter("triad_coins_debited_total", "Coins debited, by reason.", ["reason"])
MATCH_REWARDS = Counter(
    "triad_match_rewards_total",
    "Finished matches by what they paid for playing: paid, unplayed (ended before both "
    "players placed a card), pair_limit (the pair's rewarded matches of the day reached).",
    ["decision"],
)
TRADES_OPENED = Counter("triad_trades_opened_total", "Trade One trades opened.")
TRADES_COMPLETED = Counter(
    "triad_trades_completed_total",
    "Trades whose copies moved, by who chose (winner, server, or the rule itself: All, Direct).",
    ["chooser"],
)
LOCKED_COPIES = Gauge(
    "triad_locked_copies", "Copies locked now, by what holds them (from the database).", ["holder"]
)
DRAFTS = Counter("triad_drafts_total", "Draft sessions, by how they ended.", ["outcome"])
DRAFT_AUTO_PICKS = Counter(
    "triad_draft_auto_picks_total",
    "Draft picks the server made at the pick deadline to complete a player's deck.",
)
LISTINGS_OPEN = Gauge(
    "triad_auction_listings_open", "Auction House listings open now (from the database)."
)
AUCTION_LISTINGS = Counter(
    "triad_auction_listings_total",
    "Auction House listings by how they changed: created, sold, cancelled, expired.",
    ["event"],
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
