"""Hypothesis strategies for cards, rules, boards and whole games."""

from __future__ import annotations

from hypothesis import strategies as st

from services.rules import Board, Card, Element, Geometry, Position, Rules, Seat

sides = st.tuples(*(st.integers(1, 10) for _ in range(4)))
elements = st.none() | st.sampled_from(list(Element))
rules = st.builds(Rules, st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans())


@st.composite
def cards(draw: st.DrawFn, prefix: str = "c") -> Card:
    return Card(draw(sides), draw(elements), f"{prefix}{draw(st.integers(0, 10**9))}")


@st.composite
def hands(draw: st.DrawFn, seat: str, size: int = 5) -> tuple[Card, ...]:
    return tuple(Card(draw(sides), draw(elements), f"{seat}{i}") for i in range(size))


@st.composite
def shapes(draw: st.DrawFn) -> Geometry:
    rows = draw(st.integers(1, 5))
    cols = draw(st.integers(1, 5))
    size = rows * cols
    blocked = draw(st.sets(st.integers(0, size - 1), max_size=max(0, size - 2)))
    return Geometry.of(rows, cols, frozenset(blocked))


@st.composite
def boards(draw: st.DrawFn, geometry: Geometry | None = None) -> Board:
    """A board with some cards on it, owners at random, marks at random."""
    shape = geometry if geometry is not None else draw(shapes())
    marks = [None if c in shape.blocked else draw(elements) for c in range(shape.size)]
    board = Board.empty(shape, draw(rules), marks)
    for cell in shape.playable:
        if draw(st.booleans()):
            board = board.with_card(
                cell, Card(draw(sides), draw(elements)), draw(st.sampled_from(Seat))
            )
    return board


@st.composite
def openings(draw: st.DrawFn) -> Position:
    """The standard 3x3 opening with two five-card hands and a drawn first seat."""
    geometry = Geometry.of(3, 3)
    marks = [draw(elements) for _ in range(geometry.size)]
    board = Board.empty(geometry, draw(rules), marks)
    return Position.start(board, draw(hands("a")), draw(hands("b")), draw(st.sampled_from(Seat)))
