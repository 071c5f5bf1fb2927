"""The table the player hosts, where a command names it as another's (``join``): the
lobby lists no table to its own host, so its id reads as no table at all."""

from __future__ import annotations

from triad.v1 import gateway_pb2 as g

from client.connection import Caller, ClientError


async def refuse_own(client: Caller, given: str) -> None:
    """A ClientError saying so when ``given`` starts the id of the table the player hosts
    (found from outside: `join` of one's own table was told 'no single open table starts
    with ...: see triad-client tables', and tables does not list it)."""
    status = (await client.call(client.stub.GetPlayerStatus, g.GetPlayerStatusRequest())).status
    table = status.hosted_table
    if not status.HasField("hosted_table") or not given or not table.table_id.startswith(given):
        return
    short, name = table.table_id[:8], table.challenged_player_name
    if name:
        raise ClientError(
            f"{short} is your own challenge to {name}: they accept it, not you "
            "(triad-client play waits for them; triad-client close withdraws it)"
        )
    raise ClientError(
        f"{short} is your own table: a guest joins it, not you "
        "(triad-client play waits for one; triad-client close closes it)"
    )
