"""What one player may see of a battle (BATTLE.md 6): their own hand, Specials, deck
order and Energy; of the opponent, everything on the field (units, HP, effects,
reservations), their Energy, cooldowns and unlocked Specials, the size of their hand,
and the cards their deck holds, but never the hand itself or the deck's order. Plans are
not part of a battle at all: the service keeps them until both have committed.

Decision where BATTLE.md is silent: the opponent's Energy, cooldowns and unlocked
Specials are shown, since the resolved actions and their log reveal them anyway. (A
player's ``BattleView``, built by the service's ``presenter.py``, names the character of
an opponent's unlock, not the card: the Special is in their hidden hand. With one
Special per character the card follows from the roster, so the CPU, which decides from
this view, knows nothing a player could not work out.)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from services.battle.rules.state import Battle, Team


@dataclass(frozen=True, slots=True)
class BattleView:
    """A battle as ``player`` sees it: the opponent's team is redacted (its ``hand`` is
    empty with ``hand_size`` set, its ``deck`` sorted and its cursor 0)."""

    player: int
    battle: Battle

    @property
    def me(self) -> Team:
        return self.battle.teams[self.player]

    @property
    def opponent(self) -> Team:
        return self.battle.teams[1 - self.player]


def redact(team: Team) -> Team:
    """A team with its hidden parts taken out."""
    return replace(team, hand=(), hand_size=len(team.hand), deck=tuple(sorted(team.deck)), cursor=0)


def view_for(battle: Battle, player: int) -> BattleView:
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, not {player}")
    teams = list(battle.teams)
    teams[1 - player] = redact(teams[1 - player])
    return BattleView(player, replace(battle, teams=(teams[0], teams[1])))
