"""The player's status in words (``triad-client status``): the game in progress, a
draft, a ticket, a trade left open, a hosted table, what else obliges them, and the
challenges to them, each with the command that takes it up."""

from __future__ import annotations

import grpc
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.commands_lobby import challenges_to
from client.connection import Caller
from client.expiry import expiry
from client.rules_text import TRADE_NAMES, rules_line


async def challenge_lines(client: Caller) -> list[str]:
    """The challenges to you for ``status``, each with its commands (RULES.md 14); the
    lobby out of reach is said in a line, the rest of the status still shown."""
    try:
        tables = await challenges_to(client)
    except grpc.aio.AioRpcError as error:
        if error.code() != grpc.StatusCode.UNAVAILABLE:
            raise
        return ["Challenges to you: not available right now (triad-client challenges)."]
    found = [(t.host_name, t.table_id[:8], expiry(t, "; it ")) for t in tables]
    said = "Challenge from {} (table {}): triad-client accept {} or decline {}{}."
    return [said.format(host, short, short, short, ends) for host, short, ends in found]


def battle_line(battle_id: str) -> str:
    return f"Battle in progress {battle_id[:8]}: triad-client battle resumes it."


def status_text(status: g.PlayerStatus, challenges: list[str] | None = None) -> str:
    """What is going on for the player, in lines (``--json``: the status as sent), with
    the ``challenges`` to them (lines of ``challenge_lines``)."""
    lines = [f"{status.player.player_name}: {status.balance.coins} coins."]
    if status.active_match_id:
        lines.append(f"Active match {status.active_match_id[:8]}: triad-client play resumes it.")
    if status.active_battle_id:
        lines.append(battle_line(status.active_battle_id))
    if status.draft_id:
        lines.append(f"Draft {status.draft_id[:8]}: triad-client play resumes it.")
    if status.HasField("ticket"):
        ticket = status.ticket.ticket_id
        lines.append(
            f"Queued: ticket {ticket}: triad-client play shows the queue, cancel TICKET leaves it."
        )
    if status.HasField("pending_trade"):  # what to do about it, not only that it blocks
        lines.append(trade_line(status.pending_trade))
    if status.HasField("hosted_table"):
        lines.append(table_words(status.hosted_table))
    lines += [sentence(o.message) for o in status.obligations if not said_above(status, o)]
    lines += challenges or []
    if len(lines) == 1:
        lines.append("Nothing going on: triad-client practice, queue or tables.")
    return "\n".join(lines)


def said_above(status: g.PlayerStatus, obligation: pb.Obligation) -> bool:
    """Whether a line above already tells ``obligation`` with its command (found from
    outside: under the trade's line, status said again 'a Trade One card must change
    hands before your next match', in lower case)."""
    shown = {
        pb.OBLIGATION_KIND_PENDING_TRADE: status.HasField("pending_trade"),
        pb.OBLIGATION_KIND_OPEN_DRAFT: bool(status.draft_id),
        pb.OBLIGATION_KIND_ACTIVE_MATCH: bool(status.active_match_id),
        pb.OBLIGATION_KIND_ACTIVE_BATTLE: bool(status.active_battle_id),
    }
    return shown.get(obligation.kind, False)


def sentence(said: str) -> str:
    return said[:1].upper() + said[1:] + ("" if said.endswith(".") else ".")


def trade_line(trade: pb.Trade) -> str:
    """A trade left open, and the command for it (found from outside: status said only
    'a Trade One card must change hands before your next match', to the winner too)."""
    name = TRADE_NAMES.get(trade.trade_rule, "Trade")
    if trade.my_role == pb.TRADE_ROLE_CHOOSER:
        return f"{name}: your pick from {trade.loser_name}'s cards is open: triad-client trade."
    return f"{name}: {trade.winner_name} picks from your cards: triad-client trade shows them."


def table_words(table: pb.Table) -> str:
    """The table the player hosts: a challenge and to whom, or an open table, its rules,
    what waits for the guest or takes it back (found from outside: status said 'Hosting
    table <id>.', a challenge too, with no word of what to do), and when it expires."""
    short, rules = table.table_id[:8], rules_line(table.settings.rules)
    ends = expiry(table, "; it ")
    if table.challenged_player_name:
        return (
            f"Challenge to {table.challenged_player_name} (table {short}, {rules}): "
            f"triad-client play waits for them to accept, close withdraws it{ends}."
        )
    return (
        f"Hosting table {short} ({rules}): triad-client play waits for a guest, "
        f"close closes it{ends}."
    )
