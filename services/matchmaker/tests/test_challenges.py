"""Challenges in the custom-table lobby (RULES.md 14), in memory: a private challenge
is seen and joined by the challenged player only; a challenge back to one's challenger
is refused, so one of the two can be accepted."""

from __future__ import annotations

import pytest

from services.matchmaker import handlers_lobby
from services.matchmaker.domain import Mode, TableFilter, TableState
from services.matchmaker.handlers import Context
from services.matchmaker.tests.conftest import DECK, Fakes, player
from services.matchmaker.tests.test_lobby import TRADING
from services.platform.errors import FailedPrecondition, PermissionDenied


async def test_a_challenge_crossing_one_to_its_host_is_refused_so_one_can_be_accepted(
    ctx: Context,
) -> None:
    """Found from outside: ann challenged bea and bea ann; each then hosted an open
    table, and neither could accept ("you already host open table ...")."""
    ann, bea = player("ann"), player("bea")
    theirs = await handlers_lobby.create_table(ctx, "t1", ann, TRADING, DECK, bea)
    with pytest.raises(
        FailedPrecondition, match=f"ann has already challenged you .*{theirs.table_id}"
    ):
        await handlers_lobby.create_table(ctx, "t2", bea, TRADING, DECK, ann)
    joined = await handlers_lobby.join_table(ctx, "j", bea, theirs.table_id, DECK)
    assert joined.table.state is TableState.STARTED


async def test_a_private_challenge_is_seen_and_joined_by_the_challenged_player_only(
    ctx: Context, fakes: Fakes
) -> None:
    host, rival, other = player("host"), player("rival"), player("other")
    table = await handlers_lobby.create_table(ctx, "t", host, TRADING, DECK, player("rival"))
    mine = (
        await handlers_lobby.list_tables(ctx, rival, TableFilter(challenges_only=True), 0, "")
    ).tables
    assert [t.table_id for t in mine] == [table.table_id]
    public = (
        await handlers_lobby.list_tables(ctx, rival, TableFilter(challenges_only=False), 0, "")
    ).tables
    assert public == []
    assert (await handlers_lobby.list_tables(ctx, other, TableFilter(), 0, "")).tables == []
    with pytest.raises(PermissionDenied):
        await handlers_lobby.get_table(ctx, other, table.table_id)
    with pytest.raises(PermissionDenied):
        await handlers_lobby.join_table(ctx, "j", other, table.table_id, DECK)
    with pytest.raises(FailedPrecondition, match="your own table"):
        await handlers_lobby.join_table(ctx, "j", host, table.table_id, DECK)
    joined = await handlers_lobby.join_table(ctx, "j", rival, table.table_id, DECK)
    started, match_id = joined.table, joined.match_id
    assert started.state is TableState.STARTED and started.match_id == match_id
    spec = fakes.matches.created[match_id]
    assert spec.mode is Mode.CUSTOM and spec.rules == TRADING.rules and spec.origin_id
    assert [s.player_id for s in spec.seats] == [host.player_id, rival.player_id]
    assert (await handlers_lobby.join_table(ctx, "j", rival, table.table_id, DECK)) == joined
    with pytest.raises(FailedPrecondition, match="not open"):
        await handlers_lobby.join_table(ctx, "j2", rival, started.table_id, DECK)
    # The host is free again (the match service now holds both players).
    assert await ctx.store.engagement(host.player_id) is None
