"""Find Game and challenges as players meet them (issue 19, item 4; RULES.md 14), through
the TLS gateway with every service a process (devtools/stack.py) on real PostgreSQL and
NATS: Find Game joins an open table (and is NOT_FOUND when none fits); a challenge is
pushed at once on the challenged player's session and accepted (the match starts) or
declined (the host hears it); a challenge made before the challenged player's session
opened is shown on it right after its first push; an unknown name is NOT_FOUND; a player
in a match cannot be challenged (the client's side: test_lobby_client.py).

Only the first test opens a public table: the others challenge, so Find Game never
meets their tables."""

from __future__ import annotations

import time
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides
from tests.e2e.sessions import OPEN_TABLE, Player, Session, join

pytestmark = pytest.mark.integration
RANDOM = pb.TableSettings(rules=OPEN_TABLE, random_deck=True)
AT_ONCE = 5.0
"""Seconds within which a challenge reaches the challenged player's session."""


STACK_OVERRIDES: Overrides = {}
"""The backend of this module: no quick populated bot (tests/e2e/conftest.py)."""


async def refused(call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value


async def challenge(host: Player, name: str) -> Any:
    return await host.call(
        "CreateTable",
        g.CreateTableRequest(request_id=uuid4().hex, settings=RANDOM, challenged_player_name=name),
    )


def challenge_push(table_id: str, status: int) -> Any:
    return lambda p: (
        p.HasField("challenge")
        and p.challenge.table_id == table_id
        and p.challenge.status == status
    )


def table_push(table_id: str, status: int) -> Any:
    return lambda p: (
        p.HasField("table") and p.table.table_id == table_id and p.table.status == status
    )


async def test_find_game_joins_an_open_table_and_is_not_found_when_none_fits(api: Any) -> None:
    ann, bea, cid = await join(api), await join(api), await join(api)
    find = g.FindGameRequest(request_id=uuid4().hex, filter=pb.TableFilter(same=True))
    error = await refused(bea.call("FindGame", find))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert "no open table fits your filters" in (error.details() or "")

    hosts = await Session.open(ann)
    table = (
        await ann.call("CreateTable", g.CreateTableRequest(request_id=uuid4().hex, settings=RANDOM))
    ).table
    error = await refused(ann.call("FindGame", g.FindGameRequest(request_id=uuid4().hex)))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION  # hosting; never one's own
    # The whole id, so the player can send it to CloseTable.
    assert f"you already host open table {table.table_id}: close it" in (error.details() or "")

    found = await bea.call("FindGame", find)
    assert found.table.table_id == table.table_id
    assert found.table.status == pb.TABLE_STATUS_STARTED and found.match_id
    assert found.view.match_id == found.match_id and len(found.view.my_hand) == 5
    again = await bea.call("FindGame", find)  # the same request id: the same game
    assert (again.table, again.match_id) == (found.table, found.match_id)
    await hosts.wait_for(table_push(table.table_id, pb.TABLE_STATUS_STARTED))
    await hosts.attached(found.match_id)

    error = await refused(cid.call("FindGame", g.FindGameRequest(request_id=uuid4().hex)))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert "no open table" in (error.details() or "")
    await hosts.close()


async def test_a_challenge_is_pushed_at_once_and_accepted_by_joining(api: Any) -> None:
    ann, bea = await join(api), await join(api)
    challenged = await Session.open(bea)
    sent = time.monotonic()
    table = (await challenge(ann, bea.name.upper())).table  # names are found in any case
    assert table.challenged_player_name == bea.name
    push = await challenged.wait_for(challenge_push(table.table_id, pb.TABLE_STATUS_OPEN))
    assert time.monotonic() - sent < AT_ONCE
    assert push.challenge.host_name == ann.name

    joined = await bea.call(
        "JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table_id)
    )
    assert joined.table.status == pb.TABLE_STATUS_STARTED
    started = await challenged.wait_for(challenge_push(table.table_id, pb.TABLE_STATUS_STARTED))
    assert started.challenge.match_id == joined.match_id
    await challenged.attached(joined.match_id)
    assert (await ann.view(joined.match_id)).status == pb.MATCH_STATUS_IN_PROGRESS
    await challenged.close()


async def test_a_challenge_back_to_ones_challenger_is_refused_and_theirs_accepted(
    api: Any,
) -> None:
    """Found from outside: challenges crossing (ann to bea, bea to ann) left each
    hosting an open table, and neither could accept."""
    ann, bea = await join(api), await join(api)
    theirs = (await challenge(ann, bea.name)).table
    crossing = await refused(challenge(bea, ann.name))
    assert crossing.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert crossing.details() == (
        f"{ann.name} has already challenged you (table {theirs.table_id}): "
        "accept or decline their challenge"
    )
    joined = await bea.call(
        "JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=theirs.table_id)
    )
    assert joined.table.status == pb.TABLE_STATUS_STARTED


async def test_a_challenge_made_before_the_session_opens_is_shown_on_it(api: Any) -> None:
    ann, bea, cid = await join(api), await join(api), await join(api)
    table = (await challenge(ann, bea.name)).table
    withdrawn = (await challenge(cid, bea.name)).table
    await cid.call(
        "CloseTable", g.CloseTableRequest(request_id=uuid4().hex, table_id=withdrawn.table_id)
    )

    challenged = await Session.open(bea)
    shown = await challenged.wait_for(challenge_push(table.table_id, pb.TABLE_STATUS_OPEN))
    assert shown.sequence == 2  # right after session_opened
    assert shown.challenge.host_name == ann.name
    joined = await bea.call(
        "JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table_id)
    )
    await challenged.wait_for(challenge_push(table.table_id, pb.TABLE_STATUS_STARTED))
    challenges = [p.challenge for p in challenged.pushes if p.HasField("challenge")]
    assert [(c.table_id, c.status) for c in challenges] == [
        (table.table_id, pb.TABLE_STATUS_OPEN),
        (table.table_id, pb.TABLE_STATUS_STARTED),
    ]  # shown once, and never the withdrawn one
    await challenged.attached(joined.match_id)
    await challenged.close()


async def test_a_battle_challenge_made_before_the_session_opens_is_shown_on_it(
    api: Any,
) -> None:
    """A Skirmish battle challenge (BATTLE.md 6, a battle table for one player) waits for
    its player as a Triad one does: both are shown when the session opens, oldest first."""
    ann, bea, cid = await join(api), await join(api), await join(api)
    triad = (await challenge(ann, bea.name)).table
    battle = (
        await cid.call(
            "CreateTable",
            g.CreateTableRequest(
                request_id=uuid4().hex,
                settings=pb.TableSettings(battle=True),
                challenged_player_name=bea.name,
            ),
        )
    ).table
    challenged = await Session.open(bea)
    await challenged.wait_for(challenge_push(battle.table_id, pb.TABLE_STATUS_OPEN))
    shown = [p.challenge for p in challenged.pushes if p.HasField("challenge")]
    assert [(c.table_id, c.settings.battle) for c in shown] == [
        (triad.table_id, False),
        (battle.table_id, True),
    ]
    await challenged.close()


async def test_a_declined_challenge_closes_and_its_host_is_told(api: Any) -> None:
    ann, bea, cid = await join(api), await join(api), await join(api)
    hosts, challenged = await Session.open(ann), await Session.open(bea)
    table = (await challenge(ann, bea.name)).table
    await challenged.wait_for(challenge_push(table.table_id, pb.TABLE_STATUS_OPEN))

    decline = g.DeclineChallengeRequest(request_id=uuid4().hex, table_id=table.table_id)
    error = await refused(cid.call("DeclineChallenge", decline))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    declined = await bea.call("DeclineChallenge", decline)
    assert declined.table.status == pb.TABLE_STATUS_DECLINED
    told = await hosts.wait_for(table_push(table.table_id, pb.TABLE_STATUS_DECLINED))
    assert told.table.challenged_player_name == bea.name
    await challenged.wait_for(challenge_push(table.table_id, pb.TABLE_STATUS_DECLINED))
    error = await refused(
        bea.call("JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table_id))
    )
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert (await challenge(ann, cid.name)).table.status == pb.TABLE_STATUS_OPEN  # free again
    await hosts.close()
    await challenged.close()


async def test_an_unknown_name_is_not_found_and_a_player_in_a_match_is_not_challenged(
    api: Any,
) -> None:
    ann, bea, cid = await join(api), await join(api), await join(api)
    error = await refused(challenge(ann, f"nobody{uuid4().hex[:8]}"))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert "check the spelling" in (error.details() or "")
    error = await refused(challenge(ann, ann.name))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "cannot challenge yourself" in (error.details() or "")

    table = (await challenge(cid, bea.name)).table
    await bea.call("JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table_id))
    error = await refused(challenge(ann, bea.name))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert f"{bea.name} is playing a match right now" in (error.details() or "")
    status = (await ann.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status
    assert not status.HasField("hosted_table")  # nothing was opened


async def test_the_lobby_filters_tables_by_sudden_death(api: Any) -> None:
    """RULES.md 6: tables are "filterable by rule", Sudden Death (RULES.md 12) among them.
    Two challenges to one player, one with Sudden Death: each filter shows only its own."""
    ann, bea, cid = await join(api), await join(api), await join(api)
    sudden = pb.Rules()
    sudden.CopyFrom(OPEN_TABLE)
    sudden.sudden_death = True
    with_it = (
        await ann.call(
            "CreateTable",
            g.CreateTableRequest(
                request_id=uuid4().hex,
                settings=pb.TableSettings(rules=sudden, random_deck=True),
                challenged_player_name=bea.name,
            ),
        )
    ).table
    without = (await challenge(cid, bea.name)).table

    async def listed(**wanted: bool) -> set[str]:
        filters = pb.TableFilter(challenges_only=True, **wanted)
        tables = await bea.call("ListTables", g.ListTablesRequest(filter=filters, page_size=50))
        return {t.table_id for t in tables.tables} & {with_it.table_id, without.table_id}

    assert await listed() == {with_it.table_id, without.table_id}
    assert await listed(sudden_death=True) == {with_it.table_id}
    assert await listed(sudden_death=False) == {without.table_id}
    for host, table in ((ann, with_it), (cid, without)):
        await host.call(
            "CloseTable", g.CloseTableRequest(request_id=uuid4().hex, table_id=table.table_id)
        )


async def saved_deck(p: Player) -> tuple[str, list[pb.CollectionEntry]]:
    """A deck of the first five starter copies (a legal deck) and those entries."""
    entries = list((await p.call("ListCollection", g.ListCollectionRequest())).entries)[:5]
    deck = await p.call(
        "SaveDeck",
        g.SaveDeckRequest(
            request_id=uuid4().hex, name="Mine", copy_ids=[e.copy.copy_id for e in entries]
        ),
    )
    return deck.deck.deck_id, entries


async def test_a_guest_never_reads_the_hidden_cards_of_a_host_deck_that_cannot_play(
    api: Any,
) -> None:
    """RULES.md 3: a hidden card of the opponent never leaves the server in any message
    to that player. The host of a Closed table lists a copy of their table deck on the
    Auction House (it is locked); the challenged guest who sits down is refused, told
    the host's deck cannot play, and not which card: no name, no copy id."""
    ann, bea = await join(api), await join(api)
    ann_deck, ann_cards = await saved_deck(ann)
    bea_deck, _ = await saved_deck(bea)
    closed = pb.Rules(visibility=pb.VISIBILITY_CLOSED, same=True)
    table = await ann.call(
        "CreateTable",
        g.CreateTableRequest(
            request_id=uuid4().hex,
            settings=pb.TableSettings(rules=closed),
            deck=pb.DeckChoice(deck_id=ann_deck),
            challenged_player_name=bea.name,
        ),
    )
    listed = ann_cards[0].copy
    await ann.call(
        "CreateListing",
        g.CreateListingRequest(request_id=uuid4().hex, copy_id=listed.copy_id, price=10),
    )
    join_table = g.JoinTableRequest(
        request_id=uuid4().hex, table_id=table.table.table_id, deck=pb.DeckChoice(deck_id=bea_deck)
    )
    error = await refused(bea.call("JoinTable", join_table))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error.details()
    told = error.details() or ""
    assert f"{ann.name}'s deck cannot play" in told
    for card in ann_cards:
        assert card.copy.copy_id[:8] not in told and card.copy.character.name not in told, told


async def test_a_host_who_cannot_draw_a_random_deck_never_fails_find_game_for_others(
    api: Any,
) -> None:
    """Found from outside: a host whose free copies held no legal deck (the rest listed
    on the Auction House) could open a Random table, and Find Game then failed for
    everyone with "<host>'s deck cannot play now" although another table fitted. Now a
    table whose host lost the copies after opening it is passed over, and opening one
    without them is refused, as a queue is. Its tables are closed at the end, so none is
    left for other tests' Find Game."""
    ann, bea, cid = await join(api), await join(api), await join(api)
    entries = list((await ann.call("ListCollection", g.ListCollectionRequest())).entries)
    opened = await ann.call(
        "CreateTable", g.CreateTableRequest(request_id=uuid4().hex, settings=RANDOM)
    )
    listings = [
        (
            await ann.call(
                "CreateListing",
                g.CreateListingRequest(request_id=uuid4().hex, copy_id=e.copy.copy_id, price=10),
            )
        ).listing.listing_id
        for e in entries[: len(entries) - 4]  # four different characters left: no deck of 5
    ]
    fitting = await bea.call(
        "CreateTable", g.CreateTableRequest(request_id=uuid4().hex, settings=RANDOM)
    )
    found = await cid.call("FindGame", g.FindGameRequest(request_id=uuid4().hex))
    assert found.table.table_id == fitting.table.table_id and found.match_id
    hosted = (await ann.call("GetPlayerStatus", g.GetPlayerStatusRequest())).status.hosted_table
    assert hosted.table_id == opened.table.table_id
    assert hosted.status == pb.TABLE_STATUS_OPEN  # passed over, not closed on others
    await ann.call(
        "CloseTable", g.CloseTableRequest(request_id=uuid4().hex, table_id=opened.table.table_id)
    )
    error = await refused(
        ann.call("CreateTable", g.CreateTableRequest(request_id=uuid4().hex, settings=RANDOM))
    )
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "your free copies hold no legal deck of 5" in (error.details() or ""), error.details()
    checked = await ann.call(
        "ValidateDeck", g.ValidateDeckRequest(random=pb.RandomDeck(), hand_size=5)
    )
    assert not checked.valid
    assert checked.violations[0].rule == pb.DECK_RULE_DISTINCT_CHARACTERS  # was UNSPECIFIED
    for listing_id in listings:
        await ann.call(
            "CancelListing", g.CancelListingRequest(request_id=uuid4().hex, listing_id=listing_id)
        )
