"""The Skirmish battle engine (``../shared/BATTLE.md``): pure, standard library only.

Nothing here does I/O (but :func:`load_roster` and :func:`load_rosters`, which read
the content files they are given), reads a clock or draws randomness: the deck orders
are drawn by the caller (:func:`shuffled_decks` takes an explicit ``random.Random``) and
passed in, so every result is a pure function of its arguments and a recorded battle
replays exactly.

The API a battle service needs, in the order a battle uses it:

- :func:`load_roster` -> :class:`Roster` (``roster.version`` is the content version a
  battle records; a bad file raises :class:`RosterError`). :func:`load_rosters` ->
  :class:`Rosters`: the current roster (new battles) and every earlier version still
  deployed (``for_version``: a battle in progress plays on with the content it recorded;
  one not loaded raises :class:`ContentNotLoaded`).
- :func:`new_battle` (teams, the drawn deck orders, formations) -> :class:`Battle`, at
  turn 1's selection; :func:`set_formation` places a player's characters until turn 1
  resolves. :func:`give_up` ends it for a player who gives up.
- :func:`view_for` (battle, player) -> :class:`BattleView`: never the opponent's hand.
- :func:`legal_actions` / :func:`legal_plans` / :func:`check_plan` (raises
  :class:`PlanError`): what a player may set.
- :func:`resolve_turn` (battle, both plans, who committed first) -> :class:`TurnOutcome`:
  the next battle (at the next selection, or over: ``battle.outcome``) and the ordered
  action log (:class:`Entry`: who acted, card, targets, effects, why it fizzled).
- :mod:`~services.battle.rules.codec`: the JSON of all of it (``FORMAT.md``).

Each module's docstring lists the decisions it makes where BATTLE.md is silent.
"""

from services.battle.rules.content import (
    Card,
    Character,
    ContentNotLoaded,
    Effect,
    Group,
    Kind,
    Range,
    Roster,
    RosterError,
    Rosters,
    Summon,
    Unlock,
    load_roster,
    load_rosters,
    parse_roster,
    rosters_of,
)
from services.battle.rules.draws import shuffled_decks
from services.battle.rules.log import Change, Entry, Fizzle, Step, TurnOutcome
from services.battle.rules.plans import (
    Action,
    Plan,
    PlanError,
    check_plan,
    legal_actions,
    legal_plans,
)
from services.battle.rules.resolve import action_order, resolve_turn
from services.battle.rules.state import (
    Battle,
    BattleError,
    Outcome,
    Reason,
    Team,
    Unit,
    give_up,
    new_battle,
    set_formation,
)
from services.battle.rules.targets import Target
from services.battle.rules.views import BattleView, view_for

__all__ = [
    "Action",
    "Battle",
    "BattleError",
    "BattleView",
    "Card",
    "Change",
    "Character",
    "ContentNotLoaded",
    "Effect",
    "Entry",
    "Fizzle",
    "Group",
    "Kind",
    "Outcome",
    "Plan",
    "PlanError",
    "Range",
    "Reason",
    "Roster",
    "RosterError",
    "Rosters",
    "Step",
    "Summon",
    "Target",
    "Team",
    "TurnOutcome",
    "Unit",
    "Unlock",
    "action_order",
    "check_plan",
    "give_up",
    "legal_actions",
    "legal_plans",
    "load_roster",
    "load_rosters",
    "new_battle",
    "parse_roster",
    "resolve_turn",
    "rosters_of",
    "set_formation",
    "shuffled_decks",
    "view_for",
]
