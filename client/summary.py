"""The short summary of a finished match: the result with the score and why it ended,
the rating change (rated matches), and what the trade moved (or that nothing is
traded, and why)."""

from __future__ import annotations

from rich.text import Text
from triad.v1 import common_pb2 as pb

from client.commands_trades import CHOICE_RULES, count_of, trade_status
from client.rules_text import LADDER_NAMES, TRADE_NAMES, result_words


def rating_words(view: pb.MatchView, change: pb.RatingChange | None) -> str:
    """'Rating (Ranked): 1500 -> 1520 (+20).'; an unrated match says so."""
    if not view.ladder.ladder:
        return "Unrated: no rating change."
    ladder = LADDER_NAMES.get(view.ladder.ladder, "")
    if change is None:
        return f"Rating ({ladder}): not changed yet; triad-client history shows it."
    return (
        f"Rating ({ladder}): {change.rating_before} -> {change.rating_after} ({change.delta:+d})."
    )


def captured_on_board(view: pb.MatchView) -> bool:
    """Whether a card may have changed hands under Direct: a card on the final board
    owned by the player who did not place it, or any board after a Sudden Death
    round (a hand rebuilt from what each owns may hold the other's cards)."""
    return view.round_number > 1 or any(
        c.card.owner_seat != c.card.placed_by_seat
        for c in view.board
        if c.WhichOneof("content") == "card"
    )


def trade_words(view: pb.MatchView, trade: pb.Trade | None) -> str:
    """What the trade rule did with this match's cards (RULES.md 7, 13)."""
    rule = view.rules.trade_rule
    name = TRADE_NAMES.get(rule)
    if name is None:
        return "No trade."
    giving = (
        trade is not None
        and trade.status == pb.TRADE_STATUS_AWAITING_CHOICE
        and trade.my_role != pb.TRADE_ROLE_CHOOSER
    )  # the loser's client ends before the choice: what happens next, not "Waiting"
    if trade is not None and trade.match_id == view.match_id and not giving:
        return f"{name}: {trade_status(trade)}"
    if rule == pb.TRADE_RULE_DIRECT and not captured_on_board(view):
        # found from outside: 'triad-client trade or collection shows what moved' sent
        # the player looking for a move when no card had changed colour
        return f"{name}: no card on the board changed sides, so none moves."
    draw = view.outcome.WhichOneof("result") == "draw"
    if draw and rule != pb.TRADE_RULE_DIRECT:
        return f"{name}: a draw trades nothing."
    if rule in CHOICE_RULES and view.outcome.winner_seat != view.my_seat:
        winner = next(p.player_name for p in view.players if p.seat != view.my_seat)
        n = count_of(trade) if trade is not None else 1
        taken = "one" if n == 1 else str(n)
        return (
            f"{name}: {winner} takes {taken} of your cards; triad-client trade shows the "
            "offer until they choose, your collection after."
        )
    return f"{name}: triad-client trade or collection shows what moved."


def summary(
    view: pb.MatchView, change: pb.RatingChange | None, trade: pb.Trade | None
) -> list[Text]:
    """Three lines: the result, the rating, the trade."""
    return [
        Text(result_words(view), style="bold"),
        Text(rating_words(view, change)),
        Text(trade_words(view, trade)),
    ]


def after_trade(view: pb.MatchView, change: pb.RatingChange | None, trade: pb.Trade) -> list[Text]:
    """The summary under the trade's screen, which stays as last drawn: without the
    trade's line once that screen ends with what the trade moved (frame.py)."""
    said = summary(view, change, trade)
    return said if trade.status == pb.TRADE_STATUS_AWAITING_CHOICE else said[:2]
