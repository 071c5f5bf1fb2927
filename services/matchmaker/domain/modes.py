"""The modes and their rules as RULES.md sections 6 and 11 read: queues per mode, the
fixed rules of each queue, Roulette's compatible rule sets and what a custom table or
a practice match may combine. Which rules combine is decided once, by the rules
engine (``services/rules/compatibility.py``)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from itertools import product

from services.platform.errors import InvalidArgument
from services.rules.compatibility import board_problem, realm_problem, rule_set_problem
from services.rules.deck import hand_size_for
from services.rules.trade import TradeRule as TradeRule  # noqa: PLC0414 (re-export)
from services.rules.view import Visibility as Visibility  # noqa: PLC0414 (re-export)

UNRATED = 1500
"""RULES.md 10: every player starts at 1500; unrated queues compare everyone at it."""


class Mode(StrEnum):
    UNRANKED = "unranked"
    RANKED = "ranked"
    DRAFT = "draft"
    ROULETTE = "roulette"
    CUSTOM = "custom"
    PRACTICE = "practice"
    BATTLE = "battle"
    """Skirmish (BATTLE.md): the battle service plays it; no deck, no rules of Triad."""


QUEUES = (Mode.UNRANKED, Mode.RANKED, Mode.DRAFT, Mode.ROULETTE, Mode.BATTLE)
DECKLESS = (Mode.DRAFT, Mode.BATTLE)
"""Queues that take no deck: Draft drafts it after pairing, a battle has none."""
PRACTICE_ORIGINS = (Mode.UNRANKED, Mode.RANKED, Mode.DRAFT, Mode.ROULETTE, Mode.CUSTOM)
LADDERS: dict[Mode, str] = {Mode.RANKED: "ranked", Mode.DRAFT: "draft"}
"""The Elo ladder each rated queue pairs by and counts for (Season 0)."""


class BotLevel(StrEnum):
    NOVICE = "novice"
    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


class BattleLevel(StrEnum):
    """The CPU of a practice Skirmish battle (BATTLE.md; the battle service plays it)."""

    RANDOM = "random"
    GREEDY = "greedy"
    SEARCH = "search"


@dataclass(frozen=True, slots=True)
class RealmModules:
    """A Realm table's modules besides Same, Plus and Combo (RULES.md 17)."""

    type_advantage: bool = False
    clash: bool = False
    lair: bool = False
    resistance: bool = False
    cursed: bool = False

    @property
    def text(self) -> str:
        """The modules on, comma-separated ("" for none): how tables and plans store it."""
        return ",".join(f.name for f in fields(self) if getattr(self, f.name))

    @staticmethod
    def parse(text: str) -> RealmModules:
        names = {n for n in text.split(",") if n}
        known = {f.name for f in fields(RealmModules)}
        if names - known:
            raise ValueError(f"unknown Realm modules: {sorted(names - known)}")
        return RealmModules(**dict.fromkeys(names, True))


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every optional rule of one match in one value (RULES.md 3, 4, 6, 11)."""

    visibility: Visibility
    same: bool = False
    plus: bool = False
    combo: bool = False
    elemental: bool = False
    same_wall: bool = False
    trade: TradeRule = TradeRule.NONE
    sudden_death: bool = False
    """RULES.md 12: a table rule (custom tables and practice with a table's rules)."""
    board: int = 3
    """RULES.md 11: the board's side, 3, 4 or 5."""
    blocked: int = 0
    """RULES.md 11: how many cells a 5x5 board blocks (0..5), drawn by the match."""
    house_hands: bool = False
    """RULES.md 11: each player is dealt a hand from the whole catalog (4x4, 5x5)."""
    realm: RealmModules | None = None
    """RULES.md 17: a Realm table with these modules; None for the standard family."""

    @property
    def trades(self) -> bool:
        """Played for keeps: the decks are locked for the match (RULES.md 9)."""
        return self.trade is not TradeRule.NONE

    @property
    def trade_one(self) -> bool:
        return self.trade is TradeRule.ONE

    @property
    def hand_size(self) -> int:
        """The cards each player brings (RULES.md 11): 5, 8 or 13."""
        return hand_size_for(self.board)

    def without_trade(self) -> RuleSet:
        return RuleSet(
            self.visibility,
            self.same,
            self.plus,
            self.combo,
            self.elemental,
            self.same_wall,
            sudden_death=self.sudden_death,
            board=self.board,
            blocked=self.blocked,
            house_hands=self.house_hands,
            realm=self.realm,
        )


STANDARD = RuleSet(Visibility.THREE_OPEN, same=True, plus=True, combo=True)
MODE_RULES: dict[Mode, RuleSet] = {
    Mode.UNRANKED: STANDARD,
    Mode.RANKED: RuleSet(Visibility.CLOSED, same=True, plus=True, combo=True, trade=TradeRule.ONE),
    Mode.DRAFT: STANDARD,
    Mode.BATTLE: STANDARD,  # recorded with the start; the battle service has its own
}
"""RULES.md 6: the fixed rules of the queues; Roulette draws its own at pairing."""


def _compatible_rule_sets() -> tuple[RuleSet, ...]:
    sets = []
    for visibility, same, plus, combo, elemental in product(
        Visibility, (False, True), (False, True), (False, True), (False, True)
    ):
        if rule_set_problem(closed=False, same=same, plus=plus, combo=combo):
            continue  # Combo chains from Same or Plus captures: alone it is no rule
        sets.append(RuleSet(visibility, same, plus, combo, elemental))
    return tuple(sets)


COMPATIBLE_RULE_SETS = _compatible_rule_sets()
"""Roulette's choices (RULES.md 6): a visibility, Same, Plus and Elemental each on or
off, and Combo only when Same or Plus is on. 3 x 2 x 7 = 42 sets, drawn uniformly."""


def roulette_rules(index: int) -> RuleSet:
    """The compatible rule set the handler drew (``index`` uniform in 0..41)."""
    if not 0 <= index < len(COMPATIBLE_RULE_SETS):
        raise ValueError(f"roulette index {index} is outside 0..{len(COMPATIBLE_RULE_SETS) - 1}")
    return COMPATIBLE_RULE_SETS[index]


def check_custom_rules(rules: RuleSet) -> None:
    """RULES.md 6: what a custom table may combine; each refusal says why."""
    problem = rule_set_problem(
        closed=rules.visibility is Visibility.CLOSED,
        same=rules.same,
        plus=rules.plus,
        combo=rules.combo,
        trade=rules.trade.label,
        realm=rules.realm is not None,
        same_wall=rules.same_wall,
    )
    if problem is None:
        problem = board_problem(
            rows=rules.board,
            cols=rules.board,
            blocked=rules.blocked,
            house_hands=rules.house_hands,
            trades=rules.trades,
            realm=rules.realm is not None,
        )
    if problem is None and rules.realm is not None:
        problem = realm_problem(
            rows=rules.board,
            cols=rules.board,
            blocked=rules.blocked,
            elemental=rules.elemental,
            same_wall=rules.same_wall,
            trades=rules.trades,
        )
    if problem is not None:
        raise InvalidArgument(problem)


def realm_deck_problem(rules: RuleSet, random_deck: bool) -> str | None:
    """RULES.md 17: a Realm table plays house hands or saved decks, never Random ones."""
    if rules.realm is None or not random_deck or rules.house_hands:
        return None
    return "a Realm table plays house hands or saved decks, not Random decks: bring a saved deck"


def dealt_deck_problem(rules: RuleSet, brought: bool) -> str | None:
    """RULES.md 11: house hands are dealt from the catalog, so a deck ``brought`` (saved
    or Random) is refused rather than ignored, at a table and in practice alike."""
    if not rules.house_hands or not brought:
        return None
    return (
        "a house hands table deals both hands from the catalog: send no deck, and leave Random off"
    )


def practice_rules(origin: Mode, custom: RuleSet | None, roulette_index: int) -> RuleSet:
    """The rules of a practice match: those of the mode it starts from, never trading."""
    if origin not in PRACTICE_ORIGINS:
        raise InvalidArgument(
            "practice starts from Unranked, Ranked, Draft, Roulette or Custom rules"
        )
    if origin is Mode.ROULETTE:
        return roulette_rules(roulette_index)
    if origin is Mode.CUSTOM:
        if custom is None:
            raise InvalidArgument("practice with Custom rules needs the table settings")
        if custom.trades:
            raise InvalidArgument("practice never trades: choose the trade rule None")
        check_custom_rules(custom)
        return custom
    return MODE_RULES[origin].without_trade()
