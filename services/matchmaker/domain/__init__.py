"""The matchmaker's domain as RULES.md sections 6 and 10 read, in five parts:

- ``modes``: the modes, their queues and ladders, rule sets (the fixed rules of each
  queue, Roulette's draws, what custom tables and practice may combine);
- ``pairing``: the rating window that widens with waiting, pairing tickets, bot fill;
- ``seats``: deck choices, cards, seats (bots with their drawn names) and start plans;
- ``tickets``: queue tickets and their states;
- ``tables``: custom tables of the lobby and the lobby's filters.

Pure: no I/O, no clock, no randomness. The handlers pass the time in (as POSIX seconds
or datetimes) and every random draw in (a Roulette rule set is chosen by an index the
handler draws, a bot's name by another). Everything is importable from here.
"""

from __future__ import annotations

from services.matchmaker.domain.modes import (
    COMPATIBLE_RULE_SETS,
    DECKLESS,
    LADDERS,
    MODE_RULES,
    PRACTICE_ORIGINS,
    QUEUES,
    STANDARD,
    UNRATED,
    BattleLevel,
    BotLevel,
    Mode,
    RealmModules,
    RuleSet,
    TradeRule,
    Visibility,
    check_custom_rules,
    dealt_deck_problem,
    practice_rules,
    realm_deck_problem,
    roulette_rules,
)
from services.matchmaker.domain.pairing import (
    RATING_BANDS,
    Pair,
    Waiting,
    WindowPolicy,
    due_for_bot,
    pair_tickets,
    rating_band,
)
from services.matchmaker.domain.seats import (
    BOT_LABEL,
    BOT_NAMES,
    Card,
    DeckChoice,
    Seat,
    StartKind,
    StartPlan,
    bot_name,
    legal_deck,
)
from services.matchmaker.domain.tables import (
    Table,
    TableFilter,
    TableSettings,
    TableState,
)
from services.matchmaker.domain.tickets import (
    CancelReason,
    Ticket,
    TicketState,
)

__all__ = [
    "BOT_LABEL",
    "BOT_NAMES",
    "COMPATIBLE_RULE_SETS",
    "DECKLESS",
    "LADDERS",
    "MODE_RULES",
    "PRACTICE_ORIGINS",
    "QUEUES",
    "RATING_BANDS",
    "STANDARD",
    "UNRATED",
    "BattleLevel",
    "BotLevel",
    "CancelReason",
    "Card",
    "DeckChoice",
    "Mode",
    "Pair",
    "RealmModules",
    "RuleSet",
    "Seat",
    "StartKind",
    "StartPlan",
    "Table",
    "TableFilter",
    "TableSettings",
    "TableState",
    "Ticket",
    "TicketState",
    "TradeRule",
    "Visibility",
    "Waiting",
    "WindowPolicy",
    "bot_name",
    "check_custom_rules",
    "dealt_deck_problem",
    "due_for_bot",
    "legal_deck",
    "pair_tickets",
    "practice_rules",
    "rating_band",
    "realm_deck_problem",
    "roulette_rules",
]
