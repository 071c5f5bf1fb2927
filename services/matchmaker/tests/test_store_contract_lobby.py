"""The lobby half of the repository contract (see ``test_store_contract.py``): custom
tables open, list, close, expire, are declined (a challenge), picked by Find Game and
are joined alike in memory and in PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any
from uuid import uuid4

import pytest

from services.matchmaker.domain import (
    Mode,
    RuleSet,
    Seat,
    StartKind,
    StartPlan,
    Table,
    TableFilter,
    TableSettings,
    TableState,
    TradeRule,
    Visibility,
)
from services.matchmaker.store import (
    Engaged,
    Engagement,
    Hold,
    TableQuery,
)
from services.matchmaker.tests.test_store_contract import (
    DECK,
    EVERY,
    T0,
    Adapter,
    adapter,
    key,
    pending,
)

__all__ = ["adapter"]  # the fixture, parametrised over both adapters


def table(host: str, at: float = 0.0, challenged: str = "", **rules: bool) -> Table:
    created = T0 + timedelta(seconds=at)
    return Table(
        table_id=f"tb-{host}-{uuid4().hex[:6]}",
        host_id=f"id-{host}",
        host_name=host,
        settings=TableSettings(RuleSet(Visibility.ALL_OPEN, **rules)),  # type: ignore[arg-type]
        created_at=created,
        expire_at=created + timedelta(seconds=600),
        host_deck=DECK,
        challenged_name=challenged,
        challenged_id=f"id-{challenged}" if challenged else "",
    )


async def test_tables_open_list_close_and_expire(adapter: Adapter) -> None:
    lobby, store = adapter.lobby, adapter.store
    plain, same, duel = table("ho", 0), table("hu", 1, same=True), table("hy", 2, "viv")
    for t in (plain, same, duel):
        await lobby.create_table(t, key(t.host_name, "t"))
    assert await lobby.table(plain.table_id) == plain
    assert await lobby.hosted_table("id-ho") == plain
    assert await store.engagement("id-ho") == Engagement(Hold.TABLE, plain.table_id)
    with pytest.raises(Engaged):
        await lobby.create_table(table("ho"), key("ho", "t2"))
    assert await lobby.open_tables() == 3

    async def shown(viewer: str, filters: TableFilter = EVERY, **kw: Any) -> list[str]:
        found = await lobby.list_tables(
            TableQuery(f"id-{viewer}", viewer, filters, T0, 10, kw.get("after"))
        )
        return [t.table_id for t in found]

    assert await shown("viv") == [duel.table_id, same.table_id, plain.table_id]
    assert await shown("wes") == [same.table_id, plain.table_id]  # not someone else's duel
    assert await shown("ho") == [same.table_id]  # not one's own
    assert await shown("viv", TableFilter(same=True)) == [same.table_id]
    assert await shown("viv", TableFilter(challenges_only=True)) == [duel.table_id]
    assert await shown("viv", TableFilter(trades=frozenset({TradeRule.ONE}))) == []
    assert await shown("viv", after=(same.created_at, same.table_id)) == [plain.table_id]
    found, closed = await lobby.close_table(plain.table_id, "id-hu", key("hu", "c"))
    assert (found, closed) == (plain, False)
    found, closed = await lobby.close_table(plain.table_id, "id-ho", key("ho", "c"))
    assert closed and found is not None and found.state is TableState.CLOSED
    assert await lobby.hosted_table("id-ho") is None and await store.engagement("id-ho") is None
    for moment, listed in ((600, [same.table_id]), (601, [])):  # expired ones are not shown
        at = T0 + timedelta(seconds=moment)
        found_tables = await lobby.list_tables(TableQuery("id-x", "x", EVERY, at, 10, None))
        assert [t.table_id for t in found_tables] == listed
    assert await lobby.expire_tables(T0 + timedelta(seconds=600)) == []
    assert await lobby.expire_tables(T0 + timedelta(seconds=601)) == [
        replace(same, state=TableState.EXPIRED)
    ]
    assert await store.engagement("id-hu") is None
    assert await lobby.expire_tables(T0 + timedelta(seconds=601)) == []
    assert [k for _, k in await adapter.kinds()] == [
        "TableCreated", "TableCreated", "TableCreated", "TableClosed", "TableExpired",
    ]  # fmt: skip


async def test_joining_a_table_holds_it_until_the_start_is_settled(adapter: Adapter) -> None:
    lobby, store = adapter.lobby, adapter.store
    open_ = table("ho")
    await lobby.create_table(open_, key("ho", "t"))
    plan = StartPlan(
        str(uuid4()), StartKind.TABLE, Mode.CUSTOM, open_.settings.rules,
        (Seat("id-ho", "ho", deck=DECK), Seat("id-gu", "gu", deck=DECK)),
        match_id="m-t", origin_id=open_.table_id, table_id=open_.table_id,
    )  # fmt: skip
    lease, token = T0 + timedelta(seconds=10), uuid4()
    assert not await store.open_start(pending(plan, token), lease, key("gu", "j0"), open_.expire_at)
    assert await store.open_start(pending(plan, token), lease, key("gu", "j"), T0)
    joining = await lobby.table(open_.table_id)
    assert joining is not None and (joining.state, joining.guest_name) == (TableState.JOINING, "gu")
    assert await store.engagement("id-gu") == Engagement(Hold.JOINING, open_.table_id)
    assert await lobby.list_tables(TableQuery("id-x", "x", TableFilter(), T0, 10, None)) == []
    other = replace(plan, start_id=str(uuid4()), seats=(plan.seats[0], Seat("id-zo", "zo")))
    assert not await store.open_start(pending(other), lease, key("zo", "j"), T0)
    assert await store.engagement("id-zo") is None  # refused: nothing held
    # The guest's match cannot start because of the guest: the table opens again.
    record = pending(plan, token)
    assert await store.fail_start(record, {"id-gu": "gu is playing"}, "gu is playing", T0)
    reopened = await lobby.table(open_.table_id)
    assert reopened is not None and (reopened.state, reopened.guest_id) == (TableState.OPEN, "")
    assert await store.engagement("id-gu") is None
    again = replace(plan, start_id=str(uuid4()))
    token = uuid4()
    assert await store.open_start(pending(again, token), lease, key("gu", "j2"), T0)
    assert await store.finish_start(pending(again, token), [], T0)
    started = await lobby.table(open_.table_id)
    assert started is not None and (started.state, started.match_id) == (TableState.STARTED, "m-t")
    assert await store.engagement("id-ho") is None and await store.engagement("id-gu") is None
    assert (f"table-{open_.table_id}", "TableJoined") in await adapter.kinds()


async def test_find_game_picks_the_oldest_open_public_table_that_fits(adapter: Adapter) -> None:
    lobby = adapter.lobby
    duel = table("hd", 0, "viv")
    old, same, newer = table("ho", 1), table("hu", 2, same=True), table("hy", 3)
    for t in (duel, old, same, newer):
        await lobby.create_table(t, key(t.host_name, "t"))

    async def picked(viewer: str, filters: TableFilter = EVERY, **kw: Any) -> str | None:
        found = await lobby.oldest_table(
            f"id-{viewer}", filters, kw.get("at", T0), kw.get("skip", set())
        )
        return None if found is None else found.table_id

    assert await picked("viv") == old.table_id  # a challenge, even to the viewer, is not
    assert await picked("ho") == same.table_id  # never one's own
    assert await picked("viv", TableFilter(same=True)) == same.table_id
    assert await picked("viv", TableFilter(same=False)) == old.table_id
    assert await picked("viv", skip={old.table_id, same.table_id}) == newer.table_id
    assert await picked("viv", TableFilter(random_deck=True)) is None
    assert await picked("viv", TableFilter(trades=frozenset({TradeRule.ONE}))) is None
    assert await picked("viv", TableFilter(visibilities=frozenset({Visibility.CLOSED}))) is None
    await lobby.close_table(old.table_id, "id-ho", key("ho", "c"))
    assert await picked("viv") == same.table_id  # only open ones
    assert await picked("viv", at=T0 + timedelta(seconds=602)) == newer.table_id  # not expired


async def test_only_the_challenged_player_declines_an_open_challenge(adapter: Adapter) -> None:
    lobby, store = adapter.lobby, adapter.store
    duel, public = table("ho", 0, "viv"), table("hu", 1)
    for t in (duel, public):
        await lobby.create_table(t, key(t.host_name, "t"))
    assert await lobby.table(duel.table_id) == duel  # the challenged id is kept
    found, declined = await lobby.decline_table(duel.table_id, "id-wes", key("wes", "d"))
    assert (found, declined) == (duel, False)
    found, declined = await lobby.decline_table(public.table_id, "id-viv", key("viv", "d"))
    assert (found, declined) == (public, False)
    found, declined = await lobby.decline_table(duel.table_id, "id-viv", key("viv", "d"))
    assert declined and found == replace(duel, state=TableState.DECLINED)
    assert await store.engagement("id-ho") is None and await lobby.hosted_table("id-ho") is None
    assert await store.answered(key("viv", "d")) == duel.table_id
    again, declined = await lobby.decline_table(duel.table_id, "id-viv", key("viv", "d2"))
    assert not declined and again is not None and again.state is TableState.DECLINED
    assert await lobby.decline_table("tb-none", "id-viv", key("viv", "d3")) == (None, False)
    assert await lobby.list_tables(TableQuery("id-viv", "viv", EVERY, T0, 10, None)) == [public]
    assert [k for _, k in await adapter.kinds()] == [
        "TableCreated", "TableCreated", "TableDeclined",
    ]  # fmt: skip


async def test_the_next_table_due_is_the_earliest_open_one_to_expire(adapter: Adapter) -> None:
    lobby = adapter.lobby
    assert await lobby.next_due_table() is None
    first, second = table("ho", 0), table("hu", 5)
    for t in (second, first):
        await lobby.create_table(t, key(t.host_name, "t"))
    assert await lobby.next_due_table() == first.expire_at
    await lobby.close_table(first.table_id, "id-ho", key("ho", "c"))
    assert await lobby.next_due_table() == second.expire_at
    assert len(await lobby.expire_tables(second.expire_at)) == 1
    assert await lobby.next_due_table() is None
