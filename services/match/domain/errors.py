"""The refusals of the match domain, each a platform error kind (its gRPC status)."""

from __future__ import annotations

from services.platform.errors import FailedPrecondition, InvalidArgument, NotFound, short_id


class MatchNotFound(NotFound):
    """No such match, or one the caller does not sit in: the same answer for both, so
    strangers learn nothing (:func:`no_match`)."""


def no_match(match_id: str) -> MatchNotFound:
    """The one wording of a match the caller has not: the match as the client shows it."""
    return MatchNotFound(f"you have no match {short_id(match_id)}")


class NotYourTurn(FailedPrecondition):
    pass


class MatchOver(FailedPrecondition):
    pass


class TurnOver(FailedPrecondition):
    """A placement at or after the turn's deadline: the turn is missed (RULES.md 5)."""


class IllegalPlacement(InvalidArgument):
    """The cell is not on the board: malformed whatever the state."""


class CellUnavailable(FailedPrecondition):
    """The cell is occupied or blocked."""


class CardNotInHand(FailedPrecondition):
    pass


class LairRefused(FailedPrecondition):
    """Lair declared at a table without the Lair module, or a second time (RULES.md 17)."""
