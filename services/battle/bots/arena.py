"""CPU battles: two bots play a whole battle from a seed, and the record says how.

Every draw comes from one ``Random(seed)``: the deck orders, who commits first each
turn and each bot's choices (each bot has its own generator derived from the seed, so
a bot's thinking does not shift the other's draws).
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random

from services.battle.bots.levels import Bot, formation
from services.battle.rules.content import Roster
from services.battle.rules.draws import shuffled_decks
from services.battle.rules.replay import BattleRecord, Pair, TurnRecord
from services.battle.rules.resolve import resolve_turn
from services.battle.rules.state import Battle, new_battle
from services.battle.rules.views import view_for


@dataclass(frozen=True, slots=True)
class Played:
    record: BattleRecord
    battle: Battle
    """The final battle (``battle.outcome`` is set)."""


def random_teams(roster: Roster, rng: Random) -> Pair:
    """Two teams of three different characters each, six different characters in all."""
    six = rng.sample(sorted(roster.characters), 6)
    return (six[0], six[1], six[2]), (six[3], six[4], six[5])


def play(roster: Roster, teams: Pair, bots: tuple[Bot, Bot], seed: int) -> Played:
    rng = Random(seed)
    decks = shuffled_decks(roster, teams, rng)
    formations = (formation(roster, teams[0]), formation(roster, teams[1]))
    minds = (Random(rng.getrandbits(64)), Random(rng.getrandbits(64)))
    battle = new_battle(roster, teams, decks, formations)
    turns = []
    while battle.outcome is None:
        plans = (
            bots[0].choose(roster, view_for(battle, 0), minds[0]),
            bots[1].choose(roster, view_for(battle, 1), minds[1]),
        )
        first = rng.randrange(2)
        battle = resolve_turn(roster, battle, plans, first).battle
        turns.append(TurnRecord(plans, first))
    record = BattleRecord(roster.version, teams, decks, formations, tuple(turns))
    return Played(record, battle)
