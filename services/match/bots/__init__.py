"""Bot seats: four levels that decide from the seat's own redacted view, never more.

RULES.md 3: bots obey the same view as a human. :func:`knowledge` keeps the public part
of a :class:`MatchView` (the opponent's hidden cards are not in it, so only their number
is kept); :func:`decide` is the decision, a pure function of that knowledge, a seed and
a budget; :class:`BotPool` runs it in worker processes so a search never blocks the
service's event loop. :func:`choose` is the synchronous entry point: the level comes
from the seat's player record (``bot_level``).
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from services.match.bots.knowledge import SeatKnowledge, Seen, knowledge
from services.match.bots.levels import DEFAULT_SECONDS, Budget, Decision, Level, decide
from services.match.bots.pool import BotPool
from services.match.bots.realm import BotMove, realm_knowledge
from services.match.bots.realm import decide as decide_realm
from services.match.bots.sampling import CatalogEntry, sample_unseen
from services.match.views import MatchView

__all__ = [
    "DEFAULT_SECONDS",
    "BotMove",
    "BotPool",
    "Budget",
    "CatalogEntry",
    "Decision",
    "Level",
    "SeatKnowledge",
    "Seen",
    "choose",
    "decide",
    "knowledge",
    "move",
    "sample_unseen",
]


def choose(
    view: MatchView,
    rng: Random,
    budget: Budget | None = None,
    catalog: Sequence[CatalogEntry] | None = None,
) -> tuple[str, int]:
    """(card_id, cell) for the bot whose view this is, at its seat's level, decided in
    this thread (a hard bot thinks up to its budget: see :class:`BotPool`)."""
    seat = knowledge(view)
    limits = budget if budget is not None else Budget.for_turn(view.turn_seconds)
    decision = decide(seat, rng.getrandbits(32), limits, catalog)
    return decision.card_id, decision.cell


def move(
    view: MatchView,
    rng: Random,
    budget: Budget | None = None,
    catalog: Sequence[CatalogEntry] | None = None,
) -> BotMove:
    """The bot's move, Lair included at a Realm table (RULES.md 17), decided in this
    thread (see :meth:`BotPool.move` for worker processes)."""
    if view.realm is None:
        return BotMove(*choose(view, rng, budget, catalog))
    limits = budget if budget is not None else Budget.for_turn(view.turn_seconds)
    return decide_realm(realm_knowledge(view), rng.getrandbits(32), limits, catalog)
