"""The state of a battle between turns (BATTLE.md 2 to 5), as frozen data.

A :class:`Battle` is always at a turn's selection: the start of its ``turn`` is done
(cards drawn, Energy recovered, reserved summons placed) and both players may plan; or
it is over (``outcome`` set). :func:`new_battle` builds turn 1 from the teams, their
formations and the shuffled decks (random draws the caller made and records).

Decisions where BATTLE.md is silent:

- Placement order is the order a team lists its characters, then its summons in the
  order they appeared. A unit is named ``"<team>.<character>"`` or ``"<team>.s<n>"``.
- Both teams may field the same character (a mirror); their cards are told apart by team.
- The hand limit is 5, or the deck's size when it is smaller (4 with two defeated).
- A defeated character stays in ``units`` with 0 HP and no square; a defeated summon
  leaves. Its summons and reservations outlive a defeated character.
- A card's cooldown is stored as CT + 1 when it is played and counts down at every turn
  end, so CT n keeps it out of the next n turns.
- ``spd`` effects change the order from the next turn on (the order of a turn is fixed
  when its actions begin) and last T turns from then; they are stored as T + 1.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from services.battle.rules.content import Roster

Square = tuple[int, int]
"""(row, column); rows 0..2 top to bottom, column 0 the front."""

ROWS = COLS = 3
TEAM_SIZE = 3
HAND_LIMIT = 5
MAX_SPECIALS = 3
MAX_ENERGY = 12
LAST_TURN = 10
ENERGY_BY_TURN = (5, 4, 4, 4, 4, 4, 4, 6, 6, 6)
"""Energy recovered at the start of turns 1..10 (turns 8-10 include Sudden Death's +2)."""
DEFAULT_FORMATION: tuple[Square, ...] = ((0, 0), (1, 0), (2, 0))
SQUARES: tuple[Square, ...] = tuple((r, c) for r in range(ROWS) for c in range(COLS))


class BattleError(ValueError):
    """A battle cannot be built or played as asked; the message says what to change."""


class Reason(StrEnum):
    WIPEOUT = "wipeout"
    DECISION = "decision"
    """After turn 10 (or a double wipeout at a turn end): BATTLE.md 5's order."""
    GIVE_UP = "give_up"


@dataclass(frozen=True, slots=True)
class Outcome:
    winner: int
    reason: Reason


@dataclass(frozen=True, slots=True)
class Burn:
    damage: int
    turns: int


@dataclass(frozen=True, slots=True)
class SpdChange:
    delta: int
    turns: int


@dataclass(frozen=True, slots=True)
class Unit:
    """A character or a summon on a team's field. ``square`` is None once defeated."""

    uid: str
    ref: str
    summon: bool
    hp: int
    max_hp: int
    spd: int
    square: Square | None
    order: int
    shield: int = 0
    cover: int = 0
    burns: tuple[Burn, ...] = ()
    spd_changes: tuple[SpdChange, ...] = ()
    damage_dealt: int = 0
    placed: int = 0
    """A summon's place in the battle's placement order, both teams counted (1, 2, ...:
    the order summons act in, BATTLE.md 4.4); 0 for a character."""

    @property
    def alive(self) -> bool:
        return self.square is not None


@dataclass(frozen=True, slots=True)
class Reservation:
    """A summon waiting for its square (BATTLE.md 2): it appears at a turn start when
    the square is free."""

    summon: str
    square: Square
    by: str


@dataclass(frozen=True, slots=True)
class Team:
    units: tuple[Unit, ...]
    energy: int
    deck: tuple[str, ...]
    cursor: int
    """Index in ``deck`` of the next card to look at when drawing."""
    hand: tuple[str, ...]
    specials: tuple[str, ...]
    """Unlocked Specials in hand, outside the hand limit."""
    used_specials: tuple[str, ...]
    cooldowns: tuple[tuple[str, int], ...]
    """(card, turn ends left) for cards on CT, sorted by card."""
    reservations: tuple[Reservation, ...]
    next_order: int
    hand_size: int = -1
    """In an opponent's view only: how many cards the hidden hand holds."""


@dataclass(frozen=True, slots=True)
class Battle:
    content_version: str
    turn: int
    teams: tuple[Team, Team]
    outcome: Outcome | None = None
    last_actor: int | None = None
    """The team whose action resolved last (the third tie-break after turn 10)."""


def unit_id(team: int, ref: str) -> str:
    return f"{team}.{ref}"


def effective_spd(unit: Unit) -> int:
    """SPD with its active changes, never below 1."""
    if not unit.spd_changes:
        return unit.spd
    return max(1, unit.spd + sum(c.delta for c in unit.spd_changes))


def hand_limit(deck_size: int) -> int:
    return min(HAND_LIMIT, deck_size)


def new_battle(
    roster: Roster,
    teams: tuple[tuple[str, ...], tuple[str, ...]],
    decks: tuple[tuple[str, ...], tuple[str, ...]],
    formations: tuple[tuple[Square, ...] | None, tuple[Square, ...] | None] = (None, None),
) -> Battle:
    """Turn 1 of a battle: each team's three characters on their formation squares
    (``None``: the default, the front column), its deck in the drawn order, 5 cards drawn
    and turn 1's Energy recovered. ``decks[t]`` must be an order of team t's 12 cards."""
    built = []
    for t in (0, 1):
        members, deck = teams[t], decks[t]
        formation = formations[t] or DEFAULT_FORMATION
        _check_team(roster, t, members, formation)
        cards = sorted(c for m in members for c in roster.characters[m].cards)
        if sorted(deck) != cards:
            raise BattleError(f"team {t}: the deck must be an order of its 12 cards {cards}")
        units = tuple(
            Unit(
                unit_id(t, ref),
                ref,
                False,
                roster.characters[ref].hp,
                roster.characters[ref].hp,
                roster.characters[ref].spd,
                formation[i],
                i,
            )
            for i, ref in enumerate(members)
        )
        built.append(
            Team(
                units=units,
                energy=ENERGY_BY_TURN[0],
                deck=tuple(deck),
                cursor=HAND_LIMIT % len(deck),
                hand=tuple(deck[:HAND_LIMIT]),  # the first draw: an empty hand takes the top 5
                specials=(),
                used_specials=(),
                cooldowns=(),
                reservations=(),
                next_order=TEAM_SIZE,
            )
        )
    return Battle(roster.version, 1, (built[0], built[1]))


def _check_team(
    roster: Roster, t: int, members: tuple[str, ...], formation: tuple[Square, ...]
) -> None:
    if len(members) != TEAM_SIZE or len(set(members)) != TEAM_SIZE:
        raise BattleError(f"team {t}: three different characters, got {list(members)}")
    unknown = [m for m in members if m not in roster.characters]
    if unknown:
        raise BattleError(
            f"team {t}: unknown characters {unknown}; known: {sorted(roster.characters)}"
        )
    _check_team_squares(t, formation)


def _check_team_squares(t: int, formation: tuple[Square, ...]) -> None:
    if len(formation) != TEAM_SIZE or len(set(formation)) != TEAM_SIZE:
        raise BattleError(f"team {t}: a formation is 3 distinct squares, got {list(formation)}")
    for square in formation:
        if square not in SQUARES:
            raise BattleError(f"team {t}: square {square} is off the 3x3 field")


def set_formation(battle: Battle, player: int, formation: tuple[Square, ...]) -> Battle:
    """The player places their three characters (BATTLE.md 2), in team order, before
    turn 1 resolves; a battle starts on the default formation until then."""
    if battle.outcome is not None or battle.turn != 1:
        raise BattleError("the formation is set before turn 1 resolves")
    if player not in (0, 1):
        raise BattleError(f"player must be 0 or 1, not {player}")
    team = battle.teams[player]
    _check_team_squares(player, formation)
    units = tuple(replace(u, square=formation[u.order]) if not u.summon else u for u in team.units)
    teams = list(battle.teams)
    teams[player] = replace(team, units=units)
    return replace(battle, teams=(teams[0], teams[1]))


def give_up(battle: Battle, player: int) -> Battle:
    """The player gives up (or is counted as disconnected, BATTLE.md 5): they lose."""
    if battle.outcome is not None:
        raise BattleError("the battle is over")
    if player not in (0, 1):
        raise BattleError(f"player must be 0 or 1, not {player}")
    return replace(battle, outcome=Outcome(1 - player, Reason.GIVE_UP))
