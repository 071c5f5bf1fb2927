"""``triad-client status`` in words: what is going on for the player, each with the
command that deals with it."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.status import status_text


def test_a_pending_trade_says_whose_pick_it_is_and_the_command() -> None:
    """Found from outside: the winner of a Ranked match who left the pick was told by
    status only 'a Trade One card must change hands before your next match'; the queue
    line pointed at watch (JSON lines), not at play or cancel."""
    blocked = pb.Obligation(message="a Trade One card must change hands before your next match")
    trade = pb.Trade(
        trade_id="t1",
        trade_rule=pb.TRADE_RULE_ONE,
        winner_name="ann",
        loser_name="bea",
        my_role=pb.TRADE_ROLE_CHOOSER,
        status=pb.TRADE_STATUS_AWAITING_CHOICE,
    )
    status = g.PlayerStatus(
        player=g.Player(player_name="ann"), pending_trade=trade, obligations=[blocked]
    )
    said = status_text(status)
    assert "Trade One: your pick from bea's cards is open: triad-client trade." in said, said
    trade.my_role = pb.TRADE_ROLE_GIVER
    said = status_text(g.PlayerStatus(player=g.Player(player_name="bea"), pending_trade=trade))
    assert "Trade One: ann picks from your cards: triad-client trade shows them." in said, said
    queued = g.PlayerStatus(ticket=pb.Ticket(ticket_id="5e1f0c2a-0000", mode=pb.MODE_RANKED))
    said = status_text(queued)
    assert "triad-client play shows the queue, cancel TICKET leaves it" in said, said
    battling = g.PlayerStatus(active_battle_id="b7c1e2d3-0000")
    assert "Battle in progress b7c1e2d3: triad-client battle resumes it." in status_text(battling)


def test_a_hosted_table_or_challenge_says_what_it_is_and_the_commands() -> None:
    """Found from outside: status said 'Hosting table <whole id>.' for a table and for a
    challenge alike, with no word of whom it waits for or what to do."""
    rules = pb.Rules(visibility=pb.VISIBILITY_CLOSED, same=True, plus=True, combo=True)
    rules.trade_rule = pb.TRADE_RULE_DIRECT
    table = pb.Table(
        table_id="075e7bab-46dc-4ed9-ad1f-cf081d0b3e1d",
        settings=pb.TableSettings(rules=rules),
        challenged_player_name="bea",
    )
    said = status_text(g.PlayerStatus(player=g.Player(player_name="ann"), hosted_table=table))
    assert (
        "Challenge to bea (table 075e7bab, Closed, Same, Plus, Combo, Trade Direct): "
        "triad-client play waits for them to accept, close withdraws it."
    ) in said, said
    table.challenged_player_name = ""
    said = status_text(g.PlayerStatus(player=g.Player(player_name="ann"), hosted_table=table))
    assert (
        "Hosting table 075e7bab (Closed, Same, Plus, Combo, Trade Direct): "
        "triad-client play waits for a guest, close closes it."
    ) in said, said


def test_an_obligation_a_line_above_tells_is_not_said_again() -> None:
    """Found from outside: under 'Trade One: your pick from bea's cards is open:
    triad-client trade.', status printed 'a Trade One card must change hands before
    your next match' too, in lower case, with no full stop."""
    trade = pb.Trade(trade_rule=pb.TRADE_RULE_ONE, loser_name="bea", my_role=pb.TRADE_ROLE_CHOOSER)
    blocked = pb.Obligation(
        kind=pb.OBLIGATION_KIND_PENDING_TRADE,
        message="a Trade One card must change hands before your next match",
    )
    status = g.PlayerStatus(
        player=g.Player(player_name="ann"), pending_trade=trade, obligations=[blocked]
    )
    assert status_text(status) == (
        "ann: 0 coins.\nTrade One: your pick from bea's cards is open: triad-client trade."
    )
    status.ClearField("pending_trade")
    assert status_text(status).splitlines()[1] == (
        "A Trade One card must change hands before your next match."
    )
