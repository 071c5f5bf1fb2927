"""Skirmish players who leave, end to end through the TLS gateway (every service a
process on real PostgreSQL and NATS; BATTLE.md 5: "the disconnected player loses"): a
battle lost while away is told to the next session once, a player the CPU took over is
free at once, and when both players leave both lose. Each was found from outside."""

from __future__ import annotations

import asyncio
import time
from typing import Any
from uuid import uuid4

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides
from tests.e2e import test_battle
from tests.e2e.sessions import Player, Session, easy_practice, join
from tests.e2e.test_battle import p_view, paired_battle

pytestmark = pytest.mark.integration

STACK_OVERRIDES: Overrides = test_battle.STACK_OVERRIDES
"""This module's settings for its backend (tests/e2e/conftest.py): test_battle.py's."""


async def finished(player: Player, battle_id: str) -> pb.BattleView:
    """The battle's view once it is over (30 s at the most)."""
    deadline = time.monotonic() + 30
    view = await p_view(player, battle_id)
    while view.status != pb.BATTLE_STATUS_FINISHED and time.monotonic() < deadline:
        await asyncio.sleep(0.3)
        view = await p_view(player, battle_id)
    assert view.status == pb.BATTLE_STATUS_FINISHED, view
    return view


async def test_a_battle_lost_while_away_is_told_to_the_next_session_once(api: Any) -> None:
    """Found from outside: a player who closed the client mid-battle (the CPU took their
    seat over and the battle ended as their loss, BATTLE.md 5) was told nothing when they
    came back. Their next session opens with the battle's final view and a notice in
    words; the one after with neither."""
    jo = await join(api)
    first = await Session.open(jo)
    try:
        started = await jo.call(
            "StartPracticeBattle", g.StartPracticeBattleRequest(request_id=uuid4().hex)
        )
    finally:
        await first.close()  # she closes the client: 30 s (here GRACE) and the CPU plays
    battle_id = started.view.battle_id
    view = await finished(jo, battle_id)
    assert view.you.cpu
    again = await Session.open(jo)
    try:
        assert again.pushes[0].session_opened.missed_battle == view
        notice = (await again.wait_for(lambda p: p.HasField("notice"))).notice
    finally:
        await again.close()
    assert (notice.code, notice.subject_id) == ("BATTLE_ENDED_AWAY", battle_id)
    assert notice.message == (
        f"Your battle against {view.opponent.name} ended while you were away: you lost, "
        "the CPU played your side after you left."
    )
    third = await Session.open(jo)
    await third.close()
    assert not third.pushes[0].session_opened.HasField("missed_battle"), "told once"


async def test_a_player_the_cpu_took_over_is_free_to_play_on_at_once(api: Any) -> None:
    """Found from outside: a player whose seat the CPU had taken (BATTLE.md 5: they lost,
    they may watch) was refused every queue, "finish it first", while the CPU and their
    opponent played the battle out. Bea leaves a battle ann is still in; once the CPU
    has her seat she starts a practice battle and a Triad practice while ann's goes on."""
    ann, bea = await join(api), await join(api)
    sessions = [await Session.open(ann), await Session.open(bea)]
    try:
        battle_id = await paired_battle(ann, bea)
        await sessions[1].close()
        deadline = time.monotonic() + 30
        while not (await p_view(bea, battle_id)).you.cpu and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert (await p_view(bea, battle_id)).you.cpu
        practice = g.StartPracticeBattleRequest(request_id=uuid4().hex)
        second = (await bea.call("StartPracticeBattle", practice)).view.battle_id
        assert (await p_view(ann, battle_id)).status != pb.BATTLE_STATUS_FINISHED
        active = await bea.call("GetActiveBattle", g.GetActiveBattleRequest())
        assert active.battle_id == second != battle_id
        await bea.call("GiveUp", g.GiveUpRequest(request_id=uuid4().hex, battle_id=second))
        await bea.call(
            "StartPractice",
            easy_practice(),
        )
    finally:
        for session in sessions:
            await session.close()


async def test_when_both_players_leave_a_battle_both_lose_and_nobody_wins(api: Any) -> None:
    """Found from outside: with both players away past the grace, the seat the CPU took
    second won once the CPUs had played it out (seat 1 when both left at once), though
    BATTLE.md 5 has each disconnected player lose. The second takeover ends it, no
    winner, and each is told so when they come back."""
    ann, bea = await join(api), await join(api)
    sessions = [await Session.open(ann), await Session.open(bea)]
    try:
        battle_id = await paired_battle(ann, bea)
    finally:
        for session in sessions:
            await session.close()
    for player in (ann, bea):
        view = await finished(player, battle_id)
        assert (view.outcome.winner_seat, view.outcome.reason) == (-1, "disconnect")
        assert view.outcome.winner_player_id == "" and view.you.cpu and view.opponent.cpu
        again = await Session.open(player)
        try:
            notice = (await again.wait_for(lambda p: p.HasField("notice"))).notice
        finally:
            await again.close()
        assert notice.message == (
            f"Your battle against {view.opponent.name} ended while you were away: you lost, "
            f"you and {view.opponent.name} both left, so nobody won."
        )
