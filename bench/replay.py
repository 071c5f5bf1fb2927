"""Replay speed of the match aggregate: events folded per second (issue 3: >= 200,000).

Two figures: folding domain events (the state rebuild itself, what the target is set
for), and decoding the stored protobuf payloads and folding them (what a cold load
from the event log costs). Histories are whole random matches, played before timing.
"""

from __future__ import annotations

import random

from bench.report import Options, Report, Target, Workload, baseline_workload, measure
from services.match import codec, domain
from services.match.domain.events import MatchCreated, MatchEvent
from services.match.tests.builders import T0, created, later
from services.rules import Visibility

NAME = "replay"
FOLD_TARGET = 200_000


def random_history(rng: random.Random, visibility: Visibility) -> list[MatchEvent]:
    events = created(visibility=visibility)
    match = domain.fold(events)
    assert match is not None
    while match.in_progress:
        seat = match.position.to_move
        index, cell = rng.choice(match.position.legal_moves())
        card_id = match.position.hand(seat)[index].id
        step = domain.place(match, match.player(seat).player_id, card_id, cell, later(1))
        events += step.events
        match = step.state
    return events


def run(options: Options) -> Report:
    rng = random.Random(options.seed)
    histories = [
        random_history(rng, list(Visibility)[i % 3]) for i in range(30 if options.quick else 300)
    ]
    stored = []
    for events in histories:
        first = events[0]
        assert isinstance(first, MatchCreated)
        cards = {c.card_id: c for seat in first.seats for c in seat.hand}
        payloads = [codec.encode(e, cards) for e in events]
        stored.append([(p.type, p.data) for p in payloads])
    count = sum(len(h) for h in histories)

    def fold(loops: int) -> int:
        for _ in range(loops):
            for events in histories:
                domain.fold(events)
        return loops * count

    def decode_and_fold(loops: int) -> int:
        for _ in range(loops):
            for rows in stored:
                state: domain.Match | None = None
                for name, data in rows:
                    setup = state.setup if state is not None else None
                    state = domain.evolve(state, codec.decode(name, 1, data, T0, setup))
        return loops * count

    measurements = measure(
        [
            baseline_workload(),
            Workload("fold", "events/s", "domain.fold over whole recorded matches", fold),
            Workload(
                "decode_and_fold",
                "events/s",
                "protobuf payload bytes -> domain events -> fold (a cold load from the log)",
                decode_and_fold,
            ),
        ],
        options.repeats,
        options.seconds,
    )
    return Report(
        benchmark=NAME,
        parameters={"matches": len(histories), "events": count, "visibilities": "all three"},
        measurements=measurements,
        targets=[Target("fold", FOLD_TARGET, "events/s", "issue 3: >= 200,000 events folded/s")],
        notes=[
            "Histories are whole random 3x3 matches (creation, nine placements, finish).",
            "decode_and_fold adds protobuf parsing and the domain mapping of every event.",
        ],
    )
