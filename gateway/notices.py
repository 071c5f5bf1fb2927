"""The notices the contract names for matches and trades (``Notice.code``), told on the
session stream at the moment they happen: from two successive views of a match the
session pushed (the first view a session shows is where it starts, so a reconnect
tells nothing again), and from a completed trade the collection reports once.

- ``TURN_MISSED``: to the player whose turn the server played (the first miss; a second
  forfeits, which the view's outcome tells).
- ``OPPONENT_DISCONNECTED`` / ``OPPONENT_RECONNECTED``: to the other player (connected
  again: only after this session saw them connected).
- ``TRADE_AUTO_PICKED``: to the winner of a Trade One who did not choose in time.
- ``TABLE_CLOSED``: to a host whose table the server closed on their behalf (a guest sat
  down and the host could not play it), with why.
- ``MATCH_ENDED_AWAY``: to a player whose match finished while no session of theirs was
  open (``SessionOpened.missed_match``), as the session opens; not for a match they
  forfeited themselves.
- ``BATTLE_ENDED_AWAY``: the same for a Skirmish battle (``SessionOpened.missed_battle``:
  the CPU played their seat after they left, say).

Also the session's other words: why it closed, and the match it found.
"""

from __future__ import annotations

from collections.abc import Container
from datetime import UTC

from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g


def match_notices(before: pb.MatchView, after: pb.MatchView, met: Container[int]) -> list[g.Notice]:
    """What happened to the viewer's match between two of their views of it. ``met``:
    the seats an earlier view showed connected; only they can be connected *again*
    (an opponent who joined a table has no session yet, and then opens one)."""
    if after.status != pb.MATCH_STATUS_IN_PROGRESS:
        return []  # the end says it all (a second miss, a disconnect forfeit)
    seats = {p.seat: p for p in before.players}
    told: list[g.Notice] = []

    def tell(code: str, message: str, level: g.NoticeLevel.ValueType = g.NOTICE_LEVEL_INFO) -> None:
        told.append(g.Notice(level=level, code=code, message=message, subject_id=after.match_id))

    for now in after.players:
        was = seats.get(now.seat)
        if was is None:
            continue
        if now.seat == after.my_seat:
            if now.missed_turn_warning and not was.missed_turn_warning:
                tell(
                    "TURN_MISSED",
                    "You missed your turn and a card was played for you; "
                    "miss the next one too and you forfeit.",
                    g.NOTICE_LEVEL_WARNING,
                )
            continue
        if was.connected and not now.connected:
            by = now.disconnect_forfeit_time.ToDatetime(tzinfo=UTC).strftime("%H:%M:%S")
            tell(
                "OPPONENT_DISCONNECTED",
                f"{now.player_name} lost their connection; they forfeit unless "
                f"they are back by {by} UTC.",
            )
        elif now.connected and not was.connected and now.seat in met:
            tell("OPPONENT_RECONNECTED", f"{now.player_name} is connected again.")
    return told


def table_notices(table: pb.Table) -> list[g.Notice]:
    """For the host's table closed by the server (``Table.close_reason``)."""
    if table.status != pb.TABLE_STATUS_CLOSED or not table.close_reason:
        return []
    return [
        g.Notice(
            level=g.NOTICE_LEVEL_WARNING,
            code="TABLE_CLOSED",
            message=f"Your table {table.table_id[:8]} was closed when a guest sat down: "
            f"{table.close_reason}.",
            subject_id=table.table_id,
        )
    ]


def trade_notices(result: pb.Trade) -> list[g.Notice]:
    """For a completed trade shown to its winner, when the server picked the card."""
    if not result.auto_picked or result.my_role != pb.TRADE_ROLE_CHOOSER:
        return []
    picked = list(result.chosen_copy_ids) or [result.chosen_copy_id]
    names = {c.copy_id: c.character.name for c in result.offered_copies}
    cards = ", ".join(names[c] for c in picked if names.get(c))
    cards = f"{cards} " if cards else ""
    return [
        g.Notice(
            level=g.NOTICE_LEVEL_INFO,
            code="TRADE_AUTO_PICKED",
            message=f"You did not choose in time: the server picked {cards}from "
            f"{result.loser_name}'s cards for you.",
            subject_id=result.trade_id,
        )
    ]


def shutting_down() -> g.SessionClosed:
    return g.SessionClosed(
        reason=g.SESSION_CLOSE_REASON_SERVER_SHUTDOWN,
        message="this gateway is stopping: open a new session (another gateway takes it)",
    )


def replaced() -> g.SessionClosed:
    return g.SessionClosed(
        reason=g.SESSION_CLOSE_REASON_REPLACED,
        message="a newer session of yours was opened; this one ends",
    )


def match_found(view: pb.MatchView) -> g.MatchFound:
    """The push that announces a match the session has not shown yet."""
    opponent = next(p for p in view.players if p.seat != view.my_seat)
    return g.MatchFound(
        mode=view.mode,
        match_id=view.match_id,
        opponent_name=opponent.player_name,
        opponent_is_bot=opponent.is_bot,
    )


_ENDINGS = {  # found from outside: "you won, by the board filled"
    pb.FINISH_REASON_BOARD_FULL: "with the board full",
    pb.FINISH_REASON_FORFEIT: "by a forfeit",
    pb.FINISH_REASON_TURN_TIMEOUT: "by a second missed turn",
    pb.FINISH_REASON_DISCONNECT: "by a disconnection past the grace",
}


def missed_is_news(view: pb.MatchView | pb.BattleView) -> bool:
    """Whether a match or battle that ended while no session of the player was open is
    news to them: not one they forfeited or gave up (that is only ever the player's own
    call, from a script or another client; found from outside: ``triad-client forfeit``
    was told at the next screen as 'ended while you were away: you lost, by a forfeit')."""
    if isinstance(view, pb.BattleView):
        return not (view.outcome.reason == "give_up" and view.outcome.winner_seat != view.seat)
    outcome = view.outcome
    return not (
        outcome.reason == pb.FINISH_REASON_FORFEIT and outcome.forfeiting_seat == view.my_seat
    )


def missed_notice(view: pb.MatchView) -> g.Notice:
    """What a player is told of their match that ended while they were away."""
    outcome = view.outcome
    opponent = next((p.player_name for p in view.players if p.seat != view.my_seat), "")
    if outcome.HasField("draw"):
        result = "a draw"
    else:
        result = "you won" if outcome.winner_seat == view.my_seat else "you lost"
    how = _ENDINGS.get(outcome.reason, "")
    return _ended_away("MATCH_ENDED_AWAY", "match", view.match_id, opponent, result, how)


NO_WINNER = -1
"""``BattleOutcome.winner_seat`` when both players left (BATTLE.md 5: each loses)."""

_BATTLE_ENDINGS = {  # (BattleOutcome.reason, won): how, in the viewer's words
    ("disconnect", False): "the CPU played your side after you left",
    ("disconnect", True): "the CPU played {them}'s side after they left",
    ("give_up", False): "you gave up",
    ("give_up", True): "{them} gave up",
    ("wipeout", False): "your team was wiped out",
    ("wipeout", True): "{them}'s team was wiped out",
    ("decision", False): "decided after turn 10",
    ("decision", True): "decided after turn 10",
}


def battle_missed_notice(view: pb.BattleView) -> g.Notice:
    """What a player is told of their Skirmish battle that ended while they were away
    (BATTLE.md 5: a seat the CPU took over loses)."""
    won = view.outcome.winner_seat == view.seat
    them = view.opponent.name
    how = _BATTLE_ENDINGS.get((view.outcome.reason, won), "").format(them=them)
    if view.outcome.winner_seat == NO_WINNER:
        how = f"you and {them} both left, so nobody won"
    result = "you won" if won else "you lost"
    return _ended_away("BATTLE_ENDED_AWAY", "battle", view.battle_id, them, result, how)


def _ended_away(
    code: str, game: str, subject_id: str, opponent: str, result: str, how: str
) -> g.Notice:
    return g.Notice(
        level=g.NOTICE_LEVEL_WARNING,
        code=code,
        message=f"Your {game} against {opponent} ended while you were away: {result}"
        + (f", {how}." if how else "."),
        subject_id=subject_id,
    )


def away_notices(opened: g.SessionOpened) -> list[g.Notice]:
    """The notices of a session's opening: what ended while the player was away."""
    told = []
    if opened.HasField("missed_match"):
        told.append(missed_notice(opened.missed_match))
    if opened.HasField("missed_battle"):
        told.append(battle_missed_notice(opened.missed_battle))
    return told
