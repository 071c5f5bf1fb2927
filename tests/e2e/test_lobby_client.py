"""Find Game and challenges from ``triad-client`` (RULES.md 14), through the TLS gateway
with every service a process on real PostgreSQL and NATS: find, challenge, challenges
and decline as subcommands, status telling a challenged player of it, and the host's play
screen when a challenge is declined or the server closes the table; a match joined
without a terminal.
The lobby as the API meets it: test_lobby.py."""

from __future__ import annotations

import asyncio
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.processes import ROOT
from devtools.stack import Overrides, Stack
from devtools.terminal import Terminal
from tests.e2e.client_runs import Client, signed_in
from tests.e2e.sessions import Player, join

pytestmark = pytest.mark.integration

STACK_OVERRIDES: Overrides = {}
"""The backend of this module: no quick populated bot (tests/e2e/conftest.py)."""


def client_of(running: Stack, state: Path, player: Player) -> Client:
    me = g.RegisterResponse(
        player=g.Player(player_id=player.id, player_name=player.name), tokens=player.tokens
    )
    return signed_in(running, state, me)


async def test_the_client_finds_a_game_challenges_lists_and_declines(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    ann, bea, cid = await join(api), await join(api), await join(api)
    anns, beas = (
        client_of(backend, tmp_path / "ann", ann),
        client_of(backend, tmp_path / "bea", bea),
    )
    made = await asyncio.to_thread(anns.json, "challenge", bea.name)
    table_id = made["table"]["tableId"]
    listed = await asyncio.to_thread(beas.json, "challenges")
    assert [t["tableId"] for t in listed["tables"]] == [table_id]
    declined = await asyncio.to_thread(beas.json, "decline", table_id[:8])
    assert declined["table"]["status"] == "TABLE_STATUS_DECLINED"
    line = await asyncio.to_thread(beas.fails, "decline", table_id[:8], code=2)
    assert "no open challenge to you starts with" in line and "answered?" in line

    settings = pb.TableSettings(
        rules=pb.Rules(visibility=pb.VISIBILITY_CLOSED, elemental=True), random_deck=True
    )
    public = await cid.call(
        "CreateTable", g.CreateTableRequest(request_id=uuid4().hex, settings=settings)
    )
    found = await asyncio.to_thread(
        beas.json, "find", "--elemental", "--visibility", "closed", "--no-same"
    )
    assert found["table"]["tableId"] == public.table.table_id and found["matchId"]
    assert (await bea.view(found["matchId"])).status == pb.MATCH_STATUS_IN_PROGRESS


async def test_the_hosts_screen_ends_when_the_challenge_is_declined(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: once the challenged player declined, the host's screen said
    so and then waited, for nothing, until Ctrl-C."""
    ann, bea = await join(api), await join(api)
    anns = client_of(backend, tmp_path / "ann", ann)
    await asyncio.to_thread(anns.json, "challenge", bea.name)
    terminal = Terminal([*anns.argv, "play"], {"COLUMNS": "80", "LINES": "24"})
    try:
        await terminal.until(lambda s: "to accept your" in s, "the challenge waiting", timeout=30)
        table = (await bea.call("ListTables", g.ListTablesRequest(
            filter=pb.TableFilter(challenges_only=True)))).tables[0]  # fmt: skip
        await bea.call(
            "DeclineChallenge",
            g.DeclineChallengeRequest(request_id=uuid4().hex, table_id=table.table_id),
        )
        shown = await terminal.until(lambda s: "declined" in s, "the decline", timeout=30)
        for _ in range(100):
            if terminal.process.poll() is not None:
                break
            await asyncio.sleep(0.1)
        assert terminal.process.poll() == 0, terminal.text()
        assert f"{bea.name} declined your challenge" in " ".join(shown.split())
    finally:
        terminal.close()


async def five_saved(player: Player) -> list[str]:
    """The copies of a deck of five the player saves: its id first, then the copies."""
    mine = (await player.call("ListCollection", g.ListCollectionRequest(page_size=200))).entries
    deck = [e.copy.copy_id for e in mine][:5]
    request = g.SaveDeckRequest(request_id=uuid4().hex, name="Five", copy_ids=deck)
    return [(await player.call("SaveDeck", request)).deck.deck_id, *deck]


async def test_the_hosts_screen_ends_when_the_server_closes_the_table(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: when a guest sat down at a table whose host's deck could no
    longer play (a card of it listed on the Auction House), the host's screen said the
    table was closed and then waited, with no prompt, until Ctrl-C."""
    ann, bea = await join(api), await join(api)
    anns = client_of(backend, tmp_path / "ann", ann)
    (deck_id, listed, *_), (guest_deck, *_) = await five_saved(ann), await five_saved(bea)
    terminal = Terminal([*anns.argv, "host", "--deck", deck_id], {"COLUMNS": "80", "LINES": "24"})
    try:
        await terminal.until(lambda s: "Waiting for a guest" in s, "the open table", timeout=30)
        listing = g.CreateListingRequest(request_id=uuid4().hex, copy_id=listed, price=50)
        await ann.call("CreateListing", listing)
        tables = (await bea.call("ListTables", g.ListTablesRequest())).tables
        table = next(t for t in tables if t.host_name == ann.name)
        sitting = g.JoinTableRequest(
            request_id=uuid4().hex, table_id=table.table_id, deck=pb.DeckChoice(deck_id=guest_deck)
        )
        with pytest.raises(grpc.aio.AioRpcError):  # the host's deck cannot play
            await bea.call("JoinTable", sitting)
        shown = await terminal.until(lambda s: "was closed" in s, "the closing", timeout=30)
        assert "when a guest sat down: your deck cannot play" in " ".join(shown.split()), shown
        for _ in range(100):
            if terminal.process.poll() is not None:
                break
            await asyncio.sleep(0.1)
        assert terminal.process.poll() == 0, terminal.text()
        assert "Table closed." not in terminal.text(), "said once, with why"
    finally:
        terminal.close()


async def test_accept_and_play_without_a_terminal_say_the_match_runs_and_how_to_play_it(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: with standard input not a terminal (``</dev/null``), accept
    said 'No active match and no ticket: waiting for one' of the match it had started."""
    ann, bea = await join(api), await join(api)
    anns, beas = (
        client_of(backend, tmp_path / "ann", ann),
        client_of(backend, tmp_path / "bea", bea),
    )
    made = await asyncio.to_thread(anns.json, "challenge", bea.name)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*beas.argv, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=90, check=False, cwd=ROOT,
        )  # fmt: skip

    for args in (("accept", made["table"]["tableId"][:8]), ("play",)):
        done = await asyncio.to_thread(run, *args)
        said = " ".join(done.stdout.split())
        assert done.returncode == 0 and "No active match" not in said, (args, said, done.stderr)
        match_id = (await bea.call("GetActiveMatch", g.GetActiveMatchRequest())).view.match_id
        assert f"Match {match_id} is running: play it from a terminal with triad-client play." in (
            said
        ), said


async def test_status_tells_a_challenged_player_of_the_challenge_and_its_commands(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: a player challenged while away logged in and ran ``status``
    ("account, active match, obligations"), which said "Nothing going on" although a
    challenge waited for them (RULES.md 14)."""
    ann, bea = await join(api), await join(api)
    anns, beas = (
        client_of(backend, tmp_path / "ann", ann),
        client_of(backend, tmp_path / "bea", bea),
    )
    table_id = (await asyncio.to_thread(anns.json, "challenge", bea.name))["table"]["tableId"]
    done = await asyncio.to_thread(beas.run, "status")
    said = " ".join(done.stdout.split())
    assert done.returncode == 0 and "Nothing going on" not in said, said
    short = table_id[:8]
    assert f"Challenge from {ann.name} (table {short}): triad-client accept {short}" in said


async def test_join_of_the_players_own_table_says_it_is_theirs(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: `join` of the table the player hosts (by the id host and
    status print) was told 'no single open table starts with ...: see triad-client
    tables', and tables lists no table of the player's own: as if it did not exist. A
    challenge the player sent the same."""
    ann, bea = await join(api), await join(api)
    anns = client_of(backend, tmp_path / "ann", ann)
    table_id = (await asyncio.to_thread(anns.json, "host"))["table"]["tableId"]
    for typed in (table_id[:8], table_id):
        line = await asyncio.to_thread(anns.fails, "join", typed, code=2)
        assert f"{table_id[:8]} is your own table: a guest joins it, not you" in line, line
        assert "triad-client close closes it" in line, line
    await asyncio.to_thread(anns.json, "close")
    table_id = (await asyncio.to_thread(anns.json, "challenge", bea.name))["table"]["tableId"]
    line = await asyncio.to_thread(anns.fails, "join", table_id[:8], code=2)
    assert f"{table_id[:8]} is your own challenge to {bea.name}: they accept it, not you" in line
    assert "triad-client close withdraws it" in line, line


async def test_a_challenge_to_the_player_says_when_it_expires_in_their_local_time(
    api: Any, backend: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found from outside: nothing the client showed of a challenge to the player (the
    play screen's notice, challenges, tables, status) said when it expires (the table's
    expire_time), the challenged player unaware that it lapses unanswered. Said in the
    player's local time with its zone: here a zone 5:30 ahead of UTC."""
    monkeypatch.setenv("TZ", "XYZ-5:30")  # POSIX: UTC+5:30, named XYZ
    ann, bea = await join(api), await join(api)
    anns, beas = (
        client_of(backend, tmp_path / "ann", ann),
        client_of(backend, tmp_path / "bea", bea),
    )
    terminal = Terminal([*beas.argv, "play"], {"COLUMNS": "80", "LINES": "24"})
    try:
        await terminal.until(lambda s: "waiting for one" in s, "the waiting screen", timeout=30)
        made = (await asyncio.to_thread(anns.json, "challenge", bea.name))["table"]
        expires = datetime.fromisoformat(made["expireTime"].replace("Z", "+00:00"))
        ahead = timedelta(hours=5, minutes=30)
        there = expires + ahead
        today = there.date() == (datetime.now(UTC) + ahead).date()  # else the date too
        local = there.strftime("%H:%M:%S" if today else "%Y-%m-%d %H:%M:%S")
        said, short = f"expires at {local} XYZ", made["tableId"][:8]
        shown = await terminal.until(lambda s: "challenges you" in s, "the challenge", timeout=30)
        assert f"or decline {short}; it {said}." in " ".join(shown.split()), shown
    finally:
        terminal.close()
    listed = " ".join((await asyncio.to_thread(beas.run, "challenges")).stdout.split())
    assert f"{short} from {ann.name}: Three Open" in listed and f"Random decks; {said}" in listed
    lobby = " ".join((await asyncio.to_thread(beas.run, "tables")).stdout.split())
    assert f"{short} {ann.name} (challenges you):" in lobby and f"; {said}" in lobby, lobby
    status = " ".join((await asyncio.to_thread(beas.run, "status")).stdout.split())
    assert f"triad-client accept {short} or decline {short}; it {said}." in status, status


async def test_the_client_finds_and_lists_realm_tables_by_their_modules(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    """Found in review: `find --realm` could not pick modules, so a player after Cursed
    was seated at a Realm table with only Lair on."""
    ann, bea, cid = await join(api), await join(api), await join(api)
    anns, beas = (
        client_of(backend, tmp_path / "ann", ann),
        client_of(backend, tmp_path / "bea", bea),
    )
    lair = await asyncio.to_thread(anns.json, "host", "--realm", "lair", "--house-hands")
    realm = pb.Rules(
        family=pb.RULES_FAMILY_REALM,
        realm=pb.RealmModules(cursed=True),
        house_hands=True,
        visibility=pb.VISIBILITY_ALL_OPEN,
    )
    cursed = await cid.call(
        "CreateTable",
        g.CreateTableRequest(request_id=uuid4().hex, settings=pb.TableSettings(rules=realm)),
    )
    listed = await asyncio.to_thread(beas.json, "tables", "--realm-modules", "lair")
    assert [t["tableId"] for t in listed["tables"]] == [lair["table"]["tableId"]]
    line = await asyncio.to_thread(beas.fails, "find", "--realm-modules", "dragons", code=2)
    assert "unknown Realm modules ['dragons']" in line
    found = await asyncio.to_thread(beas.json, "find", "--realm-modules", "cursed")
    assert found["table"]["tableId"] == cursed.table.table_id and found["matchId"]
