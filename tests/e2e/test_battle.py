"""Skirmish end to end (issue 23): every service a process on real PostgreSQL and NATS,
the tests speaking only the public API over TLS.

A player starts a practice battle against the CPU, places a formation, and plays turns
from their own view while the session stream shows each new view; the opponent's hand
never appears. A player who leaves (their session stream ends) is taken over by the
CPU after the disconnect grace, the battle goes on to its end and they lose; the battle
service restarted reads the same final view back from the log.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides, Stack
from devtools.terminal import Terminal
from tests.e2e.client_runs import client_of
from tests.e2e.races.race_players import attend
from tests.e2e.sessions import Player, Session, join

pytestmark = pytest.mark.integration
GRACE = 1.5
"""The battle service's disconnect grace here (30 s by default)."""


STACK_OVERRIDES: Overrides = {
    "battle": {
        "TRIAD_BATTLE_DISCONNECT_SECONDS": str(GRACE),
        "TRIAD_TIMER_POLL_SECONDS": "0.2",
    }
}
"""This module's settings for its backend (tests/e2e/conftest.py)."""


def simple_plan(view: pb.BattleView) -> list[pb.BattleAction]:
    """The affordable cards that need no target (all, allies, self; a summon needs its
    square), in hand order: a plan legal whatever the fields look like."""
    energy, actions = view.you.energy, []
    for card in view.you.hand:
        untargeted = card.range in ("all", "allies", "self")
        if untargeted and not card.cooling and card.cost <= energy:
            energy -= card.cost
            actions.append(pb.BattleAction(character=card.owner, card=card.id))
    return actions


async def commit(player: Player, view: pb.BattleView) -> pb.BattleView:
    reply = await player.call(
        "CommitPlan",
        g.CommitPlanRequest(
            request_id=uuid4().hex,
            battle_id=view.battle_id,
            turn=view.turn,
            actions=simple_plan(view),
        ),
    )
    return reply.view  # type: ignore[no-any-return]


async def after_restart(player: Player, battle_id: str) -> pb.BattleView:
    """The view once the gateway's channel reaches the restarted service again."""
    deadline = time.monotonic() + 15
    while True:
        try:
            reply = await player.call("GetBattleView", g.GetBattleViewRequest(battle_id=battle_id))
            return reply.view  # type: ignore[no-any-return]
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


async def test_a_practice_battle_is_played_to_its_end_through_the_gateway(api: Any) -> None:
    ann = await join(api)
    session = await Session.open(ann)
    try:
        started = await ann.call(
            "StartPracticeBattle",
            g.StartPracticeBattleRequest(
                request_id=uuid4().hex, characters=["ember", "bastion", "wisp"]
            ),
        )
        view = started.view
        assert view.status == pb.BATTLE_STATUS_FORMATION and view.opponent.cpu
        assert [u.ref for u in view.you.units] == ["ember", "bastion", "wisp"]
        active = await ann.call("GetActiveBattle", g.GetActiveBattleRequest())
        assert active.battle_id == view.battle_id
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await ann.call(
                "SetFormation",
                g.SetFormationRequest(
                    request_id=uuid4().hex,
                    battle_id=view.battle_id,
                    squares=[pb.BattleSquare(row=0, col=0)] * 3,
                ),
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "3 different squares" in (refused.value.details() or "")
        placed = await ann.call(
            "SetFormation",
            g.SetFormationRequest(
                request_id=uuid4().hex,
                battle_id=view.battle_id,
                squares=[
                    pb.BattleSquare(row=0, col=0),
                    pb.BattleSquare(row=1, col=0),
                    pb.BattleSquare(row=1, col=1),
                ],
            ),
        )
        view = placed.view
        assert view.status == pb.BATTLE_STATUS_SELECTION and view.turn == 1
        assert view.opponent.committed, "the CPU commits as the turn opens"
        assert not view.opponent.hand and view.opponent.hand_size == 5
        turns = 0
        while view.status != pb.BATTLE_STATUS_FINISHED:
            view = await commit(ann, view)
            turns += 1
            assert view.log, "each resolved turn shows its actions"
            assert not view.opponent.hand
        assert turns <= 10 and view.outcome.reason in ("wipeout", "decision")
        pushed = await session.wait_for(
            lambda p: p.HasField("battle") and p.battle.version == view.version
        )
        assert pushed.battle.outcome == view.outcome
        assert not any(p.battle.opponent.hand for p in session.pushes if p.HasField("battle"))
        after = await ann.call("GetActiveBattle", g.GetActiveBattleRequest())
        assert after.battle_id == ""
    finally:
        await session.close()


async def test_a_player_who_leaves_is_taken_over_by_the_cpu_loses_and_a_restart_replays_it(
    backend: Stack, api: Any
) -> None:
    bea = await join(api)
    session = await Session.open(bea)
    started = await bea.call(
        "StartPracticeBattle",
        g.StartPracticeBattleRequest(request_id=uuid4().hex, bot_level=pb.BATTLE_BOT_LEVEL_RANDOM),
    )
    battle_id = started.view.battle_id
    await session.wait_for(lambda p: p.HasField("battle") and p.battle.battle_id == battle_id)
    await session.close()  # the stream ends: the grace starts
    deadline = time.monotonic() + 30
    while True:
        view = (await bea.call("GetBattleView", g.GetBattleViewRequest(battle_id=battle_id))).view
        if view.status == pb.BATTLE_STATUS_FINISHED or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.3)
    assert view.status == pb.BATTLE_STATUS_FINISHED, "the CPU played the seat to the end"
    assert view.you.cpu
    assert (view.outcome.winner_seat, view.outcome.reason) == (1, "disconnect")
    with pytest.raises(grpc.aio.AioRpcError) as over:
        await bea.call(
            "CommitPlan",
            g.CommitPlanRequest(request_id=uuid4().hex, battle_id=battle_id, turn=view.turn),
        )
    assert over.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    backend.backend.restart("battle")
    again = await after_restart(bea, battle_id)
    assert again == view


async def test_characters_are_asked_for_and_plans_refused_in_the_names_on_the_screen(
    api: Any,
) -> None:
    """Found from outside: --characters took only roster ids (volt, not the Kira on the
    screen), and a refused plan named "player 0, action 0 (volt.jolt)"."""
    eve = await join(api)
    started = await eve.call(
        "StartPracticeBattle",
        g.StartPracticeBattleRequest(request_id=uuid4().hex, characters=["Kira", "tor", "wisp"]),
    )
    view = started.view
    assert [u.ref for u in view.you.units] == ["volt", "bastion", "wisp"]
    placed = await eve.call(
        "SetFormation",
        g.SetFormationRequest(
            request_id=uuid4().hex,
            battle_id=view.battle_id,
            squares=[pb.BattleSquare(row=r, col=0) for r in range(3)],
        ),
    )
    # The first card of the hand with the wrong kind of target: none for a card that
    # takes one, a square for one that takes none (a hand may hold no aimed card).
    aimed = placed.view.you.hand[0]
    untargeted = aimed.range in ("self", "allies", "all")
    target = pb.BattleTarget(row=0, col=0) if untargeted else None
    owner = next(u.name for u in placed.view.you.units if u.ref == aimed.owner)
    wrong = g.CommitPlanRequest(
        request_id=uuid4().hex,
        battle_id=view.battle_id,
        turn=placed.view.turn,
        actions=[pb.BattleAction(character=aimed.owner, card=aimed.id, target=target)],
    )
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await eve.call("CommitPlan", wrong)
    assert (refused.value.details() or "").startswith(f"your action 1 ({owner}: {aimed.name}): ")


async def test_a_team_outside_the_roster_is_an_invalid_argument(api: Any) -> None:
    """Found from outside: characters the roster does not have, or not three different
    ones, were FAILED_PRECONDITION (gateway.proto: INVALID_ARGUMENT, level, characters):
    the battle service's refusal passed through the matchmaker as a refused state."""
    fay = await join(api)
    for team, said in ((["ember", "wisp", "nobody"], "unknown characters"), (["ember"], "three")):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await fay.call(
                "StartPracticeBattle",
                g.StartPracticeBattleRequest(request_id=uuid4().hex, characters=team),
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, refused.value
        assert said in (refused.value.details() or ""), refused.value.details()
    active = await fay.call("GetActiveBattle", g.GetActiveBattleRequest())
    assert not active.battle_id, "nothing started"


async def test_active_names_the_battle_in_progress(api: Any, backend: Any, tmp_path: Path) -> None:
    """Found from outside: triad-client active answered "No active match." during a
    battle, which keeps the player from every other game."""
    gus = await join(api)
    await attend(gus)  # in the battle all along: never taken over and played out meanwhile
    started = await gus.call(
        "StartPracticeBattle", g.StartPracticeBattleRequest(request_id=uuid4().hex)
    )
    argv = client_of(backend, gus, tmp_path)
    ran = await asyncio.to_thread(
        subprocess.run, [*argv, "active"], check=True, capture_output=True, text=True, timeout=60
    )
    said = ran.stdout
    assert started.view.battle_id[:8] in said and "triad-client battle" in said, said


async def test_a_stranger_cannot_see_a_battle(api: Any) -> None:
    cid, dan = await join(api), await join(api)
    started = await cid.call(
        "StartPracticeBattle", g.StartPracticeBattleRequest(request_id=uuid4().hex)
    )
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await dan.call("GetBattleView", g.GetBattleViewRequest(battle_id=started.view.battle_id))
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND


async def paired_battle(first: Player, second: Player) -> str:
    """Both queue for a battle (no deck) and are paired: the battle's id."""
    for player in (first, second):
        await player.call("Enqueue", g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_BATTLE))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        found = [
            (await p.call("GetActiveBattle", g.GetActiveBattleRequest())).battle_id
            for p in (first, second)
        ]
        if found[0] and found[0] == found[1]:
            return found[0]
        await asyncio.sleep(0.2)
    raise AssertionError("the two players were not paired into a battle")


async def test_two_players_battle_through_the_gateway_and_the_cpu_takes_over_one_who_leaves(
    api: Any,
) -> None:
    ann, bea = await join(api), await join(api)
    sessions = [await Session.open(ann), await Session.open(bea)]
    try:
        battle_id = await paired_battle(ann, bea)
        for player, row in ((ann, 0), (bea, 2)):
            await player.call(
                "SetFormation",
                g.SetFormationRequest(
                    request_id=uuid4().hex,
                    battle_id=battle_id,
                    squares=[pb.BattleSquare(row=r, col=0) for r in (row, 1, 2 - row)],
                ),
            )
        views = {
            p.id: (await p.call("GetBattleView", g.GetBattleViewRequest(battle_id=battle_id))).view
            for p in (ann, bea)
        }
        assert {v.status for v in views.values()} == {pb.BATTLE_STATUS_SELECTION}
        assert {v.seat for v in views.values()} == {0, 1}
        # Two turns by both players: a commit stays hidden until the other's.
        for _ in range(2):
            mine = await commit(ann, views[ann.id])
            assert mine.turn == views[ann.id].turn and not mine.opponent.committed
            theirs = await p_view(bea, battle_id)
            assert theirs.opponent.committed and not theirs.plan and not theirs.opponent.hand
            views[bea.id] = await commit(bea, theirs)
            views[ann.id] = await p_view(ann, battle_id)
            assert views[ann.id].turn == mine.turn + 1 or views[ann.id].outcome.reason
            assert views[ann.id].log == views[bea.id].log, "both see the same actions"
        # Bea leaves; ann plays on and the CPU takes bea's seat after the grace.
        await sessions[1].close()
        view = views[ann.id]
        deadline = time.monotonic() + 60
        while view.status != pb.BATTLE_STATUS_FINISHED and time.monotonic() < deadline:
            if not view.you.committed:
                view = await commit(ann, view)
            else:
                await asyncio.sleep(0.2)
                view = await p_view(ann, battle_id)
        assert view.status == pb.BATTLE_STATUS_FINISHED
        assert view.opponent.cpu and not view.you.cpu
        assert (view.outcome.reason, view.outcome.winner_player_id) == ("disconnect", ann.id)
        pushed = await sessions[0].wait_for(
            lambda p: p.HasField("battle") and p.battle.status == pb.BATTLE_STATUS_FINISHED
        )
        assert pushed.battle.outcome == view.outcome
    finally:
        for session in sessions:
            await session.close()


async def p_view(player: Player, battle_id: str) -> pb.BattleView:
    reply = await player.call("GetBattleView", g.GetBattleViewRequest(battle_id=battle_id))
    return reply.view  # type: ignore[no-any-return]


async def test_triad_client_battle_plays_a_practice_battle_on_an_80x24_terminal(
    backend: Stack, api: Any, tmp_path: Path
) -> None:
    """The client on a real (pseudo-)terminal: the formation prompt, then each turn's
    screen (both fields, Energy, the hand) and the plan prompt; a wrong card number is
    refused on the screen, a pass is typed as Enter, and the battle ends with its result."""
    argv = client_of(backend, await join(api), tmp_path)
    terminal = Terminal([*argv, "battle", "--level", "random"], {})
    code = None
    try:
        shown = await terminal.until(lambda s: "squares r c for" in s, "the formation prompt")
        assert "Skirmish  turn 1/10  formation" in shown, shown
        terminal.type("\r")
        shown = await terminal.until(lambda s: "plan (card" in s, "the plan prompt")
        assert "col 0" in shown and "Energy 5" in shown, shown
        terminal.type("9\r")
        shown = await terminal.until(lambda s: "numbered 0..4" in s, "the refusal")
        turns = 0
        while "You won" not in shown and "You lost" not in shown:
            terminal.type("\r")
            turns += 1
            assert turns <= 12, shown
            want = f"turn {turns + 1}/10"
            shown = await terminal.until(
                lambda s, want=want: (
                    "You won" in s or "You lost" in s or (want in s and "plan (card" in s)
                ),
                want,
            )
        assert "You lost" in shown or "You won" in shown
        await asyncio.to_thread(terminal.process.wait, 15)  # the client ends by itself
        code = terminal.close()
    finally:
        if code is None:
            terminal.close()
    assert code == 0


async def test_a_custom_battle_is_a_challenge_at_a_lobby_table(api: Any) -> None:
    """BATTLE.md 6: a battle table in the lobby, here a challenge to one player; joining
    it starts a battle (no deck on either side), and Triad's Find Game never lands there."""
    ann, bea, cid = await join(api), await join(api), await join(api)
    made = await ann.call(
        "CreateTable",
        g.CreateTableRequest(
            request_id=uuid4().hex,
            settings=pb.TableSettings(battle=True),
            challenged_player_name=bea.name,
        ),
    )
    assert made.table.settings.battle
    with pytest.raises(grpc.aio.AioRpcError) as none:
        await cid.call("FindGame", g.FindGameRequest(request_id=uuid4().hex))
    assert none.value.code() == grpc.StatusCode.NOT_FOUND
    joined = await bea.call(
        "JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=made.table.table_id)
    )
    assert joined.match_id and not joined.HasField("view")
    for player in (ann, bea):
        active = await player.call("GetActiveBattle", g.GetActiveBattleRequest())
        assert active.battle_id == joined.match_id
    view = await p_view(bea, joined.match_id)
    assert view.status == pb.BATTLE_STATUS_FORMATION and view.opponent.name == ann.name
