"""Plans (BATTLE.md 4.2): each player's ordered list of (character, card, target).

A plan is legal when every card is in the player's hand (or an unlocked Special), each
appears once, belongs to the living character named, is off CT, aims at a legal target
of its range as the fields stand at selection, and the cards cost at most the player's
Energy in all.

Decision where BATTLE.md is silent: a card is played by the character it belongs to
(the ``character`` of an action must be the card's owner).

A refusal names the action as the player's screen does, from 1 ("your action 1 (Kira
Volt: Jolt)"), and for a wrong target says what the card takes in words ("Rally targets
its user: send no target"; a summon "needs a square of your own field"), with the legal
choices where it takes one; a target that chose no unit (an empty square, an empty
line) is told so first ("that square of the enemy field is empty"), and a card on CT
when it is played again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from services.battle.rules.content import Card, Range, Roster
from services.battle.rules.state import COLS, ROWS, Battle, BattleError, Square, Team, unit_id
from services.battle.rules.targets import NONE, Target, choices, is_legal


class PlanError(BattleError):
    """A plan that may not be played; nothing is changed. ``player``: whose plan (the
    message names them, "player 0's ..."), and ``detail`` the rest, which the player
    themself is told as "your ..."."""

    def __init__(self, detail: str, player: int | None = None) -> None:
        super().__init__(detail if player is None else f"player {player}'s {detail}")
        self.detail, self.player = detail, player

    def to_player(self) -> str:
        """The message as the plan's own player reads it."""
        return str(self) if self.player is None else f"your {self.detail}"


@dataclass(frozen=True, slots=True)
class Action:
    character: str
    card: str
    target: Target


Plan = tuple[Action, ...]


def fields(battle: Battle, player: int) -> tuple[set[Square], set[Square]]:
    """The occupied squares of (the enemy field, one's own field)."""
    return _occupied(battle.teams[1 - player]), _occupied(battle.teams[player])


def _occupied(team: Team) -> set[Square]:
    return {u.square for u in team.units if u.square is not None}


def playable(battle: Battle, player: int) -> list[str]:
    """The cards the player may set this turn: hand and Specials, off CT, of a living
    owner (a defeated character's cards have already left)."""
    team = battle.teams[player]
    cooling = {card for card, _ in team.cooldowns}
    return [c for c in (*team.hand, *team.specials) if c not in cooling]


def card_targets(roster: Roster, battle: Battle, player: int, card: Card) -> list[Target]:
    enemy, own = fields(battle, player)
    return choices(card.range, card.ignore_formation, bool(card.summons), enemy, own)


def legal_actions(roster: Roster, battle: Battle, player: int) -> list[Action]:
    """Every single action the player could set now, ignoring the Energy of the rest."""
    if battle.outcome is not None:
        return []
    energy = battle.teams[player].energy
    actions: list[Action] = []
    for cid in playable(battle, player):
        card = roster.cards[cid]
        if card.cost <= energy:
            actions.extend(
                Action(card.owner, cid, t) for t in card_targets(roster, battle, player, card)
            )
    return actions


def legal_plans(roster: Roster, battle: Battle, player: int) -> Iterator[Plan]:
    """Every legal plan, the empty one first, then by extension in ``legal_actions``
    order. There are many (orders times targets): callers take what they need."""
    actions = legal_actions(roster, battle, player)
    energy = battle.teams[player].energy
    yield from _extend((), frozenset(), energy, actions, roster)


def _extend(
    plan: Plan, used: frozenset[str], energy: int, actions: list[Action], roster: Roster
) -> Iterator[Plan]:
    yield plan
    for action in actions:
        cost = roster.cards[action.card].cost
        if action.card not in used and cost <= energy:
            yield from _extend(
                (*plan, action), used | {action.card}, energy - cost, actions, roster
            )


def plan_cost(roster: Roster, plan: Plan) -> int:
    return sum(roster.cards[a.card].cost for a in plan)


def check_plans(roster: Roster, battle: Battle, plans: tuple[Plan, Plan]) -> None:
    """Both players' plans at once (the fields are read once for the two)."""
    squares = (_occupied(battle.teams[0]), _occupied(battle.teams[1]))
    _check(roster, battle, 0, plans[0], squares[1], squares[0])
    _check(roster, battle, 1, plans[1], squares[0], squares[1])


def check_plan(roster: Roster, battle: Battle, player: int, plan: Plan) -> None:
    """Raise :class:`PlanError` naming the first thing wrong with ``plan``."""
    enemy, own = fields(battle, player)
    _check(roster, battle, player, plan, enemy, own)


def _check(
    roster: Roster,
    battle: Battle,
    player: int,
    plan: Plan,
    enemy: set[Square],
    own: set[Square],
) -> None:
    if battle.outcome is not None:
        raise PlanError("the battle is over")
    if roster.version != battle.content_version:
        raise PlanError(
            f"the battle uses content {battle.content_version!r}, not {roster.version!r}"
        )
    team = battle.teams[player]
    open_cards = set(team.hand)
    open_cards.update(team.specials)
    for cooling, _ in team.cooldowns:
        open_cards.discard(cooling)
    alive = {u.ref for u in team.units if u.square is not None and not u.summon}
    cards, seen, cost = roster.cards, set[str](), 0
    for i, action in enumerate(plan):
        card = cards.get(action.card)
        if card is None or action.card in seen or action.card not in open_cards:
            _refuse_card(roster, team, player, i, action, action.card in seen)
        assert card is not None
        seen.add(action.card)
        cost += card.cost
        if card.owner != action.character:
            owner = roster.characters[card.owner].name
            who = f"played by {owner}, not {_named(roster, action)}"
            raise PlanError(f"{_where(roster, i, action)}: {who}", player)
        if action.character not in alive:
            raise PlanError(
                f"{_where(roster, i, action)}: {_named(roster, action)} is defeated", player
            )
        if (off := _off_field(action.target)) is not None:
            raise PlanError(f"{_where(roster, i, action)}: target {off}", player)
        if not is_legal(
            card.range, card.ignore_formation, bool(card.summons), action.target, enemy, own
        ):
            sent = "no target" if action.target == NONE else f"target {_show(action.target)}"
            takes = _takes(card, card_targets(roster, battle, player, card))
            if (empty := _empty(card, action.target, enemy, own)) is not None:
                takes = f"{empty}; {takes}"
            raise PlanError(f"{_where(roster, i, action)}: {sent} refused: {takes}", player)
    if cost > team.energy:
        raise PlanError(f"plan costs {cost} Energy, {team.energy} held", player)


def _refuse_card(
    roster: Roster, team: Team, player: int, index: int, action: Action, twice: bool
) -> None:
    """Why a card may not be set (a defeated character's cards have left the hand)."""
    where = _where(roster, index, action)
    if action.card not in roster.cards:
        raise PlanError(f"{where}: no such card", player)
    if twice:
        raise PlanError(f"{where}: a card is set once per turn", player)
    if (left := dict(team.cooldowns).get(action.card)) is not None:
        # found from outside: "on CT" alone; a card's CT counts down at each turn end
        # (``turns.py``), so with n turn ends left it is played again n turns on
        raise PlanError(f"{where}: on CT, playable again in {_turns(left)}", player)
    owner = next((u for u in team.units if u.uid == unit_id(player, action.character)), None)
    if owner is not None and not owner.alive:
        raise PlanError(f"{where}: {_named(roster, action)} is defeated", player)
    raise PlanError(f"{where}: not in the hand", player)


def _turns(count: int) -> str:
    return f"{count} turn{'s' if count != 1 else ''}"


def _where(roster: Roster, index: int, action: Action) -> str:
    """An action as the player sees it: its place in the plan from 1, the card by its
    character's and its own name ("action 2 (Kira: Jolt)"); an unknown card by its id."""
    card = roster.cards.get(action.card)
    owner = roster.characters.get(card.owner) if card is not None else None
    named = f"{owner.name}: {card.name}" if card is not None and owner is not None else action.card
    return f"action {index + 1} ({named})"


def _off_field(target: Target) -> str | None:
    """What of a target lies off the 3x3 field, in words ("row -1 is off ..."), or None."""
    for name, value in (("row", target.row), ("col", target.col)):
        if value is not None and not 0 <= value < ROWS:
            return f"{name} {value} is off the 3x3 field (0..2)"
    return None


def _named(roster: Roster, action: Action) -> str:
    character = roster.characters.get(action.character)
    return character.name if character is not None else repr(action.character)


_TAKES = {
    Range.SINGLE: "targets one enemy unit",
    Range.CROSS: "targets one enemy unit (and the squares beside it)",
    Range.ROW: "targets an enemy row (send row alone)",
    Range.COLUMN: "targets an enemy column (send col alone)",
    Range.ALLY: "targets one unit of your own field",
    Range.SELF: "targets its user: send no target",
    Range.ALL: "hits every enemy unit: send no target",
    Range.ALLIES: "helps every unit of your team: send no target",
}
"""What a card of each range takes, in words a player can act on."""


def _empty(card: Card, target: Target, enemy: set[Square], own: set[Square]) -> str | None:
    """Why a target was refused when it chose no unit at all: its square, or its line,
    is empty (found from outside: an empty square was told "not one behind another unit
    in its row", the formation's reason)."""
    square = target.square
    if card.summons or square is None:
        line = _line(target) if card.range in (Range.ROW, Range.COLUMN) else None
        if line is not None and not any(s in enemy for s in line):
            return f"that enemy {_show(target)[1:-1]} is empty"
        return None
    if card.range in (Range.SINGLE, Range.CROSS) and square not in enemy:
        return "that square of the enemy field is empty"
    if card.range is Range.ALLY and square not in own:
        return "that square of your field is empty"
    return None


def _line(target: Target) -> list[Square] | None:
    """The squares of the row or the column ``target`` names (None: it names neither)."""
    if target.row is not None and target.col is None:
        return [(target.row, c) for c in range(COLS)]
    if target.col is not None and target.row is None:
        return [(r, target.col) for r in range(ROWS)]
    return None


def _takes(card: Card, legal: list[Target]) -> str:
    """What ``card`` takes as its target, and where a choice is asked, the legal ones
    now: a summon is placed on a square of one's own field (free, or reserved when
    taken: BATTLE.md 2), its range ``self`` in the roster naming the summoner."""
    if card.summons:
        return f"{card.name} needs a square of your own field (row and col 0..2)"
    said = f"{card.name} {_TAKES[card.range]}"
    if legal == [NONE]:
        return said
    if card.range is Range.SINGLE and not card.ignore_formation:
        said += ", not one behind another unit in its row"
    return f"{said}: one of {_shows(legal)}" if legal else f"{said}: there is none now"


def _show(target: Target) -> str:
    parts = [f"{k} {v}" for k, v in (("row", target.row), ("col", target.col)) if v is not None]
    return "{" + ", ".join(parts) + "}" if parts else "{}"


def _shows(targets: list[Target]) -> str:
    return "[" + ", ".join(_show(t) for t in targets) + "]"
