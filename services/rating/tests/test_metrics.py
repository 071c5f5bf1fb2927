"""The rating metrics: the distribution per ladder from the rank buckets, and the counts."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from services.rating.domain import Unrated
from services.rating.handlers import AlreadyRated, Ignored
from services.rating.metrics import BAND, RatingMetrics
from services.rating.store import RatingReader
from services.rating.tests.builders import DRAFT, RANKED, random_games
from services.rating.tests.conftest import Ratings


@pytest.mark.integration
async def test_the_distribution_counts_every_ranked_player_once_per_ladder(
    pg_pool: Any, rating_schema: str, postgres: Ratings
) -> None:
    await postgres.rate_all(random_games(Random(4), 200, players=30, keys=(RANKED, DRAFT)))
    reader = RatingReader(pg_pool, rating_schema)
    registry = CollectorRegistry()
    metrics = RatingMetrics.register(registry)
    for key in (RANKED, DRAFT):
        bands = await reader.distribution(key, BAND)
        assert all(band % BAND == 0 and players >= 0 for band, players in bands)
        ranked = (await reader.rank(key, 0)).ranked_players
        assert sum(players for _, players in bands) == ranked > 0
        metrics.distribution(key, bands)
        labels = {"ladder": key.ladder.value, "season": "0"}
        assert registry.get_sample_value("triad_rating_ranked_players", labels) == ranked
        for band, players in bands:
            sample = registry.get_sample_value(
                "triad_rating_players", {**labels, "band": str(band)}
            )
            assert sample == players


def test_outcomes_are_counted_by_kind() -> None:
    registry = CollectorRegistry()
    metrics = RatingMetrics.register(registry)
    metrics.observe(AlreadyRated(RANKED))
    metrics.observe(Ignored(Unrated.BOT))
    metrics.duplicate_event()
    assert (
        registry.get_sample_value("triad_rating_duplicates_ignored_total", {"kind": "match"}) == 1
    )
    assert (
        registry.get_sample_value("triad_rating_duplicates_ignored_total", {"kind": "event"}) == 1
    )
    assert registry.get_sample_value("triad_rating_results_ignored_total", {"reason": "bot"}) == 1
