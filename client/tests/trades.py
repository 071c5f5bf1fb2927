"""Trades built by hand, as the server would send them, for the client's tests: the
end of a trading match as each player sees it and the Trade that follows it (the
winner's Difference offer, the loser's stake, what Direct and All moved)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from google.protobuf.timestamp_pb2 import Timestamp
from triad.v1 import common_pb2 as pb

from client.tests.views import card, view

ANN, BEA = "ann", "bea"
DECK = ("Quistis Trepe", "Chocobo", "Behemoth", "Ifrit", "Shiva")


def copy_id(n: int, owner: str = BEA) -> str:
    return f"c{n}{owner}-0000-0000-0000-000000000000"


def deck(owner: str = BEA, size: int = 5) -> list[pb.OwnedCopy]:
    """``owner``'s original deck, as a trade reveals it."""
    return [
        pb.OwnedCopy(
            copy_id=copy_id(n, owner),
            owner_player_id=f"{owner}-id",
            character=card(n).character,
            holo=n == 2,
            printed_sides=card(n).printed_sides,
            source=pb.COPY_SOURCE_STARTER,
        )
        for n in range(size)
    ]


def at(seconds: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(datetime.now(UTC) + timedelta(seconds=seconds))
    return stamp


def finished(
    rule: pb.TradeRule.ValueType,
    mine: pb.Seat.ValueType = pb.SEAT_A,
    winner: pb.Seat.ValueType | None = pb.SEAT_A,
    placed: dict[int, tuple[pb.Seat.ValueType, pb.Seat.ValueType]] | None = None,
) -> pb.MatchView:
    """A Closed Same Plus Combo match between Ann (seat A) and Bea (seat B) under
    ``rule``, over, as the player of seat ``mine`` sees it: won by ``winner`` (None: a
    draw), cards ``placed`` by cell as (placed by, owner now)."""
    shown = view(
        rules=pb.Rules(
            visibility=pb.VISIBILITY_CLOSED, same=True, plus=True, combo=True, trade_rule=rule
        ),
        names=(ANN, BEA),
        placed={cell: by for cell, (by, _) in (placed or {}).items()},
    )
    shown.my_seat = mine
    shown.players[1].is_bot = False
    for cell, (by, owner) in (placed or {}).items():  # each card a copy of its placer's
        shown.board[cell].card.owner_seat = owner
        shown.board[cell].card.card.card_id = copy_id(cell, ANN if by == pb.SEAT_A else BEA)
    shown.status = pb.MATCH_STATUS_FINISHED
    if winner is None:
        shown.outcome.draw.SetInParent()
        shown.outcome.reason = pb.FINISH_REASON_BOARD_FULL
    else:
        shown.outcome.winner_seat = winner
        shown.outcome.reason = pb.FINISH_REASON_FORFEIT
        shown.outcome.forfeiting_seat = pb.SEAT_B if winner == pb.SEAT_A else pb.SEAT_A
    return shown


def difference(
    role: pb.TradeRole.ValueType = pb.TRADE_ROLE_CHOOSER, take: int = 2, size: int = 5
) -> pb.Trade:
    """The Difference trade of that match, open: Ann takes ``take`` of Bea's cards."""
    return pb.Trade(
        trade_id="7rade000-0000-0000-0000-000000000000",
        match_id=view().match_id,
        status=pb.TRADE_STATUS_AWAITING_CHOICE,
        my_role=role,
        winner_name=ANN,
        loser_name=BEA,
        offered_copies=deck(BEA, size),
        choice_deadline_time=at(100),
        open_time=at(-20),
        trade_rule=pb.TRADE_RULE_DIFFERENCE,
        take_count=take,
    )


def completed(trade: pb.Trade, chosen: list[str], auto: bool = False) -> pb.Trade:
    done = pb.Trade()
    done.CopyFrom(trade)
    done.status = pb.TRADE_STATUS_COMPLETED
    done.chosen_copy_id = chosen[0]
    done.chosen_copy_ids[:] = chosen
    done.auto_picked = auto
    done.complete_time.CopyFrom(at(0))
    return done


def moved_at_once(
    rule: pb.TradeRule.ValueType, copies: list[pb.OwnedCopy], role: pb.TradeRole.ValueType
) -> pb.Trade:
    """Direct or All: the trade's result, the ``copies`` moved when the match ended."""
    return pb.Trade(
        trade_id="7rade111-0000-0000-0000-000000000000",
        match_id=view().match_id,
        status=pb.TRADE_STATUS_COMPLETED,
        my_role=role,
        winner_name=ANN,
        loser_name=BEA,
        offered_copies=copies,
        chosen_copy_id=copies[0].copy_id,
        chosen_copy_ids=[c.copy_id for c in copies],
        trade_rule=rule,
        take_count=len(copies),
    )
