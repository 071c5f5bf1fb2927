"""The matchmaking rules as plain functions: the widening window, pairing, bot fills,
Roulette's compatible rule sets, custom-table and practice rules, bot decks."""

from __future__ import annotations

import asyncio
from itertools import combinations
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.matchmaker import clients
from services.matchmaker.clients import LocalBotDecks, StarterDecks
from services.matchmaker.domain import (
    COMPATIBLE_RULE_SETS,
    MODE_RULES,
    DeckChoice,
    Mode,
    RuleSet,
    TradeRule,
    Visibility,
    Waiting,
    WindowPolicy,
    bot_name,
    check_custom_rules,
    due_for_bot,
    legal_deck,
    pair_tickets,
    practice_rules,
    rating_band,
    roulette_rules,
)
from services.matchmaker.handlers import DeckRequest
from services.platform.errors import InvalidArgument
from services.rules.compatibility import rule_set_problem

POLICY = WindowPolicy()


def waiting(*tickets: tuple[int, float]) -> list[Waiting]:
    return [Waiting(f"t{i}", f"p{i}", r, at) for i, (r, at) in enumerate(tickets)]


def test_the_window_starts_at_50_widens_25_every_5_seconds_and_stops_at_300() -> None:
    assert [POLICY.window(s) for s in (0, 4.9, 5, 10, 20, 49.9, 50, 3600)] == [
        50, 50, 75, 100, 150, 275, 300, 300,
    ]  # fmt: skip
    assert POLICY.next_widening(0) == 5 and POLICY.next_widening(12) == 15
    assert POLICY.next_widening(50) is None
    with pytest.raises(ValueError, match="window"):
        WindowPolicy(start=400, cap=300)


def test_the_oldest_ticket_takes_the_nearest_rating_within_its_window() -> None:
    pairs = pair_tickets(waiting((1500, 0), (1540, 1), (1700, 2), (1520, 3)), 10, POLICY)
    assert [(p.first.ticket_id, p.second.ticket_id, p.gap) for p in pairs] == [("t0", "t3", 20)]


def test_equal_ratings_pair_first_come_first_served() -> None:
    pairs = pair_tickets(waiting(*[(1500, float(i)) for i in range(5)]), 10, POLICY)
    assert [(p.first.ticket_id, p.second.ticket_id) for p in pairs] == [("t0", "t1"), ("t2", "t3")]


def test_a_long_wait_decides_for_a_newcomer_but_never_beyond_the_cap() -> None:
    old_and_new = waiting((1500, 0), (1780, 59))
    assert pair_tickets(old_and_new, 60, POLICY)[0].gap == 280  # the old ticket's 300
    assert pair_tickets(waiting((1500, 0), (1801, 1)), 10_000, POLICY) == []


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(800, 2300), st.floats(0, 120, allow_nan=False)),
        max_size=60,
        unique_by=lambda t: t[1],
    ),
    st.floats(120, 200),
)
def test_pairs_are_disjoint_within_the_window_and_no_acceptable_pair_is_left(
    tickets: list[tuple[int, float]], now: float
) -> None:
    queue = waiting(*tickets)
    pairs = pair_tickets(queue, now, POLICY)
    seen = [t.ticket_id for p in pairs for t in (p.first, p.second)]
    assert len(seen) == len(set(seen))
    for pair in pairs:
        older = min(pair.first, pair.second, key=lambda t: t.enqueued_at)
        assert pair.gap <= POLICY.window(now - older.enqueued_at) <= POLICY.cap
    left = [t for t in queue if t.ticket_id not in seen]
    for a, b in combinations(left, 2):
        older = min(a, b, key=lambda t: t.enqueued_at)
        assert abs(a.rating - b.rating) > POLICY.window(now - older.enqueued_at)


def test_a_bot_is_due_only_after_the_fill_delay() -> None:
    queue = waiting((1500, 0), (1500, 5))
    assert [t.ticket_id for t in due_for_bot(queue, 20, 20)] == ["t0"]


def test_roulette_offers_the_42_compatible_rule_sets() -> None:
    assert len(COMPATIBLE_RULE_SETS) == 42 == len(set(COMPATIBLE_RULE_SETS))
    assert all(r.same or r.plus for r in COMPATIBLE_RULE_SETS if r.combo)
    assert {r.visibility for r in COMPATIBLE_RULE_SETS} == set(Visibility)
    assert not any(r.trade_one or r.same_wall for r in COMPATIBLE_RULE_SETS)
    assert sum(r.elemental for r in COMPATIBLE_RULE_SETS) == 21
    assert roulette_rules(0) == COMPATIBLE_RULE_SETS[0]
    with pytest.raises(ValueError, match="roulette index"):
        roulette_rules(42)


def test_the_queues_play_the_rules_of_the_rulebook() -> None:
    assert MODE_RULES[Mode.RANKED] == RuleSet(
        Visibility.CLOSED, True, True, True, trade=TradeRule.ONE
    )
    for mode in (Mode.UNRANKED, Mode.DRAFT):
        assert MODE_RULES[mode] == RuleSet(Visibility.THREE_OPEN, True, True, True)


def test_trade_one_needs_closed_same_plus_and_combo() -> None:
    check_custom_rules(RuleSet(Visibility.CLOSED, True, True, True, trade=TradeRule.ONE))
    with pytest.raises(InvalidArgument, match="lacks Closed visibility, Same"):
        check_custom_rules(RuleSet(Visibility.ALL_OPEN, False, True, True, trade=TradeRule.ONE))


def test_practice_keeps_the_origin_rules_without_trading() -> None:
    assert practice_rules(Mode.RANKED, None, 0) == RuleSet(Visibility.CLOSED, True, True, True)
    assert practice_rules(Mode.ROULETTE, None, 5) == COMPATIBLE_RULE_SETS[5]
    custom = RuleSet(Visibility.ALL_OPEN, elemental=True)
    assert practice_rules(Mode.CUSTOM, custom, 0) == custom
    with pytest.raises(InvalidArgument, match="never trades"):
        practice_rules(
            Mode.CUSTOM, RuleSet(Visibility.CLOSED, True, True, True, trade=TradeRule.ONE), 0
        )
    with pytest.raises(InvalidArgument, match="needs the table settings"):
        practice_rules(Mode.CUSTOM, None, 0)


def test_rating_bands_label_waits() -> None:
    assert [rating_band(r) for r in (900, 1200, 1599, 1700, 2400)] == [
        "<1200", "1200-1399", "1400-1599", "1600-1799", ">=1800",
    ]  # fmt: skip


def test_built_in_decks_are_legal_and_reproducible() -> None:
    for seed in range(300):
        deck = clients.draw_deck(Random(seed), "x", "bot")
        assert legal_deck([c.stars for c in deck], [c.character_id for c in deck])
    assert all(bot_name(i).startswith("[BOT] ") for i in range(40))
    again = asyncio.run(LocalBotDecks().draw("req-1"))
    assert again == asyncio.run(LocalBotDecks().draw("req-1"))
    assert again != asyncio.run(LocalBotDecks().draw("req-2"))
    saved = DeckChoice(deck_id="d1")
    first = asyncio.run(StarterDecks().resolve(DeckRequest("p1", saved, "m1", lock=False)))
    assert first == asyncio.run(StarterDecks().resolve(DeckRequest("p1", saved, "m2", lock=True)))


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        ({}, None),
        ({"combo": True}, "Combo needs Same or Plus on"),
        ({"combo": True, "plus": True}, None),
        ({"same_wall": True, "plus": True}, "Same Wall needs Same on"),
        ({"same_wall": True, "same": True}, None),
        ({"trade_one": True}, "lacks Closed visibility, Same, Plus, Combo"),
        ({"trade_one": True, "closed": True, "same": True, "plus": True}, "lacks Combo"),
        ({"trade_one": True, "closed": True, "same": True, "plus": True, "combo": True}, None),
    ],
)
def test_which_rules_combine_is_decided_in_one_place(
    flags: dict[str, bool], problem: str | None
) -> None:
    """The rules engine's check, which MatchService.CreateMatch and the matchmaker's
    custom tables, practice and Roulette draws all call."""
    every = {
        "closed": False, "same": False, "plus": False, "combo": False, "trade_one": False,
        "same_wall": False,
    }  # fmt: skip
    found = rule_set_problem(**{**every, **flags})  # type: ignore[arg-type]
    assert found is None if problem is None else (found is not None and problem in found)
    rules = RuleSet(
        Visibility.CLOSED if flags.get("closed") else Visibility.ALL_OPEN,
        flags.get("same", False),
        flags.get("plus", False),
        flags.get("combo", False),
        trade=TradeRule.ONE if flags.get("trade_one") else TradeRule.NONE,
        same_wall=flags.get("same_wall", False),
    )
    if problem is None:
        check_custom_rules(rules)
    else:
        with pytest.raises(InvalidArgument, match=problem):
            check_custom_rules(rules)
