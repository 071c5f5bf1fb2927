"""The refusals of the battle domain, each a platform error kind (its gRPC status)."""

from __future__ import annotations

from services.platform.errors import FailedPrecondition, InvalidArgument, NotFound, short_id


class BattleNotFound(NotFound):
    """No such battle, or one the caller does not play: the same answer for both."""


def no_battle(battle_id: str) -> BattleNotFound:
    return BattleNotFound(f"you have no battle {short_id(battle_id)}")


class BattleOver(FailedPrecondition):
    pass


class ContentNotDeployed(FailedPrecondition):
    """The battle started under a content version this server does not have: it cannot
    be played (nor shown) with other content (BATTLE.md 1 and 6)."""


class NotNow(FailedPrecondition):
    """Well-formed, but not at this point of the battle (formation over, plan committed)."""


class BadFormation(InvalidArgument):
    pass


class BadPlan(InvalidArgument):
    """The plan breaks a rule of BATTLE.md 4.2; the message names the action and why."""
