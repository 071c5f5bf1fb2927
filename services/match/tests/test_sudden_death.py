"""Sudden Death (RULES.md 12): rounds within one match, decided and folded.

The hands here are mostly all-5 cards: equal sides never capture, so a round without a
9 on the board always ends 5-5 and the tests choose exactly which captures happen.
"""

from __future__ import annotations

from datetime import datetime
from random import Random

from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.match import bots, codec, domain, mapping
from services.match.domain.events import (
    MAX_ROUNDS,
    CardPlaced,
    FinishReason,
    MatchCard,
    MatchEvent,
    MatchFinished,
    MatchRules,
    Mode,
    RoundStarted,
    TradeRule,
)
from services.match.presenter import view_message
from services.match.store.port import event_id, replay
from services.match.tests.builders import T0, after, card, later, players
from services.match.views import match_view
from services.platform.eventstore import Position, Recorded
from services.rules import HIDDEN, Rules, Seat, Visibility

NINE = (9, 9, 9, 9)


def _hand(prefix: str, nines: tuple[int, ...] = ()) -> tuple[MatchCard, ...]:
    return tuple(card(f"{prefix}{i}", NINE if i in nines else (5, 5, 5, 5)) for i in range(5))


def _start(
    *,
    rules: Rules | None = None,
    visibility: Visibility = Visibility.ALL_OPEN,
    nines: tuple[int, ...] = (),
    blocked: frozenset[int] = frozenset(),
    sudden_death: bool = True,
    bot_b: bool = False,
    trade_one: bool = False,
) -> tuple[domain.Match, list[MatchEvent]]:
    setup = MatchRules(
        Mode.CUSTOM,
        rules if rules is not None else Rules(),
        visibility,
        blocked=blocked,
        trade=TradeRule.ONE if trade_one else TradeRule.NONE,
        sudden_death=sudden_death,
    )
    hands = (_hand("a", nines), _hand("b", nines))
    reveal = {Visibility.ALL_OPEN: 5, Visibility.CLOSED: 0, Visibility.THREE_OPEN: 3}[visibility]
    draws = domain.StartDraws(
        Seat.A,
        (None,) * 9,
        (
            frozenset(c.card_id for c in hands[0][:reveal]),
            frozenset(c.card_id for c in hands[1][:reveal]),
        ),
    )
    step = domain.create(None, "m1", setup, players(bot_b), hands, draws, T0, 60, 120)
    return step.state, list(step.events)


def _play(
    match: domain.Match,
    moves: list[tuple[str, int]],
    history: list[MatchEvent],
    at: datetime | None = None,
    seed: int = 7,
) -> domain.Match:
    """``moves``: (card id, cell) in turn order, each by the seat to move."""
    for card_id, cell in moves:
        player = match.player(match.position.to_move).player_id
        step = domain.place(match, player, card_id, cell, at or later(1), seed)
        history += step.events
        match = after(match, step)
    return match


def _fill(match: domain.Match, history: list[MatchEvent], seed: int = 7) -> domain.Match:
    """Plays the round in progress to its end: each seat's first card on the first
    empty cell."""
    start = match.round
    while match.in_progress and match.round == start:
        seat = match.position.to_move
        cell = match.position.board.empty_cells[0]
        match = _play(match, [(match.position.hand(seat)[0].id, cell)], history, seed=seed)
    return match


# A round 1 that ends 5-5 with one card captured each way (A places first):
# B's b0 (9s) takes a1 on cell 0; A's a0 (9s) takes b1 on cell 6.
CROSSED = [
    ("a1", 0),
    ("b0", 1),
    ("a2", 8),
    ("b1", 6),
    ("a0", 7),
    ("b2", 2),
    ("a3", 3),
    ("b3", 4),
    ("a4", 5),
]


def test_a_tie_starts_round_two_with_every_card_each_seat_owns_and_the_second_placer_first() -> (
    None
):
    match, history = _start(nines=(0,))
    match = _play(match, CROSSED, history)
    assert match.in_progress and match.round == 2
    started = history[-1]
    assert isinstance(started, RoundStarted) and isinstance(history[-2], CardPlaced)
    assert started.previous_scores == (5, 5)
    # Seat A owns its own a0, a2, a3, a4 and the captured b1; seat B its b0, b2, b3, b4
    # (b4 never left its hand) and the captured a1. Original deck order, A's first.
    assert started.hands == (("a0", "a2", "a3", "a4", "b1"), ("a1", "b0", "b2", "b3", "b4"))
    assert [c.id for c in match.position.hand(Seat.A)] == list(started.hands[0])
    assert [c.id for c in match.position.hand(Seat.B)] == list(started.hands[1])
    assert match.first is Seat.B and match.position.to_move is Seat.B
    assert match.position.board.empty_cells == tuple(range(9))
    assert match.scores() == (5, 5) and match.placements == () and match.last is None
    # Printed sides: a captured card plays as printed for its new holder.
    assert match.position.hand(Seat.A)[4].sides == (5, 5, 5, 5)
    # Turns go on counting; the turn timer restarts; All Open shows the new hands.
    assert match.turn == 10 and match.deadline == later(61)
    assert match.revealed == (frozenset(started.hands[0]), frozenset(started.hands[1]))
    [ended] = match.earlier
    assert ended.number == 1 and ended.first is Seat.A and ended.scores == (5, 5)
    assert list(ended.board.owners) == [1, 1, 1, 0, 1, 0, 0, 0, 0]
    timer = domain.deadlines(match)[0]
    assert (timer.kind, timer.seat, timer.turn) == (domain.DeadlineKind.TURN, Seat.B, 10)
    # Copies never change owner during a match: the original decks stand.
    assert [c.card_id for c in match.seats[0].hand] == ["a0", "a1", "a2", "a3", "a4"]


def test_a_round_two_win_ends_the_match_with_that_rounds_scores_and_board() -> None:
    match, history = _start(nines=(0,))
    match = _play(match, CROSSED, history)
    # Round 2, B first: B's b0 (9s) takes A's b1 from it; nothing else is taken.
    match = _play(
        match,
        [
            ("b2", 0),
            ("b1", 1),
            ("b0", 2),
            ("a0", 8),
            ("b3", 3),
            ("a2", 4),
            ("b4", 6),
            ("a3", 5),
            ("a1", 7),
        ],
        history,
    )
    finished = match.finished
    assert finished is not None and finished.reason is FinishReason.BOARD_FULL
    assert finished.round == 2 and finished.winner is Seat.B and finished.scores == (4, 6)
    assert finished.placements == 18
    assert finished.board_cards == (("a2", "a3", "a0"), ("b2", "b1", "b0", "b3", "b4", "a1"))
    assert finished.decks == (("a0", "a1", "a2", "a3", "a4"), ("b0", "b1", "b2", "b3", "b4"))


def test_a_tie_without_sudden_death_is_a_draw_after_one_round() -> None:
    match, history = _start(nines=(0,), sudden_death=False)
    match = _play(match, CROSSED, history)
    finished = match.finished
    assert finished is not None and finished.winner is None and finished.round == 1
    assert not any(isinstance(e, RoundStarted) for e in history)


def test_at_most_five_rounds_and_a_tie_after_the_fifth_is_a_draw() -> None:
    match, history = _start()
    firsts = []
    while match.in_progress:
        firsts.append(match.first)
        match = _fill(match, history)
    finished = match.finished
    assert finished is not None and finished.winner is None and finished.scores == (5, 5)
    assert finished.round == MAX_ROUNDS == 5 and finished.placements == 45
    assert firsts == [Seat.A, Seat.B, Seat.A, Seat.B, Seat.A]
    rounds = [e for e in history if isinstance(e, RoundStarted)]
    assert [r.round for r in rounds] == [2, 3, 4, 5]
    assert [r.number for r in match.earlier] == [1, 2, 3, 4]
    assert domain.fold(history) == match


def test_a_missed_turn_carries_into_the_next_round_and_a_second_miss_there_forfeits() -> None:
    match, history = _start()
    # A misses its last turn of round 1 (turn 9): the server plays its card, which
    # fills the board 5-5 and starts round 2 with A still warned.
    for _ in range(8):
        match = _fill_one(match, history)
    assert match.turn == 9 and match.position.to_move is Seat.A
    step = domain.time_out(match, 9, later(61), draw=3, seed=11)
    history += step.events
    match = after(match, step)
    assert match.round == 2 and match.warned == (True, False)
    assert any(isinstance(e, RoundStarted) for e in step.events)
    # Round 2: B places first; the timer restarted for it.
    assert match.position.to_move is Seat.B and match.deadline == later(121)
    match = _fill_one(match, history, at=later(70))
    assert match.warned == (True, False), "B's move clears nothing of A's"
    # A misses again: a second consecutive miss, across the rounds, forfeits.
    step = domain.time_out(match, match.turn, later(200), draw=0, seed=12)
    match = after(match, step)
    finished = match.finished
    assert finished is not None and finished.reason is FinishReason.TURN_TIMEOUT
    assert finished.forfeited is Seat.A and finished.winner is Seat.B and finished.round == 2


def test_a_forfeit_in_round_two_ends_the_match_with_round_two_scores() -> None:
    match, history = _start(nines=(0,))
    match = _play(match, CROSSED, history)
    match = _play(match, [("b3", 4), ("a2", 1), ("b0", 2)], history)
    step = domain.forfeit(match, "p-a", later(5))
    match = after(match, step)
    finished = match.finished
    assert finished is not None and finished.reason is FinishReason.FORFEIT
    assert finished.winner is Seat.B and finished.round == 2 and finished.placements == 12
    assert finished.scores == (match.position.score(Seat.A), match.position.score(Seat.B))
    assert finished.scores == (4, 6), "b0 took a2 on the round 2 board"
    assert finished.board_cards == ((), ("a2", "b0", "b3"))
    assert domain.deadlines(match) == []


def test_the_rounds_draws_are_recorded_and_replay_never_draws_again() -> None:
    """Elemental marks, Three Open reveals and blocked cells are drawn for each round
    from the seed the handler gave, recorded, and folded back as recorded."""
    rules = Rules(elemental=True)
    seen: set[tuple[object, ...]] = set()
    for seed in range(6):
        match, history = _start(
            rules=rules, visibility=Visibility.THREE_OPEN, blocked=frozenset({4})
        )
        match = _fill(match, history, seed=seed)
        assert match.round == 2
        started = history[-1]
        assert isinstance(started, RoundStarted)
        assert len(started.blocked) == 1 and len(started.marks) == 9
        assert started.marks[next(iter(started.blocked))] is None, "a blocked cell is unmarked"
        for seat in (Seat.A, Seat.B):
            assert len(started.revealed[seat]) == 3
            assert started.revealed[seat] <= set(started.hands[seat])
        assert match.position.board.geometry.blocked == started.blocked
        assert match.position.board.marks == started.marks
        assert match.revealed == started.revealed
        seen.add((started.blocked, started.marks, started.revealed))
        # Folding reads the record: the state it rebuilds is the decided one.
        assert domain.fold(history) == match
        again, history_again = _start(
            rules=rules, visibility=Visibility.THREE_OPEN, blocked=frozenset({4})
        )
        assert _fill(again, history_again, seed=seed) == match, "one seed, one draw"
    assert len(seen) > 1, "the draws come from the seed, not from a constant"


def test_a_whole_sudden_death_match_replays_through_its_stored_bytes() -> None:
    """Replay (stored bytes -> events -> fold) rebuilds every round, state for state."""
    rng = Random(3)
    match, history = _start(rules=Rules(elemental=True), visibility=Visibility.THREE_OPEN)
    states = [match]
    while match.in_progress:
        seat = match.position.to_move
        index, cell = rng.choice(match.position.legal_moves())
        card_id = match.position.hand(seat)[index].id
        step = domain.place(
            match, match.player(seat).player_id, card_id, cell, later(1), rng.randrange(1 << 30)
        )
        history += step.events
        match = after(match, step)
        states.append(match)
    assert match.round > 1, "all-5 hands tie every round"
    cards = {c.card_id: c for seat in match.seats for c in seat.hand}
    records = []
    for version, event in enumerate(history, start=1):
        stored = codec.encode(event, cards)
        records.append(
            Recorded(
                stream_id="match-m1",
                version=version,
                position=Position(1, version),
                event_id=event_id("m1", version),
                type=stored.type,
                schema_version=stored.schema_version,
                data=stored.data,
                metadata={},
                recorded_at=T0,
            )
        )
    assert replay(records) == match
    assert domain.fold(history) == match


def _fill_one(
    match: domain.Match, history: list[MatchEvent], at: datetime | None = None
) -> domain.Match:
    seat = match.position.to_move
    cell = match.position.board.empty_cells[0]
    return _play(match, [(match.position.hand(seat)[0].id, cell)], history, at=at)


def test_an_old_match_finished_without_rounds_reads_as_round_one() -> None:
    match, history = _start(sudden_death=False)
    match = _fill(match, history)
    finished = history[-1]
    assert isinstance(finished, MatchFinished)
    payload = codec.payload_of(finished, match.cards)
    assert isinstance(payload, ev.MatchFinished)
    payload.ClearField("round_count")
    for seat in payload.seats:
        seat.ClearField("board_card_ids")
    back = codec.decode("triad.v1.MatchFinished", 1, payload.SerializeToString(), T0, match.setup)
    assert isinstance(back, MatchFinished) and back.round == 1 and back.board_cards == ((), ())


def test_each_seat_sees_the_round_and_the_earlier_rounds_final_boards() -> None:
    match, history = _start(nines=(0,), visibility=Visibility.THREE_OPEN)
    match = _play(match, CROSSED, history)
    started = history[-1]
    assert isinstance(started, RoundStarted)
    for seat in (Seat.A, Seat.B):
        view = match_view(match, match.player(seat).player_id)
        assert view.round == 2 and view.first is Seat.B and view.last is None
        assert [c.card_id for c in view.hand] == list(started.hands[seat])
        assert view.revealed == started.revealed[seat]
        shown = {c.card_id for c in view.opponent_hand if isinstance(c, MatchCard)}
        assert shown == started.revealed[seat.other], "this round's reveals, drawn anew"
        message = view_message(view, later(2))
        assert message.round_number == 2 and message.turn_number == 10
        [ended] = message.earlier_rounds
        assert ended.round_number == 1 and (ended.scores.seat_a, ended.scores.seat_b) == (5, 5)
        assert ended.first_seat == pb.SEAT_A
        by_cell = [card_id for card_id, _ in sorted(CROSSED, key=lambda move: move[1])]
        assert [c.card.card.card_id for c in ended.board] == by_cell
        assert [c.card.owner_seat for c in ended.board][:2] == [pb.SEAT_B, pb.SEAT_B]
        # The move that filled it, with its captures, as the round's last view had it.
        last_id, last_cell = CROSSED[-1]
        moved = ended.last_placement
        assert (moved.card.card_id, moved.cell, moved.turn_number) == (last_id, last_cell, 9)
        assert not message.HasField("last_placement"), "none yet in round 2"
        assert all(c.WhichOneof("content") == "empty" for c in message.board)
    # The second seat's view shares what both see, the earlier rounds included.
    a = match_view(match, "p-a")
    b = match_view(match, "p-b", a)
    assert b.earlier is a.earlier and b == match_view(match, "p-b")


def test_a_bot_seat_plays_on_in_round_two_from_its_view() -> None:
    match, history = _start(nines=(0,), visibility=Visibility.CLOSED, bot_b=True)
    match = _play(match, CROSSED, history)
    assert match.round == 2 and match.position.to_move is Seat.B
    view = match_view(match, "p-b")
    card_id, cell = bots.choose(view, Random(1))
    step = domain.place(match, "p-b", card_id, cell, later(2), 5)
    assert after(match, step).turn == 11
    assert view.opponent_hand == (HIDDEN,) * 5


def test_a_later_rounds_view_names_that_rounds_blocked_cells_in_its_rules() -> None:
    """Each round draws its blocked cells anew: the view's rules name the round's (as
    its board shows them), the earlier round's board keeps the first draw."""
    for seed in range(20):
        match, history = _start(blocked=frozenset({4}))
        match = _fill(match, history, seed=seed)
        started = history[-1]
        assert isinstance(started, RoundStarted)
        if started.blocked != frozenset({4}):
            break
    else:
        raise AssertionError("no seed drew other blocked cells")
    setup_rules = mapping.rules(match.setup)
    a = view_message(match_view(match, "p-a"), later(2))
    b = view_message(match_view(match, "p-b"), later(2), a)
    for message in (a, b):
        assert list(message.rules.board.blocked_cells) == sorted(started.blocked)
        assert message.rules.board.blocked_count == 1
        assert [c.index for c in message.board if c.HasField("blocked")] == sorted(started.blocked)
        [ended] = message.earlier_rounds
        assert [c.index for c in ended.board if c.HasField("blocked")] == [4]
    assert list(setup_rules.board.blocked_cells) == [4], "the shared rules are left as drawn"
