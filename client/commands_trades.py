"""Trade One as a subcommand of ``triad-client`` (``trade``, ``trade choose``), and
the offer as the play screen shows it."""

from __future__ import annotations

import argparse
import uuid

from rich.console import Console
from rich.table import Table
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import Caller, CommandError, as_json
from client.copies import copies_table


def trade_table(trade: pb.Trade) -> Table:
    role = "you choose" if trade.my_role == pb.TRADE_ROLE_CHOOSER else "you give"
    return copies_table(
        f"Trade One: {trade.winner_name} takes one of {trade.loser_name}'s cards ({role})",
        list(trade.offered_copies),
    )


def trade_status(trade: pb.Trade) -> str:
    if trade.status == pb.TRADE_STATUS_AWAITING_CHOICE:
        return "Waiting for the winner's choice."
    chosen = next((c for c in trade.offered_copies if c.copy_id == trade.chosen_copy_id), None)
    name = chosen.character.name if chosen else trade.chosen_copy_id[:8]
    how = " (picked by the server: time ran out)" if trade.auto_picked else ""
    done = "moved" if trade.status == pb.TRADE_STATUS_COMPLETED else "is moving"
    return f"{name} {done} to {trade.winner_name}{how}."


def offered_copy(trade: pb.Trade, given: str) -> str:
    """A card of the offer as its number in the list (0..4) or its copy id (or start)."""
    offered = [c.copy_id for c in trade.offered_copies]
    if given.isdigit() and int(given) < len(offered):
        return offered[int(given)]
    matching = [c for c in offered if c == given or c.startswith(given)]
    if len(matching) != 1:
        raise CommandError(f"choose one of the offered cards: 0..{len(offered) - 1} or a copy id")
    return matching[0]


async def choose(client: Caller, trade: pb.Trade, given: str, request_id: str = "") -> pb.Trade:
    chosen = await client.call(
        client.stub.ChooseTradeCard,
        g.ChooseTradeCardRequest(
            request_id=request_id or uuid.uuid4().hex,
            trade_id=trade.trade_id,
            copy_id=offered_copy(trade, given),
        ),
    )
    return chosen.trade  # type: ignore[no-any-return]


async def trade(client: Caller, args: argparse.Namespace, console: Console) -> int:
    pending = await client.call(client.stub.GetPendingTrade, g.GetPendingTradeRequest())
    if args.trade_command == "choose":
        if not pending.HasField("trade"):
            raise CommandError("no Trade One is waiting for you")
        chosen = await choose(client, pending.trade, args.card, args.request_id)
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
            console.print("Take one: triad-client trade choose NUMBER", style="bold")
    return 0
