"""Coins for playing a match, and what keeps them from being farmed (wealth.match_reward):
nothing for a match that ended before both players placed a card, at most a few paid
matches per pair of players per UTC day, each decided once however often the match's
end is delivered."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest
from prometheus_client import REGISTRY

from services.collection import handlers_trades
from services.collection.config import CollectionSettings
from services.collection.domain import wealth
from services.collection.domain.events import FinishedMatch, FinishedSeat, PlayerRef, TradeRule
from services.collection.domain.wealth import PlayedMatch, RewardDecision, match_reward
from services.collection.handlers import Context
from services.collection.tests.builders import T0
from services.platform.settings import SettingsError

WIN, FIRST = wealth.MATCH_WIN_COINS, wealth.DAILY_FIRST_MATCH_COINS
DAY = T0.date().isoformat()


def played(placements: int, humans: tuple[str, ...] = ("ann", "bea")) -> PlayedMatch:
    return PlayedMatch("m1", humans, humans[0], placements, DAY)


# ---- the decision ---------------------------------------------------------------------


@pytest.mark.parametrize("placements", [0, 1])
def test_a_match_that_ended_before_both_players_placed_a_card_pays_nothing(
    placements: int,
) -> None:
    for humans in (("ann", "bea"), ("ann",)):  # against a second account or a bot
        reward = match_reward(played(placements, humans), 0, 5)
        assert reward == wealth.MatchReward(RewardDecision.UNPLAYED, (), None)


def test_a_match_both_played_pays_the_daily_bonus_to_both_and_the_win_to_the_winner() -> None:
    reward = match_reward(played(2), 0, 5)
    assert reward == wealth.MatchReward(RewardDecision.PAID, ("ann", "bea"), "ann")
    draw = match_reward(PlayedMatch("m1", ("ann", "bea"), None, 9, DAY), 0, 5)
    assert draw == wealth.MatchReward(RewardDecision.PAID, ("ann", "bea"), None)


def test_a_pair_is_paid_for_its_first_matches_of_the_day_up_to_the_limit() -> None:
    assert match_reward(played(9), 4, 5).decision is RewardDecision.PAID
    assert match_reward(played(9), 5, 5) == wealth.MatchReward(RewardDecision.PAIR_LIMIT, (), None)
    assert match_reward(played(9), 0, 0).decision is RewardDecision.PAIR_LIMIT


def test_a_bot_is_no_second_account_so_practice_has_no_pair_limit_and_no_win_coins() -> None:
    reward = match_reward(PlayedMatch("m1", ("ann",), "bot-3", 9, DAY), 0, 0)
    assert reward == wealth.MatchReward(RewardDecision.PAID, ("ann",), None)


def test_the_pair_is_unordered_and_only_two_humans_make_one() -> None:
    assert wealth.reward_pair(("bea", "ann")) == wealth.reward_pair(("ann", "bea"))
    assert wealth.reward_pair(("ann", "bea")) == ("ann", "bea")
    assert wealth.reward_pair(("ann",)) is None


def test_the_pair_limit_is_a_setting_with_a_default_and_a_clear_refusal() -> None:
    env = {"TRIAD_DATABASE_URL": "postgresql://triad@localhost/triad"}
    assert CollectionSettings.from_env(env).reward_matches_per_pair_per_day == 5
    name = "TRIAD_REWARD_MATCHES_PER_PAIR_PER_DAY"
    assert CollectionSettings.from_env({**env, name: "0"}).reward_matches_per_pair_per_day == 0
    for bad in ("-1", "2.5", "many"):
        with pytest.raises(SettingsError, match=f"{name} must be a whole number"):
            CollectionSettings.from_env({**env, name: bad})


# ---- settling, on both repository adapters --------------------------------------------


def finished(
    match_id: str,
    winner: str,
    loser: str,
    placements: int = 9,
    at: datetime = T0,
    bot: bool = False,
) -> FinishedMatch:
    return FinishedMatch(
        match_id,
        (
            FinishedSeat(PlayerRef(winner, winner.title()), False, ()),
            FinishedSeat(PlayerRef(loser, loser.title()), bot, ()),
        ),
        winner=0,
        trade=TradeRule.NONE,
        finished_at=at,
        placements=placements,
    )


async def settle(ctx: Context, match: FinishedMatch) -> None:
    """As the MatchFinished consumer does: in a transaction of its own."""
    await ctx.store.run(lambda unit: handlers_trades.settle_match(ctx, unit, match))


async def coins(ctx: Context, player_id: str) -> int:
    return (await ctx.store.balance(player_id)).coins


def decided(decision: RewardDecision) -> float:
    value = REGISTRY.get_sample_value("triad_match_rewards_total", {"decision": decision.value})
    return value or 0.0


@pytest.mark.integration
async def test_a_forfeit_before_both_placed_pays_neither_player_nor_against_a_bot(
    ctx: Context,
) -> None:
    before = decided(RewardDecision.UNPLAYED)
    await settle(ctx, finished("m1", "ann", "bea", placements=0))
    await settle(ctx, finished("m2", "cai", "bot-1", placements=1, bot=True))
    assert [await coins(ctx, p) for p in ("ann", "bea", "cai")] == [0, 0, 0]
    assert decided(RewardDecision.UNPLAYED) == before + 2
    # Both placed: the day's first match pays after all.
    await settle(ctx, finished("m3", "ann", "bea", placements=2))
    assert [await coins(ctx, p) for p in ("ann", "bea")] == [FIRST + WIN, FIRST]


@pytest.mark.integration
async def test_a_pair_stops_being_paid_at_the_limit_while_another_opponent_and_the_next_day_pay(
    ctx: Context,
) -> None:
    limited = Context(ctx.store, ctx.catalog, ctx.clock, ctx.rng, pair_rewards_per_day=3)
    before = decided(RewardDecision.PAIR_LIMIT)
    for n in range(5):  # the winner alternates: the pair is unordered
        ann_wins = n % 2 == 0
        await settle(limited, finished(f"m{n}", *(("ann", "bea") if ann_wins else ("bea", "ann"))))
    # Paid: m0 (ann, both first), m1 (bea), m2 (ann); m3 and m4 pay nothing.
    assert await coins(ctx, "ann") == FIRST + 2 * WIN
    assert await coins(ctx, "bea") == FIRST + WIN
    assert decided(RewardDecision.PAIR_LIMIT) == before + 2
    await settle(limited, finished("m5", "ann", "cai"))
    assert await coins(ctx, "ann") == FIRST + 3 * WIN
    assert await coins(ctx, "cai") == FIRST
    await settle(limited, finished("m6", "bea", "ann", at=T0 + timedelta(days=1)))
    assert await coins(ctx, "bea") == 2 * FIRST + 2 * WIN


@pytest.mark.integration
async def test_a_redelivered_match_end_neither_pays_nor_counts_twice(ctx: Context) -> None:
    limited = Context(ctx.store, ctx.catalog, ctx.clock, ctx.rng, pair_rewards_per_day=2)
    first = finished("m1", "ann", "bea")
    for _ in range(3):
        await settle(limited, first)
    assert await coins(ctx, "ann") == FIRST + WIN
    await settle(limited, finished("m2", "ann", "bea"))  # the pair's second: still paid
    assert await coins(ctx, "ann") == FIRST + 2 * WIN
    await settle(limited, first)
    await settle(limited, finished("m3", "ann", "bea"))  # the third: over the limit
    assert await coins(ctx, "ann") == FIRST + 2 * WIN


@pytest.mark.integration
async def test_matches_of_one_pair_settled_at_once_pay_exactly_the_limit(ctx: Context) -> None:
    limited = Context(ctx.store, ctx.catalog, ctx.clock, ctx.rng, pair_rewards_per_day=3)
    await asyncio.gather(*(settle(limited, finished(f"m{n}", "ann", "bea")) for n in range(8)))
    assert await coins(ctx, "ann") == FIRST + 3 * WIN
