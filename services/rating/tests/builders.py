"""Finished matches for the rating tests: domain games, MatchFinished payloads, envelopes."""

from __future__ import annotations

from dataclasses import dataclass
from random import Random
from uuid import NAMESPACE_URL, UUID, uuid5

from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.rating.domain import DRAW, LOSS, WIN, Contestant, FinishedGame, Ladder, LadderKey

RANKED = LadderKey(Ladder.RANKED, 0)
DRAFT = LadderKey(Ladder.DRAFT, 0)
SEATS = {WIN: pb.SEAT_A, LOSS: pb.SEAT_B}


def human(player_id: str) -> Contestant:
    return Contestant(player_id, f"name-{player_id}")


def bot(player_id: str) -> Contestant:
    return Contestant(player_id, f"[BOT] {player_id}", is_bot=True)


def game(
    match_id: str,
    a: str | Contestant,
    b: str | Contestant,
    score_a: float | None = WIN,
    key: LadderKey | None = RANKED,
    rated: bool = True,
) -> FinishedGame:
    seat_a = human(a) if isinstance(a, str) else a
    seat_b = human(b) if isinstance(b, str) else b
    return FinishedGame(match_id, rated, (seat_a, seat_b), score_a, key)


def event_id(match_id: str) -> UUID:
    """The event id the match service would give the match's MatchFinished (stable)."""
    return uuid5(NAMESPACE_URL, f"match-finished:{match_id}")


@dataclass(frozen=True, slots=True)
class Delivery:
    """One delivery of a finished match's event: the game and the event id it came under."""

    game: FinishedGame
    event_id: UUID


def random_games(
    rng: Random, count: int, players: int, keys: tuple[LadderKey, ...] = (RANKED,)
) -> list[FinishedGame]:
    """Rated games between random pairs of a small pool (so everyone plays a lot and
    crosses the 20-game line), with wins, losses and draws."""
    games = []
    for n in range(count):
        a, b = rng.sample(range(players), 2)
        score = rng.choice((WIN, WIN, LOSS, LOSS, DRAW))
        games.append(game(f"m{n}", f"p{a}", f"p{b}", score, rng.choice(keys)))
    return games


def messy(rng: Random, games: list[FinishedGame], duplicates: float = 0.5) -> list[Delivery]:
    """Each game's event in order, plus repeats of events already delivered (duplicates,
    redeliveries after a lost ack) dropped in anywhere later."""
    deliveries: list[Delivery] = []
    for g in games:
        deliveries.append(Delivery(g, event_id(g.match_id)))
        while deliveries and rng.random() < duplicates:
            deliveries.insert(
                rng.randint(len(deliveries) - 1, len(deliveries)), rng.choice(deliveries)
            )
    return deliveries


def match_finished(g: FinishedGame, *, mode: int = pb.MODE_RANKED) -> ev.MatchFinished:
    """The MatchFinished the match service would publish for ``g``."""
    outcome = pb.MatchOutcome(reason=pb.FINISH_REASON_BOARD_FULL)
    if g.score_a == DRAW:
        outcome.draw.SetInParent()
    elif g.score_a is not None:
        outcome.winner_seat = SEATS[g.score_a]
    message = ev.MatchFinished(
        match_id=g.match_id,
        mode=mode,  # type: ignore[arg-type]
        rated=g.rated,
        seats=[
            ev.FinishedSeat(
                player=pb.SeatPlayer(
                    seat=seat, player_id=c.player_id, player_name=c.name, is_bot=c.is_bot
                )
            )
            for seat, c in zip((pb.SEAT_A, pb.SEAT_B), g.seats, strict=True)
        ],
        outcome=outcome,
    )
    if g.ladder is not None:
        ladder = pb.LADDER_RANKED if g.ladder.ladder is Ladder.RANKED else pb.LADDER_DRAFT
        message.ladder.CopyFrom(pb.LadderKey(ladder=ladder, season=g.ladder.season))
    return message


def envelope(g: FinishedGame, eid: UUID | None = None) -> ev.EventEnvelope:
    return ev.EventEnvelope(
        event_id=str(eid or event_id(g.match_id)),
        stream_id=f"match-{g.match_id}",
        version=11,
        event_type="triad.v1.MatchFinished",
        schema_version=1,
        payload=match_finished(g).SerializeToString(),
    )
