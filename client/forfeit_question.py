"""``q`` on the match screen asks before it forfeits, and on the battle screen before it
gives up (found from outside: one ``q`` and Enter forfeited at once, a match lost to a
key slipped; the browser asks with a confirm button). The question is the screen's
note, and is pending exactly while the note says it: ``q`` (or ``y``) then forfeits
(gives up), ``n`` keeps playing, anything else is taken as typed (a move is played)
and drops the question. A notice that takes the note's place drops it too, so nothing
forfeits that the screen no longer asks about (on the battle screen, nor once the turn
the question was asked at has resolved).

Ctrl-C stays as it was: it never forfeits. It leaves the screen and says that the match
goes on without the player and how to take it back (``leaving.going_on``); a player who
left by mistake has ``triad-client play``, a match lost has no way back."""

from __future__ import annotations

import uuid
from enum import Enum

from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import Caller
from client.session import Followed

ASK_KEY = "q"
QUESTION = "Forfeit this match? q or y confirms; anything else plays on."
CONFIRMS = ("q", "y", "yes")
DECLINES = ("n", "no")
KEPT = "The match goes on."


GIVE_UP_QUESTION = "Give up this battle? q or y confirms; anything else plays on."
BATTLE_KEPT = "The battle goes on."


class Step(Enum):
    """What a line typed on a screen that can ask the question does."""

    ASK = "ask"
    CONFIRM = "confirm"
    DECLINE = "decline"
    TYPED = "typed"
    """The line is the player's move; the question, if asked, is dropped."""


def step(asked: bool, line: str) -> Step:
    """``q`` asks the question; ``q`` or ``y`` under it confirms, ``n`` declines it."""
    answer = line.strip().lower()
    if asked and answer in CONFIRMS:
        return Step.CONFIRM
    if answer == ASK_KEY:
        return Step.ASK
    if asked and answer in DECLINES:
        return Step.DECLINE
    return Step.TYPED


async def forfeit_or_ask(client: Caller, told: Followed, view: pb.MatchView, line: str) -> bool:
    """Whether ``line``, typed at the match in progress, was the question's (:func:`step`).
    False: the line is the player's move to make (the question, if asked, dropped)."""
    taken = step(told.note == QUESTION, line)
    if taken is Step.CONFIRM:
        reply = await client.call(
            client.stub.Forfeit,
            g.ForfeitRequest(request_id=uuid.uuid4().hex, match_id=view.match_id),
        )
        told.show(reply.view)
    told.note = {Step.ASK: QUESTION, Step.DECLINE: KEPT}.get(taken, "")
    return taken is not Step.TYPED
