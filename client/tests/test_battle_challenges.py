"""``triad-client challenges`` lists the battle challenges too: ``battle --challenge
bea`` opens a battle table for bea, which ListTables shows only with
``filter.battles``, so bea was told 'No challenges for you.' and had no way to learn
the table's id but from the challenger. ``accept`` and ``decline`` take up such a
challenge too: they knew only Triad tables ('no single open challenge to you')."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from typing import Any

import pytest
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.battle import battle
from client.battle_start import start
from client.commands_lobby import accept, challenges, decline
from client.connection import CommandError

BATTLE = "8265acae-a457-4427-8d43-42f908f114c0"


class Stub:
    async def ListTables(self, request: g.ListTablesRequest) -> g.ListTablesResponse:
        assert request.filter.challenges_only
        if not request.filter.battles:
            return g.ListTablesResponse()
        table = pb.Table(
            table_id=BATTLE,
            host_name="ann",
            challenged_player_name="bea",
            status=pb.TABLE_STATUS_OPEN,
        )
        table.settings.battle = True
        return g.ListTablesResponse(tables=[table])


class Caller:
    stub = Stub()

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)


async def test_a_battle_challenge_is_listed_with_the_command_that_joins_it() -> None:
    console = Console(width=80, record=True, force_terminal=False)
    assert await challenges(Caller(), argparse.Namespace(json=False), console) == 0
    text = " ".join(console.export_text().split())
    assert "No challenges for you." not in text, text
    assert f"{BATTLE[:8]} from ann: a Skirmish battle" in text, text
    assert f"triad-client battle --join {BATTLE}" in text, text


class Answering(Stub):
    """Bea's gateway: the battle challenge above, joined or declined."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def GetActiveBattle(self, request: g.GetActiveBattleRequest) -> Any:
        return g.GetActiveBattleResponse()

    async def JoinTable(self, request: g.JoinTableRequest) -> g.JoinTableResponse:
        self.sent.append(request)
        return g.JoinTableResponse(match_id="b4771e00")

    async def GetBattleView(self, request: g.GetBattleViewRequest) -> g.GetBattleViewResponse:
        return g.GetBattleViewResponse(view=pb.BattleView(battle_id=request.battle_id))

    async def DeclineChallenge(self, request: g.DeclineChallengeRequest) -> Any:
        self.sent.append(request)
        return g.DeclineChallengeResponse()


class Answerer:
    def __init__(self) -> None:
        self.stub = Answering()

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)

    async def pushes(self) -> AsyncIterator[g.OpenSessionResponse]:
        return
        yield  # a session that ends at once


async def test_accept_joins_a_battle_challenge_as_battle_join_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Accepting joins the battle table with no deck (a Triad table's JoinTable would
    have been refused 'no single open challenge') and shows the battle it starts."""
    bea = Answerer()
    args = argparse.Namespace(json=True, table=BATTLE[:8], deck=None)
    assert await accept(bea, args, Console()) == 0
    [joined] = bea.stub.sent
    assert joined.table_id == BATTLE and not joined.HasField("deck")
    assert '"battleId": "b4771e00"' in capsys.readouterr().out
    with pytest.raises(CommandError, match="takes no deck"):
        await accept(bea, argparse.Namespace(json=True, table=BATTLE[:8], deck="d1"), Console())


async def test_decline_declines_a_battle_challenge() -> None:
    bea = Answerer()
    console = Console(width=80, record=True, force_terminal=False)
    assert await decline(bea, argparse.Namespace(json=False, table=BATTLE[:8]), console) == 0
    [declined] = bea.stub.sent
    assert isinstance(declined, g.DeclineChallengeRequest) and declined.table_id == BATTLE
    assert "Declined ann's challenge." in console.export_text()


class HouseHands(Stub):
    """A Triad challenge at a 5x5 table that deals house hands."""

    async def ListTables(self, request: g.ListTablesRequest) -> g.ListTablesResponse:
        if request.filter.battles:
            return g.ListTablesResponse()
        table = pb.Table(table_id=BATTLE, host_name="ann", challenged_player_name="bea")
        table.settings.rules.visibility = pb.VISIBILITY_CLOSED
        table.settings.rules.board.rows = table.settings.rules.board.columns = 5
        table.settings.rules.house_hands = True
        return g.ListTablesResponse(tables=[table])


async def test_a_house_hands_challenge_does_not_ask_for_your_deck() -> None:
    """Found from outside: a challenge at a house-hands table was listed with 'your
    deck', though such a table deals both hands and takes none (RULES.md 11)."""
    caller = Caller()
    caller.stub = HouseHands()
    console = Console(width=80, record=True, force_terminal=False)
    assert await challenges(caller, argparse.Namespace(json=False), console) == 0
    text = " ".join(console.export_text().split())
    assert f"{BATTLE[:8]} from ann: Closed" in text and "house hands" in text, text
    assert "your deck" not in text, text


class Listing(Answering):
    """Bea's gateway, listing the battle challenge with any battle filter."""

    async def ListTables(self, request: g.ListTablesRequest) -> g.ListTablesResponse:
        return await super().ListTables(g.ListTablesRequest(filter=pb.TableFilter(
            challenges_only=True, battles=request.filter.battles
        )))  # fmt: skip


async def test_battle_join_takes_the_start_of_the_table_id() -> None:
    """Found from outside: `battle --join 712a` (the start `challenges` shows first) was
    refused 'no table 712a', where join and accept take the start of an id."""
    bea = Answerer()
    bea.stub = Listing()
    args = argparse.Namespace(join=BATTLE[:8], queue=False, challenge=None, host=False)
    view = await start(bea, args, Console())
    [joined] = bea.stub.sent
    assert joined.table_id == BATTLE and view.battle_id == "b4771e00"
    with pytest.raises(CommandError, match="no single open battle table starts with 'ffff'"):
        await start(bea, argparse.Namespace(join="ffff", queue=False), Console())


class Battling(Answering):
    """Bea's gateway, in battle b1 (or in none) until she gives it up."""

    def __init__(self, active: str) -> None:
        super().__init__()
        self.active = active

    async def GetActiveBattle(self, request: g.GetActiveBattleRequest) -> Any:
        return g.GetActiveBattleResponse(battle_id=self.active)

    async def GiveUp(self, request: g.GiveUpRequest) -> g.GiveUpResponse:
        self.sent.append(request)
        ended = pb.BattleView(battle_id=request.battle_id, status=pb.BATTLE_STATUS_FINISHED)
        ended.seat, ended.outcome.winner_seat, ended.outcome.reason = 1, 0, "give_up"
        return g.GiveUpResponse(view=ended)


async def test_battle_give_up_ends_the_battle_from_a_script(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Found from outside: `battle --json` started a battle that only the screen's q
    could end (`forfeit` knows matches only)."""
    bea = Answerer()
    bea.stub = Battling("b1000000-0000")
    args = argparse.Namespace(give_up=True, json=False)
    assert await battle(bea, args, Console()) == 0
    [gave_up] = bea.stub.sent
    assert gave_up.battle_id == "b1000000-0000"
    assert capsys.readouterr().out == "Battle b1000000: You gave up: you lost.\n"
    bea.stub = Battling("")
    with pytest.raises(CommandError, match="you have no battle in progress"):
        await battle(bea, args, Console())
