"""A notice about a player this collection does not hold publishes nothing. PostgreSQL's
notice channels are the database's, not the schema's: deployments (or test backends)
whose schemas share a database hear each other's notices, and a balance read for a
player of another schema (no row: 0 coins, never changed) would tell that player's
session they hold 0 coins."""

from __future__ import annotations

from services.collection.handlers import Context
from services.collection.tests.helpers import starter
from services.collection.tests.test_pushes import heard


async def test_a_notice_about_a_player_held_elsewhere_publishes_no_balance(ctx: Context) -> None:
    await starter(ctx, "ann")
    sent = await heard(ctx, "someone-of-another-schema", "ann")
    assert [(p, f) for p, f, _ in sent.sent] == [("ann", "balance")]
