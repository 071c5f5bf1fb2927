"""The collection service's settings: the rulebook's durations are the defaults."""

from __future__ import annotations

from services.collection.config import CollectionSettings
from services.collection.domain import draft_session, trade

BASE = {"TRIAD_DATABASE_URL": "postgresql://db/triad"}


def test_the_rulebook_durations_are_the_defaults() -> None:
    """RULES.md 7: the winner has 2 minutes; RULES.md 8: 3 minutes to pick, 120 s idle
    forfeits. The domain's own defaults say the same."""
    settings = CollectionSettings.from_env(BASE)
    assert settings.trade_choice_seconds == trade.CHOICE_SECONDS == 120.0
    assert settings.draft_pick_seconds == draft_session.PICK_SECONDS == 180.0
    assert settings.draft_inactivity_seconds == draft_session.INACTIVITY_SECONDS == 120.0
