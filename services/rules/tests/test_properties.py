"""Properties that hold for every position and every game, checked by hypothesis."""

from __future__ import annotations

from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from services.rules import (
    HIDDEN,
    Board,
    Card,
    Cause,
    Element,
    Position,
    Seat,
    Visibility,
    view_for,
)
from services.rules.draws import draw_revealed
from services.rules.tests.reference import RefCard, reference_resolve
from services.rules.tests.strategies import boards, elements, openings, sides


@given(openings(), st.randoms(use_true_random=False))
def test_a_full_standard_game_scores_add_up_to_ten(start: Position, rng: Random) -> None:
    position = start
    while not position.over:
        position, _ = position.play(*rng.choice(position.legal_moves()))
    outcome = position.outcome()
    assert outcome is not None
    assert sum(outcome.scores) == 10
    assert len(position.hands[0]) + len(position.hands[1]) == 1  # the second player keeps one
    assert (outcome.winner is None) == (outcome.scores == (5, 5))


@given(openings(), st.randoms(use_true_random=False))
def test_ownership_only_moves_to_the_player_who_placed(start: Position, rng: Random) -> None:
    position = start
    while not position.over:
        mover = position.to_move
        before = position.board.owners
        position, placement = position.play(*rng.choice(position.legal_moves()))
        after = position.board.owners
        changed = {c for c in range(len(before)) if before[c] is not None and before[c] != after[c]}
        assert changed == {c.cell for c in placement.captures}
        assert all(after[c] == mover for c in changed)
        assert after[placement.cell] == mover


@given(boards(), sides, elements, st.sampled_from(Seat), st.data())
def test_only_neighbours_change_owner_unless_a_combo_chain_runs(
    board: Board,
    card_sides: tuple[int, int, int, int],
    element: Element | None,
    mover: Seat,
    data: st.DataObject,
) -> None:
    empty = board.empty_cells
    if not empty:
        return
    cell = data.draw(st.sampled_from(empty))
    _, placement = board.place(cell, Card(card_sides, element), mover)
    neighbours = {n for n, _, _ in board.geometry.contacts[cell]}
    for capture in placement.captures:
        if capture.cause is not Cause.COMBO:
            assert capture.cell in neighbours
    if not board.rules.combo:
        assert all(c.cause is not Cause.COMBO for c in placement.captures)


@settings(max_examples=400)
@given(boards(), sides, elements, st.sampled_from(Seat), st.data())
def test_engine_agrees_with_a_naive_reading_of_the_rulebook(
    board: Board,
    card_sides: tuple[int, int, int, int],
    element: Element | None,
    mover: Seat,
    data: st.DataObject,
) -> None:
    empty = board.empty_cells
    if not empty:
        return
    cell = data.draw(st.sampled_from(empty))
    placed = Card(card_sides, element)
    after, placement = board.place(cell, placed, mover)
    g = board.geometry
    ref_board = {
        c: RefCard(list(card.sides), Seat(board.owners[c]).name, card.element)  # type: ignore[arg-type]
        for c, card in enumerate(board.cards)
        if card is not None
    }
    rules = {
        "same": board.rules.same,
        "plus": board.rules.plus,
        "combo": board.rules.combo,
        "elemental": board.rules.elemental,
        "same_wall": board.rules.same_wall,
    }
    marks: dict[int, str | None] = dict(enumerate(board.marks))
    ref_owners, ref_causes = reference_resolve(
        g.rows,
        g.cols,
        set(g.blocked),
        ref_board,
        marks,
        rules,
        cell,
        RefCard(list(card_sides), mover.name, element),
    )
    assert {c.cell: c.cause.value for c in placement.captures} == ref_causes
    assert {c: Seat(o).name for c, o in enumerate(after.owners) if o is not None} == ref_owners


@given(openings(), st.sampled_from(Visibility), st.randoms(use_true_random=False))
def test_a_view_never_holds_an_unrevealed_opposing_card(
    start: Position, visibility: Visibility, rng: Random
) -> None:
    revealed = [draw_revealed(start.hands[s], rng) for s in Seat]
    position = start
    while True:
        for seat in Seat:
            opponent = seat.other
            view = view_for(position, seat, visibility, revealed[opponent])
            assert view.hand == position.hands[seat]
            assert len(view.opponent_hand) == len(position.hands[opponent])
            shown = [c for c in view.opponent_hand if c is not HIDDEN]
            if visibility is Visibility.ALL_OPEN:
                assert shown == list(position.hands[opponent])
            elif visibility is Visibility.CLOSED:
                assert shown == []
            else:
                assert {c.id for c in shown} <= revealed[opponent]  # type: ignore[union-attr]
            unrevealed = [
                c
                for c in position.hands[opponent]
                if visibility is Visibility.CLOSED
                or (visibility is Visibility.THREE_OPEN and c.id not in revealed[opponent])
            ]
            assert not any(c in view.opponent_hand for c in unrevealed)
        if position.over:
            break
        position, _ = position.play(*rng.choice(position.legal_moves()))


@given(openings(), st.randoms(use_true_random=False))
def test_replaying_recorded_outcomes_rebuilds_the_same_position(
    start: Position, rng: Random
) -> None:
    played = replayed = start
    while not played.over:
        index, cell = rng.choice(played.legal_moves())
        played, placement = played.play(index, cell)
        replayed = replayed.apply(index, cell, [c.cell for c in placement.captures])
        assert replayed == played
