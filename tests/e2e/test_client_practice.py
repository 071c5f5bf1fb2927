"""Practice from ``triad-client`` against the whole backend (every service a process,
TLS gateway): a practice match played on an 80x24 terminal as a person sees it (the
rules line, a capture highlighted with its cause, the summary at the end); the switch
from a queue to a practice bot, by subcommand and on the terminal; a custom practice
with the rules chosen, and an Elemental mark shown on the terminal.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD, bearer
from devtools.stack import Stack
from devtools.terminal import Terminal
from tests.e2e.client_runs import Client, signed_in
from tests.e2e.end_to_end import greedy_move, register
from tests.e2e.sessions import Session, join

pytestmark = pytest.mark.integration


TAGS = ("SAME", "PLUS", "COMBO", "TAKEN")


def highlighted(terminal: Terminal, tag: str) -> list[str]:
    """The background colours under each cause ``tag`` written on the board."""
    found = []
    for y, line in enumerate(terminal.screen.display):
        for x in (m.start() for m in re.finditer(tag, line)):
            found.append(terminal.screen.buffer[y][x].bg)
    return found


async def test_a_person_sees_the_rules_a_capture_and_its_cause_and_the_summary_in_practice(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """``triad-client practice`` in an 80x24 terminal, the player out to capture (the
    move that takes the most by a higher side): the title names the rules and the mode,
    a move that captures is told with each card's cause and the captured card stands on
    the cause's colour with the cause written on it; the end says the score and why it
    ended in words, that practice is unrated and trades nothing."""
    me = await register(api)
    argv = signed_in(backend, tmp_path / "state.json", me).argv
    seen: dict[str, Any] = {}
    for _ in range(3):  # until a capture is seen (a bot may leave nothing to take)
        terminal = Terminal([*argv, "practice", "--level", "novice"], {})

        async def watch(t: Terminal = terminal) -> None:
            while True:
                screen = t.text()
                tags = [tag for tag in TAGS if tag in screen and ": took " in screen]
                if tags and "capture" not in seen:
                    seen["capture"] = (screen, tags[0], highlighted(t, tags[0]))
                await asyncio.sleep(0.03)

        watcher = asyncio.create_task(watch())
        try:
            screen = await terminal.until(lambda s: "Rules: " in s, "the match")
            flat = " ".join(screen.split())
            assert "Rules: Three Open, Same, Plus, Combo (Practice, Unranked rules)" in flat
            assert "No trade - match" in flat, "the table line under the board"
            while True:
                screen = await terminal.until(
                    lambda s: ("card cell > " in s and "Your turn" in s) or "No trade." in s,
                    "the player's turn or the end",
                )
                if "No trade." in screen:
                    break
                view = (
                    await api.GetActiveMatch(g.GetActiveMatchRequest(), metadata=bearer(me.tokens))
                ).view
                if view.turn_seat != view.my_seat:
                    await asyncio.sleep(0.1)
                    continue
                card, cell = greedy_move(view)
                index = [c.card.card_id for c in view.my_hand].index(card)
                terminal.type(f"{index} {cell}\r")
                await terminal.until(
                    lambda s, c=cell: f"({c})" not in s or "No trade." in s, "the card placed"
                )
            assert terminal.process.wait(timeout=30) == 0
            end = terminal.text()
            ended = re.search(r"(You win|You lose|Draw) (\d+)-(\d+): ([^.]+)\.", end)
            assert ended is not None, end
            assert int(ended.group(2)) + int(ended.group(3)) == 10
            assert ended.group(4) == "the board is full", end
            assert "Unrated: no rating change." in end and "No trade." in end
            assert "(board_full)" not in end and "card cell >" not in end
        finally:
            watcher.cancel()
            terminal.close()
        if "capture" in seen:
            break
    else:
        pytest.skip("three practice matches without a capture seen")
    screen, tag, colours = seen["capture"]
    cause = {"SAME": "Same", "PLUS": "Plus", "COMBO": "Combo", "TAKEN": "higher side"}[tag]
    assert re.search(rf": took \d+ \({cause}\)", screen), screen
    assert colours and all(bg != "default" for bg in colours), (tag, colours, screen)


async def test_a_queued_player_switches_to_a_practice_bot_from_the_client(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """Queued for Ranked (no bot fills it), ``triad-client switch`` gives up the ticket
    for a practice match with Ranked's rules; switching with no ticket is refused."""
    me = await register(api)
    client = signed_in(backend, tmp_path / "state.json", me)
    ticket = client.json("enqueue", "ranked")["ticket"]
    switched = client.json("switch", "--level", "novice")
    assert switched["ticket"]["ticketId"] == ticket["ticketId"]
    assert switched["ticket"]["status"] == "TICKET_STATUS_CANCELLED"
    view = (await api.GetActiveMatch(g.GetActiveMatchRequest(), metadata=bearer(me.tokens))).view
    assert view.match_id == switched["matchId"]
    assert view.mode == pb.MODE_PRACTICE and view.origin_mode == pb.MODE_RANKED
    assert "you are in no queue" in client.fails("switch", code=2)
    assert client.json("forfeit", view.match_id)["status"] == "MATCH_STATUS_FINISHED"


async def test_a_queued_person_types_b_for_a_practice_bot(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """Waiting in the Ranked queue on the terminal, the screen offers the switch; b
    gives up the ticket and the practice match with Ranked's rules starts at once."""
    me = await register(api)
    argv = signed_in(backend, tmp_path / "state.json", me).argv
    terminal = Terminal([*argv, "queue", "--mode", "ranked"], {})
    try:
        waiting = await terminal.until(lambda s: "In the Ranked queue" in s, "the queue")
        assert "b: play a practice bot now" in " ".join(waiting.split())
        terminal.type("b\r")
        screen = await terminal.until(lambda s: "Rules: " in s, "the practice match")
        assert "(Practice, Ranked rules)" in " ".join(screen.split())
        status = (
            await api.GetPlayerStatus(g.GetPlayerStatusRequest(), metadata=bearer(me.tokens))
        ).status
        assert status.active_match_id and status.ticket.status != pb.TICKET_STATUS_QUEUED
        # Ctrl-C: the practice match goes on; no queue is left (found from outside: the
        # screen said "Left the queue." under the match's line).
        terminal.type("\x03")
        await terminal.until(lambda s: "goes on" in s, "what goes on")
        assert terminal.process.wait(timeout=30) == 130
        left = terminal.text()  # all it printed before it ended
        assert "goes on" in left and "Left the queue." not in left, left
        client = Client(backend, tmp_path / "state.json")
        assert client.json("forfeit", status.active_match_id)["status"] == "MATCH_STATUS_FINISHED"
    finally:
        terminal.close()


async def test_the_unranked_queue_says_when_a_bot_takes_the_seat(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """Found from outside: waiting in the Unranked queue the screen never said when a
    bot takes the seat (the session opens with the ticket alone; the Enqueue's status
    says it). Ctrl-C then leaves the queue."""
    me = await register(api)
    argv = signed_in(backend, tmp_path / "state.json", me).argv
    terminal = Terminal([*argv, "queue", "--mode", "unranked"], {})
    try:
        waiting = await terminal.until(lambda s: "In the Unranked queue" in s, "the queue")
        assert re.search(r"a bot takes the seat at \d+ s", " ".join(waiting.split())), waiting
        terminal.type("\x03")
        await terminal.until(lambda s: "Left the queue." in s, "leaving the queue")
    finally:
        terminal.close()


async def test_a_custom_practice_plays_the_rules_chosen(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """``practice --mode custom`` takes a table's rules (here a 4x4 board, Elemental,
    Sudden Death): the match plays them, untraded."""
    me = await register(api)
    client = signed_in(backend, tmp_path / "state.json", me)
    started = client.json(
        "practice", "--mode", "custom", "--board", "4x4", "--elemental", "--sudden-death"
    )
    rules = started["view"]["rules"]
    assert started["view"]["mode"] == "MODE_PRACTICE"
    assert started["view"]["originMode"] == "MODE_CUSTOM"
    assert rules["board"]["rows"] == rules["board"]["columns"] == 4
    assert rules["elemental"] and rules["suddenDeath"]
    assert rules.get("tradeRule", "TRADE_RULE_NONE") == "TRADE_RULE_NONE"
    assert len(started["view"]["myHand"]) == 8
    # forfeit alone names the active match (found from outside: its id was required)
    assert client.json("forfeit")["matchId"] == started["matchId"]


async def test_a_card_on_an_elemental_mark_shows_its_plus_or_minus_one_on_the_terminal(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """A custom practice with Elemental in an 80x24 terminal: the player puts a card on
    a marked cell; the cell shows its element and +1 (the card's element) or -1 (any
    other, or none), and the values drawn are the adjusted ones."""
    me = await register(api)
    argv = signed_in(backend, tmp_path / "state.json", me).argv
    for _ in range(3):  # each cell is marked with p = 1/3: a board may have none
        terminal = Terminal([*argv, "practice", "--mode", "custom", "--elemental"], {})
        try:
            await terminal.until(lambda s: "Elemental" in s, "the match")
            await terminal.until(lambda s: "Your turn" in s, "the player's turn", timeout=30)
            view = (
                await api.GetActiveMatch(g.GetActiveMatchRequest(), metadata=bearer(me.tokens))
            ).view
            marked = [c for c in view.board if c.mark and c.WhichOneof("content") == "empty"]
            if not marked:
                terminal.type("q\r")
                await terminal.until(lambda s: "Forfeit this match?" in s, "the question")
                terminal.type("y\r")  # q asks first
                await terminal.until(lambda s: "you forfeited." in s, "the forfeit")
                continue
            cell = marked[0]
            card = view.my_hand[0].card
            element = pb.Element.Name(cell.mark).removeprefix("ELEMENT_").lower()
            bonus = "+1" if card.character.element == cell.mark else "-1"
            terminal.type(f"0 {cell.index}\r")
            screen = await terminal.until(
                lambda s, c=cell.index: f"({c})" not in s, "the card on the marked cell"
            )
            assert f"{element}{bonus}" in screen, screen
            placed = (
                await api.GetMatchView(
                    g.GetMatchViewRequest(match_id=view.match_id), metadata=bearer(me.tokens)
                )
            ).view.board[cell.index]
            top = placed.card.adjusted_sides.top
            assert top == max(1, min(10, card.printed_sides.top + int(bonus)))
            terminal.type("q\r")
            await terminal.until(lambda s: "Forfeit this match?" in s, "the question")
            terminal.type("y\r")  # q asks first
            await terminal.until(lambda s: "you forfeited." in s, "the forfeit")
            return
        finally:
            terminal.close()
    pytest.skip("three Elemental boards without a marked cell")


async def test_switch_from_another_terminal_leaves_the_queue_screen_its_session(
    api: Any, backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: `switch` typed in a second terminal while the queue screen
    ran in the first opened a session of its own (taking the player's), printed "No
    active match and no ticket: waiting" and ended. The queue screen plays the match."""
    ann = await join(api)
    screen = await Session.open(ann)  # the first terminal's queue screen
    client = Client(backend, tmp_path / "state.json")
    client.json("login", ann.name, "--password", PASSWORD)
    client.json("enqueue", "ranked")
    said = client.run("switch", "--level", "novice")
    assert said.returncode == 0, said
    assert " ".join(said.stdout.split()).endswith(
        "Your queue screen plays it; else triad-client play."
    )
    found = await screen.wait_for(lambda p: p.HasField("match_view"))
    assert found.match_view.mode == pb.MODE_PRACTICE
    assert not any(p.HasField("session_closed") for p in screen.pushes)
    await ann.call("Forfeit", g.ForfeitRequest(request_id="f", match_id=found.match_view.match_id))
    await screen.close()


async def test_a_board_the_players_copies_cannot_fill_names_house_hands(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """Found from outside: `practice --board 5x5` of a new player (10 starter copies, a
    hand of 13 needs 13 characters) was refused with what a deck needs and 'a booster
    brings more', no word of --house-hands, which deals both hands from the catalog
    (RULES.md 11); nor was `host --board 5x5`. A 4x4 board the same, for a player whose
    free copies make no hand of 8 (three listed on the Auction House, so locked). A 3x3
    board deals no house hands: its refusal does not name the option."""
    me, other = await register(api), await register(api)
    client = signed_in(backend, tmp_path / "state.json", me)
    for command in ("practice", "host", "challenge"):
        named = [other.player.player_name] if command == "challenge" else []
        line = client.fails(command, *named, "--board", "5x5")
        assert "no legal deck of 13" in line and "--house-hands" in line, line
    copies = [e["copy"]["copyId"] for e in client.json("collection")["entries"]]
    for copy_id in copies[:3]:
        client.json("auction", "list", copy_id, "1000")
    line = client.fails("practice", "--board", "4x4")
    assert "no legal deck of 8" in line and "--house-hands deals both hands" in line, line
    for copy_id in copies[3:6]:
        client.json("auction", "list", copy_id, "1000")
    line = client.fails("practice")
    assert "no legal deck of 5" in line and "house" not in line, line
    dealt = client.json("practice", "--board", "4x4", "--house-hands")
    assert len(dealt["view"]["myHand"]) == 8, "the option helps: both hands dealt"
    client.json("forfeit", dealt["matchId"])


async def test_a_realm_practice_from_the_terminal_plays_house_hands_against_a_bot(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """Found from outside: the API took a Realm practice (RULES.md 17), the terminal's
    `practice` had no --realm. `practice --realm all` on an 80x24 terminal: a Realm
    table, house hands (a Realm table plays no Random decks), the hexes in the hand and
    a move with Lair told under the board."""
    me = await register(api)
    argv = signed_in(backend, tmp_path / "state.json", me).argv
    terminal = Terminal([*argv, "practice", "--realm", "all", "--level", "novice"], {})
    try:
        screen = await terminal.until(lambda s: "Realm: all modules" in s, "the Realm match")
        screen = await terminal.until(lambda s: "Your turn" in s, "the player's turn", timeout=30)
        view = (
            await api.GetActiveMatch(g.GetActiveMatchRequest(), metadata=bearer(me.tokens))
        ).view
        assert view.mode == pb.MODE_PRACTICE and view.origin_mode == pb.MODE_CUSTOM
        assert view.rules.family == pb.RULES_FAMILY_REALM and view.rules.house_hands
        assert view.rules.realm.cursed and view.rules.realm.lair
        # each hand card's hex by its letter after its type and alignment: 'Dra CE ★ E'
        assert re.search(r"[A-Z][a-z]{2} [A-Z]{2} (★ )?[WERSB] ", screen), screen
        cell = next(c.index for c in view.board if c.WhichOneof("content") == "empty")
        terminal.type(f"0 {cell} lair\r")
        await terminal.until(lambda s: "Lair spent: you" in s, "the Lair told under the board")
        terminal.type("q\r")
        await terminal.until(lambda s: "Forfeit this match?" in s, "the question")
        terminal.type("y\r")
        await terminal.until(lambda s: "you forfeited." in s, "the forfeit")
    finally:
        terminal.close()
