"""SetPlan end to end (BATTLE.md 4.2: "a player who does not commit in 60 s acts with
the cards set so far"): two players paired in the Battle queue, one sets a plan and
never commits, the (short) selection deadline passes and the card acts; until then the
opponent's views and pushes carry nothing of it, nor any push for it at all."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides
from tests.e2e.sessions import Player, Session, join
from tests.e2e.test_battle import p_view, paired_battle

pytestmark = pytest.mark.integration
SELECTION = 3.0
"""The battle service's selection deadline here (60 s by default)."""


STACK_OVERRIDES: Overrides = {
    "battle": {
        "TRIAD_BATTLE_SELECTION_SECONDS": str(SELECTION),
        "TRIAD_TIMER_POLL_SECONDS": "0.2",
    }
}
"""This module's settings for its backend (tests/e2e/conftest.py)."""


def one_action(view: pb.BattleView) -> pb.BattleAction:
    """The cheapest card in hand with a target its range takes; both formations are in
    the front column, so no enemy unit is screened."""
    card = min(view.you.hand, key=lambda c: c.cost)
    enemy = view.opponent.units[0].square
    own = view.you.units[0].square
    target = {
        "single": pb.BattleTarget(row=enemy.row, col=enemy.col),
        "cross": pb.BattleTarget(row=enemy.row, col=enemy.col),
        "row": pb.BattleTarget(row=enemy.row),
        "column": pb.BattleTarget(col=enemy.col),
        "ally": pb.BattleTarget(row=own.row, col=own.col),
    }.get(card.range, pb.BattleTarget())
    if card.range == "square":  # a summon: a square of one's own field
        target = pb.BattleTarget(row=2, col=2)
    return pb.BattleAction(character=card.owner, card=card.id, target=target)


def shows(view: pb.BattleView, card: str) -> bool:
    """Whether the opponent's ``view`` carries the card anywhere a plan could show: its
    own plan set or committed (it is the viewer's only), the opponent's hand, the log."""
    cards = [a.card for a in (*view.plan, *view.set_actions)]
    cards += [c.id for c in view.opponent.hand]
    cards += [e.card for e in view.log if e.seat != view.seat]
    return card in cards


async def set_plan(player: Player, view: pb.BattleView, *actions: pb.BattleAction) -> Any:
    request = g.SetPlanRequest(
        request_id=uuid4().hex, battle_id=view.battle_id, turn=view.turn, actions=actions
    )
    return (await player.call("SetPlan", request)).view


async def test_a_plan_set_and_not_committed_acts_at_the_deadline_unseen_by_the_opponent(
    api: Any,
) -> None:
    ann, bea = await join(api), await join(api)
    sessions = {p.id: await Session.open(p) for p in (ann, bea)}
    try:
        battle_id = await paired_battle(ann, bea)
        for player in (ann, bea):
            await player.call(
                "SetFormation",
                g.SetFormationRequest(
                    request_id=uuid4().hex,
                    battle_id=battle_id,
                    squares=[pb.BattleSquare(row=r, col=0) for r in range(3)],
                ),
            )
        view = await p_view(ann, battle_id)
        assert view.status == pb.BATTLE_STATUS_SELECTION and view.turn == 1
        action = one_action(view)

        with pytest.raises(grpc.aio.AioRpcError) as refused:
            bad = pb.BattleAction(character=action.character, card="no-such-card")
            await set_plan(ann, view, bad)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "no-such-card" in (refused.value.details() or "")

        mine = await set_plan(ann, view, action)
        assert [a.card for a in mine.set_actions] == [action.card]
        assert not mine.plan and not mine.you.committed
        pushed = await sessions[ann.id].wait_for(
            lambda p: p.HasField("battle") and p.battle.version == mine.version
        )
        assert [a.card for a in pushed.battle.set_actions] == [action.card]
        theirs = await p_view(bea, battle_id)
        assert not theirs.opponent.committed and not theirs.set_actions and not theirs.plan
        assert not shows(theirs, action.card)

        # Nobody commits: the deadline resolves turn 1 with ann's plan set.
        resolved = await sessions[ann.id].wait_for(
            lambda p: p.HasField("battle") and p.battle.turn == 2
        )
        acted = [e for e in resolved.battle.log if e.step == "card" and e.seat == view.seat]
        assert [e.card for e in acted] == [action.card], resolved.battle.log
        assert not resolved.battle.set_actions, "a new turn starts with nothing set"

        before = [
            p.battle
            for p in sessions[bea.id].pushes
            if p.HasField("battle") and p.battle.battle_id == battle_id and p.battle.turn == 1
        ]
        assert before, "bea saw turn 1"
        assert mine.version not in {v.version for v in before}, "no push for ann's set"
        assert not any(shows(v, action.card) or v.set_actions for v in before)
        after = await sessions[bea.id].wait_for(
            lambda p: p.HasField("battle") and p.battle.turn == 2
        )
        assert shows(after.battle, action.card), "resolved: now shown"
    finally:
        for session in sessions.values():
            await session.close()
