"""Trades after a match (RULES.md 7, 13) as a subcommand of ``triad-client`` (``trade``,
``trade choose``), and the trade as the play screen shows it: the offer to choose from
(One: one card; Difference: d cards, typed as d numbers at once), what is at stake for
the loser, and what moved (Direct and All move at once, without a choice)."""

from __future__ import annotations

import argparse
import uuid
from datetime import UTC, datetime

from rich.console import Console
from rich.table import Table
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import Caller, CommandError, State, as_json
from client.copies import copies_table, copy_name
from client.rules_text import TRADE_NAMES

CHOICE_RULES = (pb.TRADE_RULE_ONE, pb.TRADE_RULE_DIFFERENCE)
"""The trade rules whose trade waits for the winner's choice (GetPendingTrade shows it)."""


def rule_of(trade: pb.Trade) -> pb.TradeRule.ValueType:
    """The trade's rule; a server from before trade rules leaves it unset: Trade One."""
    return trade.trade_rule or pb.TRADE_RULE_ONE


def count_of(trade: pb.Trade) -> int:
    """How many cards the winner takes (1 for One; d for Difference)."""
    return trade.take_count or 1


def cards(n: int) -> str:
    return "one card" if n == 1 else f"{n} cards"


def receivers(view: pb.MatchView | None) -> dict[str, str]:
    """Direct: who receives each copy, by the final board (RULES.md 13: a copy moves to
    the player who owns it on the board at the end): "you" or "them"."""
    if view is None:
        return {}
    # "you" and "them": the column is narrow at 80 columns, where a name was cut (found
    # from outside: 'mea1c29…' and 'meb1c29…' read the same; 'uw170481…' of a 12-letter
    # name). The opponent is named over the table, in the result line.
    names = {p.seat: "you" if p.seat == view.my_seat else "them" for p in view.players}
    return {
        c.card.card.card_id: names.get(c.card.owner_seat, "")
        for c in view.board
        if c.WhichOneof("content") == "card"
    }


def trade_table(trade: pb.Trade, view: pb.MatchView | None = None) -> Table:
    """The copies of the trade under a title saying what happens to them: the loser's
    deck to choose from (or that is at stake), or the copies that moved (All, Direct)."""
    copies = list(trade.offered_copies)
    winner, loser = trade.winner_name, trade.loser_name
    rule = rule_of(trade)
    if rule == pb.TRADE_RULE_DIRECT:
        to = receivers(view)
        return copies_table(
            "Trade Direct: the opponent's cards each player owns on the final board",
            copies,
            [to.get(c.copy_id, "") for c in copies],
            column="to",
        )
    if rule == pb.TRADE_RULE_ALL:
        return copies_table(f"Trade All: {winner} takes {loser}'s whole deck", copies)
    role = "you choose" if trade.my_role == pb.TRADE_ROLE_CHOOSER else "you give"
    capped = ""
    if rule == pb.TRADE_RULE_DIFFERENCE and view is not None:  # RULES.md 13: at most a deck
        a, b = (p.score for p in view.players)
        if abs(a - b) > count_of(trade):  # found from outside: 13-3 took 8, unexplained
            capped = f"; the difference, {abs(a - b)}, is capped at the deck"
    return copies_table(
        f"{TRADE_NAMES.get(rule, 'Trade')}: {winner} takes {cards(count_of(trade))} "
        f"of {loser}'s deck ({role}{capped})",
        copies,
    )


def trade_status(trade: pb.Trade) -> str:
    if trade.status == pb.TRADE_STATUS_AWAITING_CHOICE and trade.my_role == pb.TRADE_ROLE_CHOOSER:
        # the winner left the pick (q): it is still theirs to make, until the deadline
        # found from outside: no time was said, and `trade` itself pointed to `trade`
        deadline = trade.choice_deadline_time.ToDatetime(tzinfo=UTC)
        left = max(0, int((deadline - datetime.now(UTC)).total_seconds()))
        n = count_of(trade)
        take = "N takes card N" if n == 1 else f"N1 N2 ... takes those {n}"
        return (
            f"Your choice is open for {left} s more, then the server picks: "
            f"triad-client trade choose {take}."
        )
    if trade.status == pb.TRADE_STATUS_AWAITING_CHOICE:
        return f"Waiting for {trade.winner_name or 'the winner'}'s choice."
    # the holo named (found from outside: 'Reedling moved' of a holographic Reedling)
    offered = {c.copy_id: copy_name(c) for c in trade.offered_copies}
    chosen = list(trade.chosen_copy_ids) or [trade.chosen_copy_id]
    names = ", ".join(offered.get(i) or i[:8] for i in chosen)
    done = "moved" if trade.status == pb.TRADE_STATUS_COMPLETED else "are moving"
    if done != "moved" and len(chosen) == 1:
        done = "is moving"
    if rule_of(trade) == pb.TRADE_RULE_DIRECT:
        # one card alone is not "each" (found from outside)
        whom = ", each to the player" if len(chosen) > 1 else " to the player"
        return f"{names} {done}{whom} who owns it on the board."
    how = " (picked by the server: time ran out)" if trade.auto_picked else ""
    return f"{names} {done} to {trade.winner_name}{how}."


def choice_hint(trade: pb.Trade, left: int) -> str:
    """The line above the winner's prompt (short enough for one line of 80)."""
    last, n = len(trade.offered_copies) - 1, count_of(trade)
    if n == 1:
        return (
            f"You won: take one card (0..{last}); {left} s left, then the server picks; "
            "q leaves it to the server."
        )
    example = " ".join(str(i) for i in range(n))
    return (
        f"Take {n} cards: {n} numbers of 0..{last}, e.g. {example}; {left} s left; "
        "q: the server picks"
    )


def offered_copy(trade: pb.Trade, given: str) -> str:
    """A card of the offer as its number in the list (0..4, or up to 12 from a 5x5 deck:
    one or two digits) or its copy id (or start). A number out of the list is refused,
    never read as a copy id's start (found from outside: `trade choose 7` at a Trade
    One of five cards took the copy whose id began with 7)."""
    offered = [c.copy_id for c in trade.offered_copies]
    if given.isdigit() and len(given) <= 2:
        if int(given) >= len(offered):
            raise CommandError(f"there is no card {given}: the cards are 0..{len(offered) - 1}")
        return offered[int(given)]
    matching = [c for c in offered if c == given or c.startswith(given)]
    if len(matching) != 1:
        raise CommandError(f"choose one of the offered cards: 0..{len(offered) - 1} or a copy id")
    return matching[0]


def picked(trade: pb.Trade, given: str) -> list[str]:
    """The copies named by ``given`` (numbers in the offer, or copy ids or their
    start), refused here, before any call, unless they are exactly the trade's d
    distinct copies of the offer."""
    n, words = count_of(trade), given.split()
    last = len(trade.offered_copies) - 1
    if n == 1:
        if len(words) != 1:
            raise CommandError(f"take one card: a single number of 0..{last}")
        return [offered_copy(trade, words[0])]
    example = " ".join(str(i) for i in range(n))
    copies = [offered_copy(trade, w) for w in words]
    twice = next((w for w, c in zip(words, copies, strict=True) if copies.count(c) > 1), None)
    if twice is not None:
        raise CommandError(f"card {twice} is named twice: type {n} different numbers")
    if len(copies) != n:
        raise CommandError(
            f"take {n} cards at once, not {len(copies)}: type {n} different numbers "
            f"of 0..{last}, e.g. {example}"
        )
    return copies


async def choose(client: Caller, trade: pb.Trade, given: str, request_id: str = "") -> pb.Trade:
    """One ChooseTradeCard with the chosen copies (Trade One's in copy_id, which every
    server reads; Difference's d copies in copy_ids)."""
    copies = picked(trade, given)
    request = g.ChooseTradeCardRequest(
        request_id=request_id or uuid.uuid4().hex, trade_id=trade.trade_id
    )
    if count_of(trade) == 1:
        request.copy_id = copies[0]
    else:
        request.copy_ids.extend(copies)
    if request_id and isinstance(state := getattr(client, "state", None), State):
        state.remember(request_id, request.SerializeToString().hex())  # for a retry
    chosen = await client.call(client.stub.ChooseTradeCard, request)
    return chosen.trade  # type: ignore[no-any-return]


async def chosen_before(client: Caller, request_id: str) -> pb.Trade:
    """A choice retried with its ``--request-id`` once no trade waits (found from
    outside: when the first try moved the card and its answer was lost, the retry said
    'no Trade One or Difference is waiting for your choice' and never told which card
    moved): the request the first try sent, sent again, which the gateway answers with
    the trade as that choice left it."""
    state = getattr(client, "state", None)
    sent = state.recall(request_id) if request_id and isinstance(state, State) else None
    if not sent:
        raise CommandError("no Trade One or Difference is waiting for your choice")
    request = g.ChooseTradeCardRequest.FromString(bytes.fromhex(sent))
    return (await client.call(client.stub.ChooseTradeCard, request)).trade  # type: ignore[no-any-return]


async def trade(client: Caller, args: argparse.Namespace, console: Console) -> int:
    pending = await client.call(client.stub.GetPendingTrade, g.GetPendingTradeRequest())
    if args.trade_command == "choose":
        if not pending.HasField("trade"):
            chosen = await chosen_before(client, args.request_id)
        else:
            chosen = await choose(client, pending.trade, " ".join(args.card), args.request_id)
        print(as_json(chosen)) if args.json else console.print(trade_status(chosen))
        return 0
    if args.json:
        print(as_json(pending))
    elif not pending.HasField("trade"):
        console.print("No pending trade.")
    else:
        console.print(trade_table(pending.trade))
        console.print(trade_status(pending.trade))
        if (
            pending.trade.my_role == pb.TRADE_ROLE_CHOOSER
            and pending.trade.status == pb.TRADE_STATUS_AWAITING_CHOICE
        ):
            n = count_of(pending.trade)
            what = "NUMBER" if n == 1 else " ".join(["N"] * n)
            console.print(f"Take {cards(n)}: triad-client trade choose {what}", style="bold")
    return 0
