"""Match views built by hand, as the server would send them, for the rendering tests:
any board with blocked cells, hands of any size, cards placed, a Sudden Death round."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb

NAMES = (
    "Quistis Trepe",
    "Chocobo",
    "Behemoth",
    "Ifrit",
    "Shiva",
    "Cactuar",
    "Tonberry King",
    "Malboro",
    "Bahamut",
    "Odin",
    "Siren",
    "Carbuncle",
    "Leviathan",
)


def card(n: int, seat: str = "a") -> pb.Card:
    values = [(n + k) % 10 + 1 for k in (0, 3, 5, 7)]
    return pb.Card(
        card_id=f"{seat}-card-{n}",
        origin=pb.CARD_ORIGIN_BOT,
        character=pb.Character(
            character_id=f"chr-{n:03}",
            name=NAMES[n % len(NAMES)],
            stars=1 + n % 5,
            element=pb.ELEMENT_FIRE if n % 3 == 0 else pb.ELEMENT_UNSPECIFIED,
            sides=pb.Sides(top=values[0], right=values[1], bottom=values[2], left=values[3]),
        ),
        printed_sides=pb.Sides(top=values[0], right=values[1], bottom=values[2], left=values[3]),
    )


def view(
    rows: int = 3,
    cols: int = 3,
    blocked: tuple[int, ...] = (),
    hand: int = 5,
    revealed: int = 5,
    hidden: int = 0,
    placed: dict[int, pb.Seat.ValueType] | None = None,
    round_number: int = 0,
    earlier: tuple[tuple[int, int], ...] = (),
    rules: pb.Rules | None = None,
    names: tuple[str, str] = ("ann", "[BOT] Bea"),
) -> pb.MatchView:
    """Ann's view (seat A, her turn) of a match on a rows x cols board: her ``hand``,
    the opponent's ``revealed`` and ``hidden`` cards, cards ``placed`` by cell and owner,
    and ``earlier`` rounds' (equal) scores in a Sudden Death match."""
    given = pb.Rules()
    given.CopyFrom(rules or pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, same=True, plus=True))
    given.board.CopyFrom(pb.BoardShape(rows=rows, columns=cols, blocked_cells=blocked))
    cells = []
    for index in range(rows * cols):
        cell = pb.BoardCell(index=index)
        if index in blocked:
            cell.blocked.SetInParent()
        elif placed and index in placed:
            c = card(index, "b")
            cell.card.CopyFrom(
                pb.PlacedCard(
                    card=c,
                    owner_seat=placed[index],
                    placed_by_seat=placed[index],
                    adjusted_sides=c.printed_sides,
                    placed_turn=1,
                )
            )
        else:
            cell.empty.SetInParent()
        cells.append(cell)
    played = len(placed or {})
    shown = pb.MatchView(
        match_id="0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
        version=3 + played,
        mode=pb.MODE_CUSTOM,
        rules=given,
        my_seat=pb.SEAT_A,
        players=[
            pb.MatchPlayerView(seat=pb.SEAT_A, player_name=names[0], score=hand, hand_size=hand),
            pb.MatchPlayerView(
                seat=pb.SEAT_B, player_name=names[1], score=revealed + hidden, is_bot=True
            ),
        ],
        board=cells,
        my_hand=[pb.OwnHandCard(card=card(n)) for n in range(hand)],
        opponent_hand=[pb.OpponentHandSlot(revealed=card(n, "b")) for n in range(revealed)]
        + [pb.OpponentHandSlot(hidden=pb.HiddenCard()) for _ in range(hidden)],
        first_seat=pb.SEAT_A,
        turn_seat=pb.SEAT_A,
        turn_number=1 + played,
        status=pb.MATCH_STATUS_IN_PROGRESS,
        round_number=round_number,
    )
    for number, (a, b) in enumerate(earlier, start=1):
        shown.earlier_rounds.append(
            pb.RoundResult(round_number=number, scores=pb.Scores(seat_a=a, seat_b=b))
        )
    if played:
        last = max(placed or {})
        shown.last_placement.CopyFrom(pb.Placement(turn_number=played, cell=last))
    return shown


def quintra() -> pb.MatchView:
    """5x5 with four blocked cells, two 13-card hands in full (All Open), Elemental marks,
    two cards down, Sudden Death and Trade Direct: the most a screen has to hold."""
    shown = view(
        5,
        5,
        blocked=(3, 12, 13, 20),
        hand=13,
        revealed=13,
        placed={0: pb.SEAT_A, 6: pb.SEAT_B},
        rules=pb.Rules(
            visibility=pb.VISIBILITY_ALL_OPEN,
            same=True,
            plus=True,
            combo=True,
            elemental=True,
            sudden_death=True,
            trade_rule=pb.TRADE_RULE_DIRECT,
        ),
        names=("annabelle-the-bold", "[BOT] Bartholomew"),
    )
    shown.board[9].mark = pb.ELEMENT_WATER
    shown.board[6].mark = pb.ELEMENT_FIRE
    return shown


def great_cloth() -> pb.MatchView:
    """4x4 with two 8-card hands, five of the opponent's hidden."""
    return view(4, 4, hand=8, revealed=3, hidden=5, placed={5: pb.SEAT_A, 10: pb.SEAT_B})


def round_two() -> pb.MatchView:
    """The start of round 2 of a Sudden Death match whose first round ended 5-5."""
    return view(
        rules=pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, sudden_death=True),
        round_number=2,
        earlier=((5, 5),),
    )


SHOWN = {"5x5": quintra, "4x4": great_cloth, "3x3": view, "round2": round_two}
