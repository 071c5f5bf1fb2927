"""Whether every finished match was settled exactly once (one of the chaos invariants,
tests/chaos/invariants.py): the trade rules' copy transfers (One, Direct, Difference,
All: RULES.md 7, 13) and the rating changes, each exactly once where due and never
elsewhere, decoded from the collection's and the rating service's own tables and logs.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from tests.chaos.invariants import Check, Layout, MatchLog, _t

RULE_TRADES = (pb.TRADE_RULE_DIRECT, pb.TRADE_RULE_DIFFERENCE, pb.TRADE_RULE_ALL)


def trade_rule_moves(done: ev.MatchFinished) -> list[tuple[str, str, str]]:
    """(copy, from, to) that RULES.md 13 may move after ``done``, sorted: Direct each
    deck's copies on the other seat's final board; All the loser's deck; Difference the
    loser's deck too, of which :func:`difference` copies move (the winner's choice)."""
    a, b = done.seats
    if done.trade_rule == pb.TRADE_RULE_DIRECT:
        moves = [
            (card, giver.player.player_id, taker.player.player_id)
            for taker, giver in ((a, b), (b, a))
            for card in taker.board_card_ids
            if card in set(giver.original_card_ids)
        ]
        return sorted(moves)
    if done.outcome.WhichOneof("result") != "winner_seat":
        return []
    winner, loser = (a, b) if a.player.seat == done.outcome.winner_seat else (b, a)
    deck = [(c, loser.player.player_id, winner.player.player_id) for c in loser.original_card_ids]
    return sorted(deck)


def difference(done: ev.MatchFinished) -> int:
    """RULES.md 13: the score difference, at least 1, at most the loser's deck."""
    a, b = done.seats
    if done.outcome.WhichOneof("result") != "winner_seat":
        return 0
    winner, loser = (a, b) if a.player.seat == done.outcome.winner_seat else (b, a)
    return max(1, min(winner.score - loser.score, len(loser.original_card_ids)))


@dataclass(frozen=True, slots=True)
class TradeLog:
    """The collection's trades, decoded: each trade's row and its events."""

    trades: Mapping[str, Mapping[str, Any]]
    """match id -> the trades row (trade_id, winner_id, loser_id, completed_at)."""
    opened: Mapping[str, ev.TradeOpened]
    """trade id -> TradeOpened (the trade rule, the offer, how many move)."""
    chosen: Mapping[str, Sequence[ev.TradeCardChosen]]
    """trade id -> each TradeCardChosen, in log order."""
    transfers: Mapping[str, Sequence[ev.CopyTransferred]]
    """trade id -> each CopyTransferred, in log order."""
    opened_twice: frozenset[str]
    """Trades with more than one TradeOpened (never, if each opens once)."""

    @classmethod
    async def read(cls, conn: Any, schema: str) -> TradeLog:
        trades = {
            r["match_id"]: r
            for r in await conn.fetch(
                f"SELECT trade_id, match_id, winner_id, loser_id, completed_at "
                f"FROM {_t(schema, 'trades')}"
            )
        }
        opened: dict[str, ev.TradeOpened] = {}
        twice: set[str] = set()
        chosen: dict[str, list[ev.TradeCardChosen]] = defaultdict(list)
        transfers: dict[str, list[ev.CopyTransferred]] = defaultdict(list)
        for row in await conn.fetch(
            f"SELECT type, data FROM {_t(schema, 'events')} WHERE type = ANY($1::text[]) "
            "ORDER BY tx_id, seq",
            ["triad.v1.TradeOpened", "triad.v1.TradeCardChosen", "triad.v1.CopyTransferred"],
        ):
            if row["type"] == "triad.v1.TradeOpened":
                event = ev.TradeOpened.FromString(row["data"])
                if event.trade_id in opened:
                    twice.add(event.trade_id)
                opened[event.trade_id] = event
            elif row["type"] == "triad.v1.TradeCardChosen":
                choice = ev.TradeCardChosen.FromString(row["data"])
                chosen[choice.trade_id].append(choice)
            else:
                transfer = ev.CopyTransferred.FromString(row["data"])
                transfers[transfer.trade_id].append(transfer)
        return cls(trades, opened, dict(chosen), dict(transfers), frozenset(twice))


def rule_trade_problems(done: ev.MatchFinished, trades: TradeLog, tally: Counter[str]) -> list[str]:
    """What is wrong with the settlement of a Direct, Difference or All match (RULES.md
    13), exactly: Direct and All move exactly :func:`trade_rule_moves`, at once, nothing
    chosen; Difference opens with d = :func:`difference` and moves the d distinct
    copies chosen (all in one call by the winner, or all drawn by the server at the
    deadline), each once, loser to winner. ``tally`` counts what was settled how."""
    rule = pb.TradeRule.Name(done.trade_rule).removeprefix("TRADE_RULE_").title()
    match_id = done.match_id
    row = trades.trades.get(match_id)
    trade_id = row["trade_id"] if row is not None else ""
    moved = trades.transfers.get(trade_id, [])
    got = sorted((m.copy_id, m.from_player_id, m.to_player_id) for m in moved)
    due = trade_rule_moves(done)
    problems: list[str] = []
    tally[f"{rule.lower()}_transfers"] += len(moved)
    if len({m.copy_id for m in moved}) != len(moved):
        problems.append(f"{rule} match {match_id}: a copy moved twice: {got}")
    if trade_id in trades.opened_twice:
        problems.append(f"{rule} match {match_id}: trade {trade_id} opened twice")
    opened = trades.opened.get(trade_id)
    completed = row is not None and row["completed_at"] is not None
    if (row is None) != (opened is None) or (row is not None and not completed):
        problems.append(f"{rule} match {match_id}: trade row {row}, opened {opened is not None}")
    if opened is not None and opened.trade_rule != done.trade_rule:
        problems.append(f"{rule} match {match_id}: the trade opened as rule {opened.trade_rule}")
    if done.trade_rule != pb.TRADE_RULE_DIFFERENCE:
        if got != due:
            problems.append(f"{rule} match {match_id}: moved {got}, wanted {due}")
        if trades.chosen.get(trade_id):
            problems.append(f"{rule} match {match_id}: cards chosen, nothing to choose")
        tally[f"{rule.lower()}_moving_nothing"] += not due
        return problems
    d = difference(done)
    if d == 0:  # a draw trades nothing
        if row is not None or moved:
            problems.append(f"Difference draw {match_id}: a trade, moving {got}")
        tally["difference_draws"] += 1
        return problems
    loser, winner = (due[0][1], due[0][2]) if due else ("", "")
    deck = {c for c, _, _ in due}
    chosen = trades.chosen.get(trade_id, [])
    picked = [c.copy_id for c in chosen]
    if opened is None or opened.take_count != d:
        take = opened.take_count if opened is not None else None
        problems.append(f"Difference match {match_id}: opened to take {take}, d is {d}")
    if len(got) != d or any(c not in deck or (f, t) != (loser, winner) for c, f, t in got):
        problems.append(
            f"Difference match {match_id}: moved {got}, wanted {d} of {sorted(deck)} "
            f"from {loser} to {winner}"
        )
    if len(set(picked)) != len(picked) or sorted(picked) != sorted(c for c, _, _ in got):
        problems.append(f"Difference match {match_id}: chose {picked}, moved {got}")
    autos = {c.auto_picked for c in chosen}
    if len(autos) > 1:
        problems.append(f"Difference match {match_id}: chosen partly by the server: {picked}")
    tally["difference_auto_picked" if True in autos else "difference_chosen"] += 1
    return problems


async def matches_settled(conn: Any, layout: Layout, log: MatchLog) -> Check:
    """Trade rules' transfers (One, Direct, Difference, All: RULES.md 7, 13) and rating
    changes: exactly once where due, never elsewhere."""
    check = Check("finished matches settled exactly once")
    coll, rating = layout.collection, layout.rating
    trade_log = await TradeLog.read(conn, coll)
    trades, transfers = trade_log.trades, trade_log.transfers
    changes: dict[str, list[str]] = defaultdict(list)
    # Drafts forfeited before their match are rated without one (match_id empty).
    change_rows = await conn.fetch(
        f"SELECT match_id, player_id FROM {_t(rating, 'rating_changes')} WHERE match_id <> ''"
    )
    for row in change_rows:
        changes[row["match_id"]].append(row["player_id"])

    modes: Counter[str] = Counter()
    traded = rated = ranked = ranked_traded = ranked_rated = 0
    rule_trades: Counter[str] = Counter()
    tally: Counter[str] = Counter()
    for match_id, (done, _event_id, _at) in log.finished.items():
        mode = pb.Mode.Name(done.mode)
        modes[mode] += 1
        is_ranked = done.mode == pb.MODE_RANKED
        ranked += is_ranked
        players = sorted(s.player.player_id for s in done.seats)
        winner = loser = ""
        if done.outcome.WhichOneof("result") == "winner_seat":
            for seat in done.seats:
                if seat.player.seat == done.outcome.winner_seat:
                    winner = seat.player.player_id
                else:
                    loser = seat.player.player_id
        trade = trades.get(match_id)
        moved = transfers.get(trade["trade_id"], []) if trade else []
        if done.trade_rule == pb.TRADE_RULE_ONE:
            traded += 1
            ranked_traded += is_ranked
            if trade is None or len(moved) != 1:
                check.problem(f"{mode} match {match_id}: {len(moved)} transfers, wanted 1")
            elif (moved[0].to_player_id, moved[0].from_player_id) != (winner, loser):
                check.problem(
                    f"match {match_id}: copy moved {moved[0].from_player_id} -> "
                    f"{moved[0].to_player_id}, the winner is {winner}"
                )
        elif done.trade_rule in RULE_TRADES:
            rule_trades[pb.TradeRule.Name(done.trade_rule)] += 1
            for problem in rule_trade_problems(done, trade_log, tally):
                check.problem(f"{mode} {problem}")
        elif trade is not None or moved:
            check.problem(f"{mode} match {match_id} trades nothing, yet a trade or a transfer")
        got = sorted(changes.pop(match_id, []))
        if done.rated:
            rated += 1
            ranked_rated += is_ranked
            if got != players:
                check.problem(f"{mode} match {match_id}: rating changes for {got}, not {players}")
        elif got:
            check.problem(f"unrated {mode} match {match_id} changed the ratings of {got}")
    for match_id, players in changes.items():
        check.problem(f"rating changes for {players} in {match_id}, not a finished rated match")
    finished_ids = set(log.finished)
    for match_id, trade in trades.items():
        if match_id not in finished_ids:
            check.problem(f"trade {trade['trade_id']} for match {match_id}, which never finished")
    moves = sum(len(v) for v in transfers.values())
    check.counts = {
        "finished": len(log.finished),
        **{f"finished_{m.removeprefix('MODE_').lower()}": n for m, n in sorted(modes.items())},
        "ranked_with_trade_one": ranked_traded,
        "ranked_rated": ranked_rated,
        "trade_one_matches": traded,
        **{f"{r.removeprefix('TRADE_RULE_').lower()}_matches": n for r, n in rule_trades.items()},
        **dict(sorted(tally.items())),
        "transfers": moves,
        "rated_matches": rated,
        "rating_changes": len(change_rows),
        "ranked": ranked,
    }
    return check
