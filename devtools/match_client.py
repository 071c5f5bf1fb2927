"""A test client of the match service that records every message each player receives."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any

from triad.v1 import common_pb2 as pb
from triad.v1 import match_pb2 as m
from triad.v1 import match_pb2_grpc


def character(i: int, stars: int = 1) -> pb.Character:
    return pb.Character(
        character_id=f"chr-{i}",
        name=f"Character {i}",
        stars=stars,
        sides=pb.Sides(
            top=1 + i % 9, right=1 + (i * 3) % 9, bottom=1 + (i * 5) % 9, left=1 + (i * 7) % 9
        ),
    )


def deck(tag: str, offset: int) -> list[pb.Card]:
    cards = []
    for i in range(5):
        ch = character(offset + i)
        cards.append(
            pb.Card(
                card_id=f"{tag}-{i}-{uuid.uuid4().hex[:8]}",
                origin=pb.CARD_ORIGIN_OWNED_COPY,
                character=ch,
                printed_sides=ch.sides,
            )
        )
    return cards


def create_request(
    match_id: str, visibility: int, players: tuple[str, str], bot_b: bool = False
) -> m.MatchServiceCreateMatchRequest:
    closed = visibility == pb.VISIBILITY_CLOSED
    return m.MatchServiceCreateMatchRequest(
        request_id=f"create-{match_id}",
        match_id=match_id,
        mode=pb.MODE_RANKED if closed and not bot_b else pb.MODE_UNRANKED,
        rules=pb.Rules(
            visibility=visibility,  # type: ignore[arg-type]
            same=True,
            plus=True,
            combo=True,
            trade_rule=pb.TRADE_RULE_ONE if closed and not bot_b else pb.TRADE_RULE_NONE,
        ),
        ladder=pb.LadderKey(ladder=pb.LADDER_RANKED) if closed and not bot_b else None,
        seats=[
            m.SeatSetup(
                player=pb.SeatPlayer(seat=pb.SEAT_A, player_id=players[0], player_name=players[0]),
                deck=deck(f"{match_id}-a", 0),
            ),
            m.SeatSetup(
                player=pb.SeatPlayer(
                    seat=pb.SEAT_B,
                    player_id=players[1],
                    player_name=("[BOT] " if bot_b else "") + players[1],
                    is_bot=bot_b,
                    bot_level=pb.BOT_LEVEL_NOVICE if bot_b else pb.BOT_LEVEL_UNSPECIFIED,
                ),
                deck=deck(f"{match_id}-b", 20),
            ),
        ],
    )


@dataclass
class Recorder:
    """Every MatchView one player received, from any RPC or stream."""

    player: str
    views: list[pb.MatchView] = field(default_factory=list)

    def take(self, view: pb.MatchView) -> pb.MatchView:
        self.views.append(view)
        return view


async def stream_into(stub: Any, match_id: str, recorder: Recorder) -> None:
    call = stub.StreamView(
        m.MatchServiceStreamViewRequest(match_id=match_id, player_id=recorder.player)
    )
    async for reply in call:
        recorder.take(reply.view)


def choose(view: pb.MatchView) -> tuple[str, int]:
    empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
    return view.my_hand[0].card.card_id, empty[0]


async def play_to_the_end(
    stub: match_pb2_grpc.MatchServiceAsyncStub, match_id: str, recorders: dict[str, Recorder]
) -> pb.MatchView:
    """Each player looks at their own view and places when it is their turn."""
    while True:
        for player, recorder in recorders.items():
            view = recorder.take(
                (
                    await stub.GetView(
                        m.MatchServiceGetViewRequest(match_id=match_id, player_id=player)
                    )
                ).view
            )
            if view.status == pb.MATCH_STATUS_FINISHED:
                return view
            if view.turn_seat != view.my_seat:
                continue
            card, cell = choose(view)
            reply = await stub.PlaceCard(
                m.MatchServicePlaceCardRequest(
                    request_id=f"{player}-{view.version}",
                    match_id=match_id,
                    player_id=player,
                    card_id=card,
                    cell=cell,
                )
            )
            recorder.take(reply.view)
        await asyncio.sleep(0)
