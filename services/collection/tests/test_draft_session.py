"""Draft sessions as a pure aggregate (RULES.md 8): reveal, pick, deadlines, forfeits."""

from __future__ import annotations

from datetime import timedelta
from random import Random

import pytest

from services.collection.domain import draft_session as session
from services.collection.domain.draft import draw_pool, legal_completions
from services.collection.domain.events import (
    DraftCardPicked,
    DraftCompleted,
    DraftForfeited,
    PlayerRef,
)
from services.collection.tests.builders import CATALOG, T0
from services.platform.errors import AlreadyExists, InvalidArgument
from services.rules import DeckEntry, validate_deck

ANN = PlayerRef("ann", "Ann")
BEA = PlayerRef("bea", "Bea")


def created(seed: int = 3) -> session.Draft:
    rng = Random(seed)
    pools = (draw_pool(list(CATALOG), rng), draw_pool(list(CATALOG), rng))
    decision = session.create(None, "d1", "draft", 0, "pair1", (ANN, BEA), pools, T0)
    assert session.fold(decision.events) == decision.state
    return decision.state


def apply(state: session.Draft, decision: session.Decision) -> session.Draft:
    """The draft ``decision`` leaves, which is its events folded onto ``state``: decided
    once, never folded again to be saved."""
    assert session.fold(decision.events, state) == decision.state
    return decision.state


def test_draft_card_ids_are_unique_across_both_participants() -> None:
    state = created()
    ids = [c.id for s in state.seats for c in s.pool]
    assert len(ids) == len(set(ids)) == 30


def test_a_retry_creates_nothing_and_other_participants_are_refused() -> None:
    state = created()
    pools = (state.seats[0].pool, state.seats[1].pool)
    assert session.create(state, "d1", "draft", 0, "p", (BEA, ANN), pools, T0) == (
        session.Decision([], state)
    )
    with pytest.raises(AlreadyExists):
        session.create(state, "d1", "draft", 0, "p", (ANN, PlayerRef("x", "X")), pools, T0)


def legal_picks(state: session.Draft, seat: int) -> list[str]:
    return [c.id for c in legal_completions((), state.seats[seat].pool)[0]]


def test_picks_are_checked_and_a_card_is_picked_once() -> None:
    state = created()
    now = T0 + timedelta(seconds=10)
    first, second = legal_picks(state, 0)[:2]
    with pytest.raises(session.PickRefused, match="reveal"):
        session.pick(state, "d1", "ann", first, now)
    with pytest.raises(InvalidArgument):
        session.pick(state, "d1", "ann", state.seats[1].pool[0].id, now)  # Bea's card
    with pytest.raises(session.DraftNotFound):
        session.pick(state, "d1", "stranger", first, now)
    for card in (first, second):
        booster, slot = divmod(
            next(i for i, c in enumerate(state.seats[0].pool) if c.id == card), 5
        )
        state = apply(state, session.reveal(state, "d1", "ann", booster, [slot], now))
    state = apply(state, session.pick(state, "d1", "ann", first, now))
    name = next(c.character.name for c in state.seats[0].pool if c.id == first)
    with pytest.raises(session.PickRefused, match=f"you picked {name} already"):
        session.pick(state, "d1", "ann", first, now)  # by its name, as the screens show it
    with pytest.raises(session.DraftOver, match="you forfeit"):  # idle since 10 s, too
        session.pick(state, "d1", "ann", second, state.pick_deadline + timedelta(seconds=1))


def test_a_pick_that_would_leave_no_legal_deck_is_refused() -> None:
    state = created()
    pool = state.seats[0].pool
    fives = [c for c in pool if c.character.stars == 5]
    fours = [c for c in pool if c.character.stars >= 4]
    if len(fives) < 2 and len(fours) < 3:
        pytest.skip("this pool has no way to break the star limits")
    now = T0 + timedelta(seconds=1)
    for booster in range(3):
        state = apply(state, session.reveal(state, "d1", "ann", booster, [], now))
    picked = 0
    with pytest.raises(session.PickRefused, match="no legal deck") as refused:
        for card in fives if len(fives) >= 2 else fours:
            state = apply(state, session.pick(state, "d1", "ann", card.id, now))
            picked += 1
    assert picked >= 1
    assert str(refused.value).startswith(f"picking {card.character.name} would"), "its name"


def test_the_deadline_completes_both_decks_legally_with_the_picks_kept() -> None:
    state = created()
    now = T0 + timedelta(seconds=5)
    mine = legal_picks(state, 0)[0]
    index = next(i for i, c in enumerate(state.seats[0].pool) if c.id == mine)
    state = apply(state, session.reveal(state, "d1", "ann", index // 5, [index % 5], now))
    state = apply(state, session.pick(state, "d1", "ann", mine, now))
    # Both keep acting within the inactivity window until the pick deadline.
    for t in (100, 170):
        at = T0 + timedelta(seconds=t)
        for who in ("ann", "bea"):
            seat = state.seats[state.seat_index(who)]
            hidden = [s for s in range(5) if seat.pool[10 + s].id not in seat.revealed]
            state = apply(state, session.reveal(state, "d1", who, 2, hidden[:1], at))
    assert session.expire(state, T0 + timedelta(seconds=179), Random(1)).events == []
    decision = session.expire(state, state.pick_deadline, Random(1))
    assert apply(state, decision).status is session.Status.COMPLETED
    events = decision.events
    assert all(isinstance(e, DraftCardPicked) and e.auto_picked for e in events[:-1])
    done = events[-1]
    assert isinstance(done, DraftCompleted) and done.match_id == session.match_id_for("d1")
    assert done.decks[0].cards[0].id == mine
    for deck in done.decks:
        entries = [DeckEntry(c.id, c.character.id, c.character.stars) for c in deck.cards]
        assert validate_deck(entries) == ()
        assert deck.auto_completed


def test_a_participant_idle_for_120_seconds_forfeits_and_the_other_wins() -> None:
    state = created()
    state = apply(state, session.reveal(state, "d1", "bea", 0, [0], T0 + timedelta(seconds=60)))
    assert session.due(state) == T0 + timedelta(seconds=120)
    decision = session.expire(state, T0 + timedelta(seconds=120), Random(1))
    # Both participants with their names: the rating service rates the forfeit by them.
    assert decision.events == [DraftForfeited("d1", "draft", 0, ("ann",), "bea", (ANN, BEA))]
    assert apply(state, decision).status is session.Status.FORFEITED
    with pytest.raises(session.DraftOver):
        session.reveal(apply(state, decision), "d1", "bea", 0, [1], T0 + timedelta(seconds=121))


def test_a_reveal_or_pick_after_120_idle_seconds_is_refused_the_seat_forfeits() -> None:
    """RULES.md 8: 120 s without revealing or choosing a card forfeits. A reveal arriving
    at or after that moment, before the inactivity timer was processed, used to be
    accepted and to restart the 120 s."""
    state = created()
    card = legal_picks(state, 0)[0]
    index = next(i for i, c in enumerate(state.seats[0].pool) if c.id == card)
    assert session.reveal(state, "d1", "ann", 0, [0], T0 + timedelta(seconds=119.999)).events
    for late in (120, 125):
        at = T0 + timedelta(seconds=late)
        with pytest.raises(session.DraftOver, match="in time: you forfeit"):
            session.reveal(state, "d1", "ann", index // 5, [index % 5], at)
    shown = apply(state, session.reveal(state, "d1", "ann", index // 5, [index % 5], T0))
    with pytest.raises(session.DraftOver, match="in time: you forfeit"):
        session.pick(shown, "d1", "ann", card, T0 + timedelta(seconds=120))
    forfeit = session.expire(state, T0 + timedelta(seconds=120), Random(1)).events
    assert isinstance(forfeit[0], DraftForfeited) and forfeit[0].forfeiting == ("ann", "bea")


def test_at_the_pick_deadline_the_window_is_closed_as_the_completion_runs() -> None:
    """The same instant may not both accept a pick and complete the deck (expire
    completes at ``now >= pick_deadline``)."""
    state = created()
    for t in (100, 170):  # both keep acting, so nobody is idle at the deadline
        at = T0 + timedelta(seconds=t)
        for who in ("ann", "bea"):
            state = apply(state, session.reveal(state, "d1", who, t // 100, [t % 7], at))
    card = next(iter(state.seats[0].revealed))
    with pytest.raises(session.DraftOver, match="pick window"):
        session.pick(state, "d1", "ann", card, state.pick_deadline)
    assert session.expire(state, state.pick_deadline, Random(1)).events
