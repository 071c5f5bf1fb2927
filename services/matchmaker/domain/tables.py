"""Custom tables of the lobby (RULES.md 6), challenges (a table for one named player,
RULES.md 14) and the filters players list them by."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from services.matchmaker.domain.modes import RealmModules, RuleSet, TradeRule, Visibility
from services.matchmaker.domain.seats import DeckChoice


@dataclass(frozen=True, slots=True)
class TableSettings:
    rules: RuleSet
    random_deck: bool = False
    battle: bool = False
    """Skirmish: the table starts a battle (the rules and decks play no part)."""


@dataclass(frozen=True, slots=True)
class TableFilter:
    """Lobby filters; ``None`` matches everything (common.proto TableFilter)."""

    visibilities: frozenset[Visibility] = frozenset()
    same: bool | None = None
    plus: bool | None = None
    combo: bool | None = None
    elemental: bool | None = None
    same_wall: bool | None = None
    random_deck: bool | None = None
    trades: frozenset[TradeRule] = field(default_factory=frozenset)
    """Trade rules; empty: any."""
    challenges_only: bool | None = None
    boards: frozenset[int] = field(default_factory=frozenset)
    """Board sides (3, 4, 5); empty: any."""
    house_hands: bool | None = None
    realm: bool | None = None
    """Realm tables (RULES.md 17) only (true) or standard ones only (false)."""
    realm_modules: RealmModules | None = None
    """Only Realm tables with exactly these modules; None: any."""
    sudden_death: bool | None = None
    battles: bool = False
    """Skirmish: battle tables only; else Triad tables only (never both)."""

    def applying(self) -> TableFilter:
        """The filters that apply: with ``battles``, ``challenges_only`` alone, as a
        battle table's rules, board and decks play no part (a battle table keeps the
        default rules it was made with; found from outside: filter.battles with
        ``same`` false listed no battle table, a 4x4 board or Closed none either)."""
        if not self.battles:
            return self
        return TableFilter(challenges_only=self.challenges_only, battles=True)


class TableState(StrEnum):
    OPEN = "open"
    JOINING = "joining"
    """A guest sat down and the match is being created."""
    STARTED = "started"
    CLOSED = "closed"
    EXPIRED = "expired"
    DECLINED = "declined"
    """The challenged player declined the challenge (RULES.md 14)."""


@dataclass(frozen=True, slots=True)
class Table:
    table_id: str
    host_id: str
    host_name: str
    settings: TableSettings
    created_at: datetime
    expire_at: datetime
    host_deck: DeckChoice | None = None
    challenged_name: str = ""
    challenged_id: str = ""
    """The challenged player's id; empty for a public table, or for a challenge that
    named the player by name alone (it is then never pushed to them)."""
    state: TableState = TableState.OPEN
    match_id: str = ""
    guest_id: str = ""
    guest_name: str = ""
    closed_because: str = ""
    """Why the server closed the table on its host's behalf (a guest joined and the
    host could not play it); empty when the host closed it, or it is not closed."""

    def visible_to(self, player_id: str, player_name: str) -> bool:
        """A private challenge is shown only to its host and the challenged player."""
        return (
            not self.challenged_name
            or player_id == self.host_id
            or self.challenges(player_id, player_name)
        )

    def challenges(self, player_id: str, player_name: str) -> bool:
        """Whether this table is a challenge to that player (RULES.md 14)."""
        if not self.challenged_name:
            return False
        if self.challenged_id:
            return player_id == self.challenged_id
        return player_name == self.challenged_name
