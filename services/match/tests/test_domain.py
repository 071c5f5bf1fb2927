"""The match aggregate: RULES.md sections 3 to 5 as decide and evolve."""

from __future__ import annotations

from datetime import datetime
from random import Random

import pytest

from services.match import codec, domain
from services.match.domain.events import (
    CardPlaced,
    FinishReason,
    Forfeited,
    MatchCard,
    MatchCreated,
    MatchEvent,
    MatchFinished,
    MatchRules,
    Mode,
    PlayerDisconnected,
    PlayerReconnected,
    SeatPlayer,
    TradeRule,
    TurnTimedOut,
    TurnWarningIssued,
)
from services.match.tests.builders import T0, after, created, later, started
from services.match.views import match_view
from services.platform.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from services.rules import Seat, Visibility


def play_out(match: domain.Match, rng: Random) -> tuple[domain.Match, list[MatchEvent]]:
    history: list[MatchEvent] = []
    while match.in_progress:
        seat = match.position.to_move
        index, cell = rng.choice(match.position.legal_moves())
        card_id = match.position.hand(seat)[index].id
        step = domain.place(match, match.player(seat).player_id, card_id, cell, later(1))
        history += step.events
        match = after(match, step)
    return match, history


def test_a_full_match_ends_when_the_board_is_full_with_scores_adding_to_ten() -> None:
    match, history = play_out(started(), Random(1))
    finished = match.finished
    assert finished is not None and isinstance(history[-1], MatchFinished)
    assert finished.reason is FinishReason.BOARD_FULL
    assert sum(finished.scores) == 10 and finished.placements == 9
    assert finished.rated and finished.trade_one == (finished.winner is not None)
    assert domain.deadlines(match) == []


def test_replaying_the_log_rebuilds_the_live_state() -> None:
    for seed in range(20):
        start = created(visibility=Visibility.THREE_OPEN)
        match, history = play_out(after_none(start), Random(seed))
        assert domain.fold([*start, *history]) == match


def after_none(events: list[MatchEvent]) -> domain.Match:
    match = domain.fold(events)
    assert match is not None
    return match


def test_a_match_id_is_created_once() -> None:
    with pytest.raises(AlreadyExists):
        domain.create(started(), "m1", *_args())


def _args() -> tuple[
    MatchRules,
    tuple[SeatPlayer, SeatPlayer],
    tuple[tuple[MatchCard, ...], tuple[MatchCard, ...]],
    domain.StartDraws,
    datetime,
    float,
    float,
]:
    first = created()[0]
    assert isinstance(first, MatchCreated)
    return (
        first.setup,
        (first.seats[0].player, first.seats[1].player),
        (first.seats[0].hand, first.seats[1].hand),
        domain.StartDraws(Seat.A, (None,) * 9, (frozenset(), frozenset())),
        T0,
        60,
        120,
    )


@pytest.mark.parametrize(
    ("who", "card", "cell", "error", "words"),
    [
        ("p-b", "b0", 0, domain.NotYourTurn, "not your turn"),
        ("p-a", "b0", 0, domain.CardNotInHand, "not in your hand"),
        ("p-a", "a0", 9, domain.IllegalPlacement, "not on the 3x3 board"),
        ("p-x", "a0", 0, NotFound, "you have no match"),
    ],
)
def test_a_placement_is_checked_and_refused_with_a_reason(
    who: str, card: str, cell: int, error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=words):
        domain.place(started(), who, card, cell, later(1))


def test_an_occupied_cell_is_refused_and_a_finished_match_takes_no_move() -> None:
    match = after(started(), domain.place(started(), "p-a", "a0", 4, later(1)))
    with pytest.raises(domain.CellUnavailable, match="already holds a card"):
        domain.place(match, "p-b", "b0", 4, later(2))
    over = after(match, domain.forfeit(match, "p-b", later(2)))
    with pytest.raises(FailedPrecondition, match="is over"):
        domain.place(over, "p-b", "b0", 0, later(3))


def test_a_first_missed_turn_auto_plays_the_drawn_placement_and_warns() -> None:
    match = started()
    assert domain.time_out(match, 1, later(59), draw=7).events == []  # too early: nothing
    step = domain.time_out(match, 1, later(60), draw=7)
    events = step.events
    assert [type(e) for e in events] == [TurnTimedOut, TurnWarningIssued, CardPlaced]
    placed = events[2]
    assert isinstance(placed, CardPlaced)
    assert placed.auto_played and placed.auto_draw == (45, 7)
    index, cell = match.position.legal_moves()[7]
    assert (placed.card_id, placed.cell) == (match.position.hand(Seat.A)[index].id, cell)
    assert after(match, step).warned == (True, False)


def test_a_second_consecutive_miss_forfeits_and_a_stale_timer_does_nothing() -> None:
    match = started()
    match = after(match, domain.time_out(match, 1, later(60), draw=0))
    assert domain.time_out(match, 1, later(200), draw=0).events == []  # turn 1 is gone
    match = after(match, domain.place(match, "p-b", "b0", 8, later(61)))
    events = domain.time_out(match, 3, later(121), draw=0).events
    assert [type(e) for e in events] == [TurnTimedOut, Forfeited, MatchFinished]
    finished = events[-1]
    assert isinstance(finished, MatchFinished)
    assert finished.winner is Seat.B and finished.reason is FinishReason.TURN_TIMEOUT


def test_a_move_of_ones_own_clears_the_warning() -> None:
    match = started()
    match = after(match, domain.time_out(match, 1, later(60), draw=0))
    match = after(match, domain.place(match, "p-b", "b0", 8, later(61)))
    step = domain.place(match, "p-a", "a1", 7, later(62))
    placed = step.events[0]
    assert isinstance(placed, CardPlaced) and placed.warning_cleared
    assert after(match, step).warned == (False, False)


def test_forfeit_ends_the_match_at_once_and_the_forfeiter_loses() -> None:
    match = started()
    events = domain.forfeit(match, "p-a", later(5)).events
    assert [type(e) for e in events] == [Forfeited, MatchFinished]
    finished = events[-1]
    assert isinstance(finished, MatchFinished)
    assert finished.winner is Seat.B and finished.forfeited is Seat.A
    assert finished.trade_one  # a forfeit still loses a card


def test_a_match_ended_mid_turn_counts_the_placements_made_as_its_turn() -> None:
    """Found from outside: two placements then a forfeit showed turn 3 (MatchView's
    turn_number, once finished, is the number of placements made)."""
    match, rng = started(), Random(5)
    for _ in range(2):
        seat = match.position.to_move
        index, cell = rng.choice(match.position.legal_moves())
        card_id = match.position.hand(seat)[index].id
        match = after(
            match, domain.place(match, match.player(seat).player_id, card_id, cell, later(1))
        )
    assert match.turn == 3
    over = after(match, domain.forfeit(match, "p-a", later(5)))
    assert not over.in_progress and over.turn == over.placement_count == 2


def test_disconnect_grace_forfeits_unless_the_player_comes_back() -> None:
    match = started()
    match = after(match, domain.presence(match, "p-a", True, "s1", later(1)))
    gone = domain.presence(match, "p-a", False, "s1", later(2))
    assert gone.events == [PlayerDisconnected("m1", Seat.A, "s1", later(122))]
    away = after(match, gone)
    assert any(d.kind == "disconnect" for d in domain.deadlines(away))
    assert domain.disconnect_expired(away, Seat.A, later(121)).events == []
    events = domain.disconnect_expired(away, Seat.A, later(122)).events
    finished = events[-1]
    assert isinstance(finished, MatchFinished) and finished.reason is FinishReason.DISCONNECT
    back = after(away, domain.presence(away, "p-a", True, "s2", later(100)))
    assert domain.disconnect_expired(back, Seat.A, later(130)).events == []


def both_away(a_leaves: float, b_leaves: float) -> domain.Match:
    """A ranked match (trade One) whose two players left at those seconds."""
    match = started()
    for player, session, left in (("p-a", "sa", a_leaves), ("p-b", "sb", b_leaves)):
        match = after(match, domain.presence(match, player, True, session, later(1)))
        match = after(match, domain.presence(match, player, False, session, later(left)))
    return match


@pytest.mark.parametrize(("a_leaves", "b_leaves"), [(2, 2), (2, 2.004), (2.5, 2), (2, 6.9)])
def test_both_players_away_since_the_same_moment_abandon_the_match_and_neither_loses(
    a_leaves: float, b_leaves: float
) -> None:
    """Both seats away since one failure (a gateway dying under both players reports
    them away a few milliseconds apart): seat A forfeited, whichever seat's timer came
    first. Now neither wins, nothing is rated or traded, both are shown away."""
    match = both_away(a_leaves, b_leaves)
    first = min(match.disconnected, key=lambda due: due or later(10**6))
    seat = Seat.A if first == match.disconnected[0] else Seat.B
    events = domain.disconnect_expired(match, seat, first).events  # type: ignore[arg-type]
    assert [type(e) for e in events] == [MatchFinished]
    (end,) = events
    assert isinstance(end, MatchFinished) and end.reason is FinishReason.DISCONNECT
    assert end.winner is None and end.forfeited is None
    assert not end.rated and end.trade is TradeRule.NONE
    over = after(match, events)
    assert not over.in_progress and domain.deadlines(over) == []
    view = match_view(over, "p-a")
    assert [p.connected for p in view.players] == [False, False]


def test_of_two_players_away_the_one_who_left_first_forfeits_whichever_timer_fires() -> None:
    match = both_away(40, 2)  # B left first; A's grace ends 38 s after B's
    late = later(200)  # the server was busy: both timers are overdue
    for seat in (Seat.A, Seat.B):
        events = domain.disconnect_expired(match, seat, late).events
        assert events[0] == Forfeited("m1", Seat.B, FinishReason.DISCONNECT), seat
        assert isinstance(events[-1], MatchFinished) and events[-1].winner is Seat.A
        assert events[-1].rated
    # B's grace is over while A's is not: B forfeits; A's own timer is not due yet.
    assert domain.disconnect_expired(match, Seat.A, later(130)).events == []
    gone = domain.disconnect_expired(match, Seat.B, later(122)).events
    assert isinstance(gone[-1], MatchFinished) and gone[-1].forfeited is Seat.B


def test_a_late_disconnect_from_an_old_session_is_ignored() -> None:
    match = started()
    match = after(match, domain.presence(match, "p-a", True, "old", later(1)))
    reconnect = domain.presence(match, "p-a", True, "new", later(2))
    assert reconnect.events == [PlayerReconnected("m1", Seat.A, "new")]
    match = after(match, reconnect)
    assert domain.presence(match, "p-a", False, "old", later(3)).events == []


def test_a_player_without_an_open_session_starts_disconnected_and_a_bot_never() -> None:
    setup, (ann, _), hands, _, now, turn, grace = _args()
    shown = (frozenset(c.card_id for c in hands[0]), frozenset(c.card_id for c in hands[1]))
    draws = domain.StartDraws(Seat.A, (None,) * 9, shown)
    bot = SeatPlayer("bot-1", "[BOT] Bo", is_bot=True)
    events = domain.create(
        None, "m2", setup, (ann, bot), hands, draws, now, turn, grace, "", ("", "")
    ).events
    match = after_none(events)
    assert match.disconnected == (later(120), None)  # the grace runs from creation
    assert any(d.kind == "disconnect" and d.seat is Seat.A for d in domain.deadlines(match))
    (first,) = events  # as recorded and read back: the same state
    stored = codec.encode(first, {})
    assert codec.decode(stored.type, stored.schema_version, stored.data, T0, None) == first
    present = domain.create(
        None, "m3", setup, (ann, bot), hands, draws, now, turn, grace, "", ("s1", "")
    ).events
    attached = after_none(present)
    assert attached.disconnected == (None, None) and attached.sessions == ("s1", "")
    # the attached session ending disconnects the seat
    gone = domain.presence(attached, "p-a", False, "s1", later(5))
    assert gone.events == [PlayerDisconnected("m3", Seat.A, "s1", later(125))]


def test_games_with_a_bot_are_never_rated_or_traded_and_draws_trade_nothing() -> None:
    match = started(bot_b=True)
    finished = domain.forfeit(match, "p-a", later(1)).events[-1]
    assert isinstance(finished, MatchFinished)
    assert not finished.rated and not finished.trade_one
    assert any(d.kind == "bot" for d in domain.deadlines(started(bot_b=True, first=Seat.B)))
    for seed in range(200):
        match, _ = play_out(started(), Random(seed))
        assert match.finished is not None
        if match.finished.winner is None:
            assert not match.finished.trade_one
            break
    else:
        pytest.fail("no draw in 200 random games")


def test_unranked_matches_are_not_rated() -> None:
    finished = domain.forfeit(started(mode=Mode.UNRANKED, trade_one=False), "p-a", later(1)).events[
        -1
    ]
    assert isinstance(finished, MatchFinished) and not finished.rated and not finished.trade_one


def test_creation_refuses_bad_setups() -> None:
    setup, seats, hands, draws, now, turn, grace = _args()
    with pytest.raises(InvalidArgument, match="both seats"):
        domain.create(None, "m2", setup, (seats[0], seats[0]), hands, draws, now, turn, grace)
    with pytest.raises(InvalidArgument, match="same number of cards"):
        domain.create(None, "m2", setup, seats, (hands[0], hands[1][:4]), draws, now, turn, grace)
    with pytest.raises(InvalidArgument, match="own non-empty card id"):
        domain.create(None, "m2", setup, seats, (hands[0], hands[0]), draws, now, turn, grace)


def test_each_decision_carries_the_state_its_events_fold_to() -> None:
    """Decide once: the state a command hands back (saved without folding again) is
    the state replaying its events gives, for every command and outcome."""
    for seed in range(30):
        rng = Random(seed)
        match = started(visibility=list(Visibility)[seed % 3], bot_b=seed % 2 == 1)
        clock = 0.0
        while match.in_progress:
            clock += 1
            roll = rng.random()
            if roll < 0.1:
                step = domain.time_out(match, match.turn, later(clock + 60), rng.randrange(99))
            elif roll < 0.2:
                step = domain.presence(match, "p-a", rng.random() < 0.5, "s1", later(clock))
            elif roll < 0.25:
                step = domain.disconnect_expired(match, Seat.A, later(clock + 200))
            elif roll < 0.27:
                step = domain.forfeit(match, "p-b", later(clock))
            else:
                seat = match.position.to_move
                index, cell = rng.choice(match.position.legal_moves())
                card_id = match.position.hand(seat)[index].id
                step = domain.place(
                    match, match.player(seat).player_id, card_id, cell, later(clock)
                )
            assert domain.fold(step.events, match) == step.state
            match = step.state
        assert match.finished is not None


def test_a_placement_at_or_after_the_turn_deadline_is_refused_the_turn_is_missed() -> None:
    """RULES.md 5: a turn lasts 60 s. At the deadline the timer auto-plays (time_out
    fires at ``now >= deadline``); a player's own card arriving then or later, before
    the timer's firing was processed, must not beat it."""
    match = started()
    assert domain.place(match, "p-a", "a0", 4, later(59.999)).events  # still in time
    for late in (60, 61, 300):
        with pytest.raises(FailedPrecondition, match="turn is over"):
            domain.place(match, "p-a", "a0", 4, later(late))
    assert [type(e) for e in domain.time_out(match, 1, later(60), draw=0).events] == [
        TurnTimedOut,
        TurnWarningIssued,
        CardPlaced,
    ]


def test_a_bot_move_is_not_held_to_the_turn_deadline() -> None:
    match = started(bot_b=True, first=Seat.B)
    step = domain.place(match, "p-b", "b0", 4, later(61), by_bot=True)
    assert isinstance(step.events[0], CardPlaced)


def test_a_return_at_or_after_the_disconnect_grace_forfeits_it_does_not_resume() -> None:
    """RULES.md 5: disconnected for 120 s forfeits; only reconnecting in time resumes.
    A reconnect report processed before the grace timer fired used to cancel it."""
    match = started()
    match = after(match, domain.presence(match, "p-a", True, "s1", later(1)))
    away = after(match, domain.presence(match, "p-a", False, "s1", later(2)))  # due 122
    back = domain.presence(away, "p-a", True, "s2", later(121.999))
    assert back.events == [PlayerReconnected("m1", Seat.A, "s2")]
    for late in (122, 130):
        events = domain.presence(away, "p-a", True, "s2", later(late)).events
        assert [type(e) for e in events] == [Forfeited, MatchFinished]
        finished = events[-1]
        assert isinstance(finished, MatchFinished)
        assert finished.reason is FinishReason.DISCONNECT and finished.winner is Seat.B
