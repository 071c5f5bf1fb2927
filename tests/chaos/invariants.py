"""What must hold after any amount of load and faults, read from the logs and tables.

Each check reads one service's schema (the services never read each other's; a check
may join what it read from several) and returns a ``Check``: its counts, whether it
holds, and the first few problems found. The checks decode the events themselves from
the protobuf payloads, so they trust the log, not the service code under test.

- ``placements_logged``: every placement a client was told succeeded is a CardPlaced in
  the match's event log, with the client's request id, seat, card and cell.
- ``results_agree``: every match a client saw finished is finished in the log, with the
  winner the client was shown.
- ``matches_settled`` (tests/chaos/settlement.py): every finished match with Trade One
  has exactly one copy transfer (Direct: each deck's copies on the other's final board;
  Difference: d of the loser's deck, opened for d and moving the d distinct copies
  chosen in one call or drawn at the deadline; All: the loser's deck; RULES.md 13),
  each copy once, every rated one exactly one rating change per player, and nothing
  else has either.
- ``copies_conserved`` (tests/chaos/copies.py): the copies in the table are exactly
  those granted or drawn from boosters, each owned by whoever the log says owns it
  after its transfers, each still the character and holo it was made with.
- ``nobody_stuck`` (tests/chaos/drained.py): no match running, no player seated, queued
  or hosting a table, no lock or trade open.
- ``caught_up`` (tests/chaos/drained.py): every relay has published the whole log,
  every durable consumer has nothing pending, and every event a consumer is for
  carries its processed mark.

This module holds what the checks share (``Check``, ``Layout``, the decoded
``MatchLog``) and the checks of the match log itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

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
