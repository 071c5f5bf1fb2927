"""The load generator's custom tables, their pure parts: players meeting by table kind
(bench/load_tables.py), the mix naming tables beside queues (bench/load.py), and a
winner's choice under each trade rule (bench/load_client.py). Played against the whole
backend in tests/chaos/test_trade_tables.py."""

from __future__ import annotations

import argparse
import asyncio
import random
from typing import Any

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from bench.load import parse_mix
from bench.load_client import SimClient
from bench.load_records import Meeting, Role
from bench.load_run import LoadConfig, LoadRun
from bench.load_tables import TABLES, Rendezvous, table_rules


async def test_the_second_player_of_a_kind_hosts_a_challenge_to_the_one_waiting() -> None:
    rendezvous = Rendezvous()
    waiting = asyncio.create_task(rendezvous.meet("direct", "ann", 5.0))
    await asyncio.sleep(0)
    assert await rendezvous.meet("direct", "bea", 5.0) == Meeting(Role.HOST, "ann")
    assert await waiting == Meeting(Role.GUEST, "bea")


async def test_players_of_different_kinds_do_not_meet_and_a_lone_one_gives_up() -> None:
    rendezvous = Rendezvous()
    direct = asyncio.create_task(rendezvous.meet("direct", "ann", 0.05))
    await asyncio.sleep(0)
    assert await rendezvous.meet("difference", "bea", 0.05) is None
    assert await direct is None
    # nobody is left waiting: the next player waits in turn instead of hosting a ghost
    assert await rendezvous.meet("direct", "cid", 0.05) is None


async def test_pairs_form_two_by_two_and_nobody_meets_themselves() -> None:
    rendezvous = Rendezvous()
    first = asyncio.create_task(rendezvous.meet("difference", "ann", 5.0))
    await asyncio.sleep(0)
    itself = asyncio.create_task(rendezvous.meet("difference", "ann", 0.05))
    await asyncio.sleep(0)
    assert await itself is None and not first.done()
    assert await rendezvous.meet("difference", "bea", 5.0) == Meeting(Role.HOST, "ann")
    third = asyncio.create_task(rendezvous.meet("difference", "cid", 5.0))
    await asyncio.sleep(0)
    assert await rendezvous.meet("difference", "dan", 5.0) == Meeting(Role.HOST, "cid")
    assert (await first, await third) == (Meeting(Role.GUEST, "bea"), Meeting(Role.GUEST, "dan"))


def test_the_mix_weighs_tables_beside_queues() -> None:
    assert parse_mix("ranked=6,direct=1,difference=1") == {
        "ranked": 6,
        "direct": 1,
        "difference": 1,
    }
    with pytest.raises(argparse.ArgumentTypeError, match="difference"):
        parse_mix("ranked=1,trade=1")
    LoadRun(LoadConfig("localhost:1", b"", 2, 1.0, {"direct": 1, "all": 1}))
    with pytest.raises(ValueError, match="mix must weigh"):
        LoadRun(LoadConfig("localhost:1", b"", 2, 1.0, {"swap": 1}))


def test_every_table_trades_at_closed_same_plus_combo() -> None:
    """RULES.md 13 Decision: any trade rule other than None needs exactly these."""
    for rule in TABLES.values():
        rules = table_rules(rule)
        assert (rules.visibility, rules.same, rules.plus, rules.combo, rules.trade_rule) == (
            pb.VISIBILITY_CLOSED,
            True,
            True,
            True,
            rule,
        )


class Fixed(random.Random):
    """A random source whose draws are all ``value``."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def chooser(draw: float) -> tuple[SimClient, list[tuple[str, Any]]]:
    """A client whose calls are recorded (and answered with nothing)."""
    client = SimClient(0, "localhost:1", b"", None, {"difference": 1}, Fixed(draw), 1.0, "t")  # type: ignore[arg-type]
    calls: list[tuple[str, Any]] = []

    async def call(rpc: str, request: Any, *, retry: bool = True) -> Any:
        calls.append((rpc, request))
        return g.ChooseTradeCardResponse()

    client.call = call  # type: ignore[method-assign]
    return client, calls


def offer(rule: pb.TradeRule.ValueType, take: int) -> pb.Trade:
    copies = [
        pb.OwnedCopy(copy_id=f"c{power}", printed_sides=pb.Sides(top=power, right=1))
        for power in (3, 9, 1, 7, 5)
    ]
    return pb.Trade(
        trade_id="t1",
        trade_rule=rule,
        take_count=take,
        my_role=pb.TRADE_ROLE_CHOOSER,
        offered_copies=copies,
    )


async def test_a_difference_winner_chooses_its_d_strongest_copies_in_one_call() -> None:
    client, calls = chooser(0.9)
    assert await client.choose(offer(pb.TRADE_RULE_DIFFERENCE, 3))
    [(rpc, request)] = calls
    assert rpc == "ChooseTradeCard" and request.trade_id == "t1"
    assert list(request.copy_ids) == ["c9", "c7", "c5"] and not request.copy_id


async def test_a_difference_left_to_the_deadline_is_never_chosen_afterwards() -> None:
    client, calls = chooser(0.0)  # below LEAVE_SHARE: left to the server
    assert not await client.choose(offer(pb.TRADE_RULE_DIFFERENCE, 2))
    client.rng = Fixed(0.9)
    assert not await client.choose(offer(pb.TRADE_RULE_DIFFERENCE, 2))  # the same trade
    assert calls == []


async def test_a_trade_one_winner_names_its_strongest_copy() -> None:
    client, calls = chooser(0.0)  # One is never left: the draw does not matter
    assert await client.choose(offer(pb.TRADE_RULE_ONE, 1))
    [(_, request)] = calls
    assert request.copy_id == "c9" and not request.copy_ids
