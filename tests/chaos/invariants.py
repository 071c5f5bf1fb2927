"""What must hold after any amount of load and faults, read from the logs and tables.

Each check reads one service's schema (the services never read each other's; a check
may join what it read from several) and returns a ``Check``: its counts, whether it
holds, and the first few problems found. The checks decode the events themselves from
the protobuf payloads, so they trust the log, not the service code under test.

- ``placements_logged``: every placement a client was told succeeded is a CardPlaced in
  the match's event log, with the client's request id, seat, card and cell.
- ``results_agree``: every match a client saw finished is finished in the log, with the
  winner the client was shown.
- ``matches_settled``: every finished match with Trade One has exactly one copy transfer
  (Direct: each deck's copies on the other's final board; Difference: d of the loser's
  deck, opened for d and moving the d distinct copies chosen in one call or drawn at
  the deadline; All: the loser's deck; RULES.md 13), each copy once, every rated one
  exactly one rating change per player, and nothing else has either.
- ``copies_conserved``: the copies in the table are exactly those granted or drawn from
  boosters, each owned by whoever the log says owns it after its transfers, each still
  the character and holo it was made with.
- ``nobody_stuck``: no match running, no player seated, queued or hosting a table, no
  lock or trade open.
- ``caught_up``: every relay has published the whole log, every durable consumer has
  nothing pending, and every event a consumer is for carries its processed mark.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.platform.migrations import quote_schema

EXAMPLES = 10
"""Problems listed per check; the counts say how many there were in all."""


class Placement(Protocol):
    """What the load generator records of a PlaceCard answered OK."""

    @property
    def match_id(self) -> str: ...
    @property
    def player_id(self) -> str: ...
    @property
    def request_id(self) -> str: ...
    @property
    def cell(self) -> int: ...
    @property
    def card_id(self) -> str: ...


class Seen(Protocol):
    """What the load generator records of a match a client saw finished."""

    @property
    def match_id(self) -> str: ...
    @property
    def winner(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Layout:
    """Where each service keeps its data, and the names of the event pipeline's parts."""

    match: str
    matchmaker: str
    collection: str
    rating: str
    battle: str = "battle"
    stream: str = "TRIAD_EVENTS"
    relays: Mapping[str, str] = field(default_factory=dict)
    """Relay name -> the schema whose log it publishes."""
    consumers: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """Durable name -> (the schema holding its processed marks, the event type it takes)."""


@dataclass(slots=True)
class Check:
    name: str
    counts: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    problem_count: int = 0

    @property
    def ok(self) -> bool:
        return self.problem_count == 0

    def problem(self, text: str) -> None:
        self.problem_count += 1
        if len(self.problems) < EXAMPLES:
            self.problems.append(text)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "counts": self.counts,
            "problems": self.problem_count,
            "examples": self.problems,
        }


def _t(schema: str, table: str) -> str:
    return f"{quote_schema(schema)}.{table}"


def _match_id(stream_id: str) -> str:
    return stream_id.removeprefix("match-")


@dataclass(frozen=True, slots=True)
class MatchLog:
    """The match service's log, decoded: seats, placements and results."""

    seats: Mapping[str, Mapping[str, int]]
    """match id -> player id -> seat (humans and bots)."""
    placements: Mapping[tuple[str, str], ev.CardPlaced]
    """(match id, request id) -> the placement made for that request."""
    placement_count: int
    auto_played: int
    finished: Mapping[str, tuple[ev.MatchFinished, str, datetime]]
    """match id -> (MatchFinished, its event id, when it was recorded)."""

    @classmethod
    async def read(cls, conn: Any, schema: str) -> MatchLog:
        rows = await conn.fetch(
            f"SELECT stream_id, type, data, event_id::text AS event_id, recorded_at, "
            f"metadata->>'correlation_id' AS request_id FROM {_t(schema, 'events')} "
            "WHERE type = ANY($1::text[]) ORDER BY stream_id, version",
            ["triad.v1.MatchCreated", "triad.v1.CardPlaced", "triad.v1.MatchFinished"],
        )
        seats: dict[str, dict[str, int]] = {}
        placements: dict[tuple[str, str], ev.CardPlaced] = {}
        finished: dict[str, tuple[ev.MatchFinished, str, datetime]] = {}
        count = auto = 0
        for row in rows:
            match_id = _match_id(row["stream_id"])
            if row["type"] == "triad.v1.MatchCreated":
                created = ev.MatchCreated.FromString(row["data"])
                seats[match_id] = {s.player.player_id: s.player.seat for s in created.seats}
            elif row["type"] == "triad.v1.CardPlaced":
                placed = ev.CardPlaced.FromString(row["data"])
                count += 1
                auto += placed.auto_played
                if row["request_id"]:
                    placements[(match_id, row["request_id"])] = placed
            else:
                done = ev.MatchFinished.FromString(row["data"])
                finished[match_id] = (done, row["event_id"], row["recorded_at"])
        return cls(seats, placements, count, auto, finished)


def placements_logged(log: MatchLog, acknowledged: Sequence[Placement]) -> Check:
    check = Check("acknowledged placements in the match log")
    found = 0
    for ack in acknowledged:
        placed = log.placements.get((ack.match_id, ack.request_id))
        seat = log.seats.get(ack.match_id, {}).get(ack.player_id)
        if placed is None:
            check.problem(f"match {ack.match_id}: request {ack.request_id} is not in the log")
        elif (placed.seat, placed.cell, placed.card.card_id, placed.auto_played) != (
            seat,
            ack.cell,
            ack.card_id,
            False,
        ):
            check.problem(
                f"match {ack.match_id}: request {ack.request_id} placed {placed.card.card_id} "
                f"seat {placed.seat} cell {placed.cell} (auto {placed.auto_played}); "
                f"acknowledged {ack.card_id} seat {seat} cell {ack.cell}"
            )
        else:
            found += 1
    duplicates = len(acknowledged) - len({(a.match_id, a.request_id) for a in acknowledged})
    check.counts = {
        "acknowledged": len(acknowledged),
        "acknowledged_retries": duplicates,
        "found_in_log": found,
        "lost": check.problem_count,
        "placements_in_log": log.placement_count,
        "auto_played_in_log": log.auto_played,
    }
    return check


def results_agree(log: MatchLog, seen: Sequence[Seen]) -> Check:
    check = Check("finished matches the clients saw are finished so in the log")
    agree = 0
    for match in seen:
        entry = log.finished.get(match.match_id)
        if entry is None:
            check.problem(f"match {match.match_id} was shown finished but is not in the log")
            continue
        done = entry[0]
        winner = None
        if done.outcome.WhichOneof("result") == "winner_seat":
            winner = next(
                s.player.player_name
                for s in done.seats
                if s.player.seat == done.outcome.winner_seat
            )
        if winner != match.winner:
            check.problem(f"match {match.match_id}: shown won by {match.winner}, logged {winner}")
        else:
            agree += 1
    check.counts = {
        "seen_finished": len(seen),
        "agree": agree,
        "finished_in_log": len(log.finished),
    }
    return check


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


def _face(copy: pb.OwnedCopy) -> tuple[str, bool, int]:
    """What a copy is, whoever owns it: its character, holo flag and holo side."""
    return copy.character.character_id, copy.holo, int(copy.holo_side)


def sold_as_transfer(sold: ev.ListingSold) -> ev.CopyTransferred:
    """An Auction House sale, as the move of its copy from the seller to the buyer."""
    return ev.CopyTransferred(
        trade_id=sold.listing_id,
        copy_id=sold.copy.copy_id,
        from_player_id=sold.seller_player_id,
        to_player_id=sold.buyer_player_id,
        copy=sold.copy,
    )


async def copies_conserved(conn: Any, schema: str) -> Check:
    """Copies come only from grants and boosters; trades and Auction House sales move
    them, nothing else: each keeps its character and holo side (RULES.md 13, 15: a
    transfer with its holo bonus)."""
    check = Check("card copies equal grants plus booster cards")
    owners: dict[str, str] = {}
    made: dict[str, tuple[str, bool, int]] = {}
    granted = drawn = moved = sold = 0
    rows = await conn.fetch(
        f"SELECT type, data FROM {_t(schema, 'events')} WHERE type = ANY($1::text[]) "
        "ORDER BY tx_id, seq",
        [
            "triad.v1.CopyGranted",
            "triad.v1.BoosterOpened",
            "triad.v1.CopyTransferred",
            "triad.v1.ListingSold",
        ],
    )
    for row in rows:
        if row["type"] == "triad.v1.CopyGranted":
            copies: Iterable[pb.OwnedCopy] = [ev.CopyGranted.FromString(row["data"]).copy]
            granted += 1
        elif row["type"] == "triad.v1.BoosterOpened":
            copies = ev.BoosterOpened.FromString(row["data"]).draw.copies
            drawn += len(copies)
        else:
            if row["type"] == "triad.v1.ListingSold":  # an Auction House sale moves it too
                transfer = sold_as_transfer(ev.ListingSold.FromString(row["data"]))
                sold += 1
            else:
                transfer = ev.CopyTransferred.FromString(row["data"])
                moved += 1
            if owners.get(transfer.copy_id) != transfer.from_player_id:
                check.problem(
                    f"copy {transfer.copy_id} moved from {transfer.from_player_id}, "
                    f"owned by {owners.get(transfer.copy_id)}"
                )
            owners[transfer.copy_id] = transfer.to_player_id
            now = transfer.copy
            if (now.copy_id, now.owner_player_id) != (transfer.copy_id, transfer.to_player_id) or (
                _face(now) != made.get(transfer.copy_id)
            ):
                check.problem(
                    f"copy {transfer.copy_id} moved as {_face(now)} of {now.owner_player_id}, "
                    f"made {made.get(transfer.copy_id)}"
                )
            continue
        for copy in copies:
            if copy.copy_id in owners:
                check.problem(f"copy {copy.copy_id} came into existence twice")
            owners[copy.copy_id] = copy.owner_player_id
            made[copy.copy_id] = _face(copy)
    rows = await conn.fetch(
        f"SELECT copy_id, owner_id, character_id, holo FROM {_t(schema, 'copies')}"
    )
    table = {r["copy_id"]: r["owner_id"] for r in rows}
    for r in rows:
        face = made.get(r["copy_id"])
        if face is not None and (r["character_id"], r["holo"]) != face[:2]:
            check.problem(
                f"copy {r['copy_id']} is {r['character_id']} holo {r['holo']}, made {face}"
            )
    for copy_id in table.keys() - owners.keys():
        check.problem(f"copy {copy_id} is in the table but was never granted nor drawn")
    for copy_id in owners.keys() - table.keys():
        check.problem(f"copy {copy_id} was granted or drawn but is not in the table")
    for copy_id in table.keys() & owners.keys():
        if table[copy_id] != owners[copy_id]:
            check.problem(
                f"copy {copy_id} belongs to {table[copy_id]}, the log says {owners[copy_id]}"
            )
    check.counts = {
        "copies": len(table),
        "granted": granted,
        "booster_cards": drawn,
        "grants_plus_boosters": granted + drawn,
        "transfers": moved,
        "auction_sales": sold,
    }
    if len(table) != granted + drawn:
        check.problem(f"{len(table)} copies, {granted} granted + {drawn} from boosters")
    return check


async def stuck(conn: Any, layout: Layout) -> dict[str, int]:
    """What should be empty once the load has drained: any count above 0 is stuck."""
    m, mm, c = layout.match, layout.matchmaker, layout.collection
    queries = {
        "matches_running": f"SELECT count(*) FROM {_t(m, 'match_timers')}",
        "players_in_a_match": f"SELECT count(*) FROM {_t(m, 'active_matches')}",
        "matches_never_finished": (
            f"SELECT count(DISTINCT stream_id) FROM {_t(m, 'events')} e "
            "WHERE e.type = 'triad.v1.MatchCreated' AND NOT EXISTS (SELECT 1 FROM "
            f"{_t(m, 'events')} f WHERE f.stream_id = e.stream_id "
            "AND f.type = 'triad.v1.MatchFinished')"
        ),
        "tickets_waiting": (
            f"SELECT count(*) FROM {_t(mm, 'tickets')} WHERE state IN ('queued', 'claimed')"
        ),
        "players_engaged": f"SELECT count(*) FROM {_t(mm, 'engaged_players')}",
        "match_starts_pending": (
            f"SELECT count(*) FROM {_t(mm, 'match_starts')} WHERE state = 'pending'"
        ),
        "tables_open": (
            f"SELECT count(*) FROM {_t(mm, 'lobby_tables')} WHERE state IN ('open', 'joining')"
        ),
        # An open Auction House listing holds its copy for up to 48 hours by design.
        "copies_locked": f"SELECT count(*) FROM {_t(c, 'locks')} WHERE holder_kind <> 'listing'",
        "trades_open": f"SELECT count(*) FROM {_t(c, 'trades')} WHERE completed_at IS NULL",
        "drafts_open": f"SELECT count(*) FROM {_t(c, 'drafts')} WHERE open",
        "battles_in_progress": f"SELECT count(*) FROM {_t(layout.battle, 'open_battles')}",
    }
    return {name: int(await conn.fetchval(sql)) for name, sql in queries.items()}


def nobody_stuck(counts: Mapping[str, int]) -> Check:
    check = Check("no player left in a match or a queue")
    check.counts = dict(counts)
    for name, value in counts.items():
        if value:
            check.problem(f"{value} {name.replace('_', ' ')}")
    return check


async def relay_backlog(
    conn: Any, layout: Layout, before: datetime | None = None
) -> dict[str, int]:
    """Per relay: events committed (before ``before``, if given) not yet published."""
    backlog = {}
    for name, schema in layout.relays.items():
        backlog[name] = int(
            await conn.fetchval(
                f"SELECT count(*) FROM {_t(schema, 'events')} e "
                f"LEFT JOIN {_t(schema, 'relay_checkpoints')} c ON c.name = $1 "
                "WHERE (c.name IS NULL OR (e.tx_id, e.seq) > (c.tx_id, c.seq)) "
                "AND ($2::timestamptz IS NULL OR e.recorded_at < $2)",
                name,
                before,
            )
        )
    return backlog


async def unmarked(conn: Any, layout: Layout, before: datetime | None = None) -> dict[str, int]:
    """Per durable consumer: events of its type (before ``before``) without its mark."""
    missing = {}
    for durable, (schema, event_type) in layout.consumers.items():
        total = 0
        for source in {layout.match, layout.matchmaker, layout.collection}:
            total += int(
                await conn.fetchval(
                    f"SELECT count(*) FROM {_t(source, 'events')} e WHERE e.type = $1 "
                    "AND ($3::timestamptz IS NULL OR e.recorded_at < $3) AND NOT EXISTS ("
                    f"SELECT 1 FROM {_t(schema, 'processed_events')} p "
                    "WHERE p.consumer = $2 AND p.event_id = e.event_id)",
                    event_type,
                    durable,
                    before,
                )
            )
        missing[durable] = total
    return missing


async def jetstream_state(js: Any, layout: Layout) -> dict[str, Any]:
    """The stream's message count and each durable consumer's pending counts."""
    info = await js.stream_info(layout.stream)
    consumers = {}
    for durable in layout.consumers:
        ci = await js.consumer_info(layout.stream, durable)
        consumers[durable] = {
            "pending": int(ci.num_pending or 0),
            "ack_pending": int(ci.num_ack_pending or 0),
            "redelivered": int(ci.num_redelivered or 0),
        }
    return {"messages": int(info.state.messages), "consumers": consumers}


async def caught_up(conn: Any, js: Any, layout: Layout) -> Check:
    """The whole pipeline idle: nothing to publish, nothing pending, every mark written."""
    check = Check("every consumer caught up")
    backlog = await relay_backlog(conn, layout)
    missing = await unmarked(conn, layout)
    state = await jetstream_state(js, layout)
    events = 0
    for schema in set(layout.relays.values()):
        events += int(await conn.fetchval(f"SELECT count(*) FROM {_t(schema, 'events')}"))
    for name, behind in backlog.items():
        if behind:
            check.problem(f"relay {name}: {behind} events not published")
    for durable, count in missing.items():
        if count:
            check.problem(f"consumer {durable}: {count} events without a processed mark")
    for durable, pending in state["consumers"].items():
        if pending["pending"] or pending["ack_pending"]:
            check.problem(f"consumer {durable}: {json.dumps(pending)}")
    if state["messages"] < events:
        check.problem(f"the stream holds {state['messages']} messages for {events} events")
    check.counts = {
        "events_logged": events,
        "stream_messages": state["messages"],
        **{f"relay_{k}_unpublished": v for k, v in backlog.items()},
        **{f"consumer_{k}_unmarked": v for k, v in missing.items()},
        **{
            f"consumer_{k}_{field}": v
            for k, pending in state["consumers"].items()
            for field, v in pending.items()
        },
    }
    return check
