"""A match: its events, its state, the commands that decide, the timers it needs.

- ``events``: the past-tense facts, plain Python; each records what replay needs and
  every random draw, so folding never draws again and never re-runs rule code.
- ``state``: :class:`Match` and ``evolve``/``fold``.
- ``decide``: the commands (``create``, ``place``, ``time_out``, ``forfeit``,
  ``presence``, ``disconnect_expired``), each returning a :class:`Decision` (its events
  and the state after them).
- ``ending``: how a match ends (its winner, trade, rating) and who forfeits when a
  disconnect grace runs out, both seats away included.
- ``rounds``: Sudden Death's next round (RULES.md 12).
- ``realm``: Realm tables (RULES.md 17): placements by the Realm engine with the
  match's Realm state, Lair, Realm Sudden Death's replacements from the draw pile.
- ``deadlines``: which timers a state needs (:class:`DeadlineKind`), and their restart
  after the server could not act.
- ``errors``: the refusals.
"""

from services.match.domain.deadlines import Deadline, DeadlineKind, deadlines, restart_clocks
from services.match.domain.decide import (
    Decision,
    StartDraws,
    create,
    disconnect_expired,
    forfeit,
    place,
    presence,
    time_out,
)
from services.match.domain.errors import (
    CardNotInHand,
    CellUnavailable,
    IllegalPlacement,
    MatchNotFound,
    MatchOver,
    NotYourTurn,
    no_match,
)
from services.match.domain.state import SEATS, Match, evolve, fold

__all__ = [
    "SEATS",
    "CardNotInHand",
    "CellUnavailable",
    "Deadline",
    "DeadlineKind",
    "Decision",
    "IllegalPlacement",
    "Match",
    "MatchNotFound",
    "MatchOver",
    "NotYourTurn",
    "StartDraws",
    "create",
    "deadlines",
    "disconnect_expired",
    "evolve",
    "fold",
    "forfeit",
    "no_match",
    "place",
    "presence",
    "restart_clocks",
    "time_out",
]
