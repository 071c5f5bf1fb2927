"""Every mode from ``triad-client`` against the whole backend (every service a process,
TLS gateway): a practice match played on an 80x24 terminal as a person sees it (the
rules line, a capture highlighted with its cause, the summary at the end); the switch
from a queue to a practice bot; a draft revealed and picked from the client; boosters
recomputed in the client from the revealed seed."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import bearer
from devtools.stack import Stack
from devtools.terminal import Terminal
from tests.e2e.test_client import signed_in

# The end-to-end backend (every service a process) and a TLS stub to its gateway; a
# test here asking for them shadows these names (F811).
from tests.e2e.test_end_to_end import api, backend, greedy_move, register  # noqa: F401

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
    api: Any,  # noqa: F811
    backend: Stack,  # noqa: F811
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
    api: Any,  # noqa: F811
    backend: Stack,  # noqa: F811
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


async def test_a_draft_is_revealed_and_picked_from_the_client(
    api: Any,  # noqa: F811
    backend: Stack,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Ann queues for Draft with the client, Bea through the API; once paired, Ann opens
    a booster and picks a card with ``triad-client draft``; a hidden card is refused
    before any call, and the draft shows her pick and Bea's count, never Bea's cards."""
    ann, bea = await register(api), await register(api)
    client = signed_in(backend, tmp_path / "state.json", ann)
    assert client.json("enqueue", "draft")["ticket"]["mode"] == "MODE_DRAFT"
    await api.Enqueue(
        g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_DRAFT), metadata=bearer(bea.tokens)
    )
    for _ in range(150):
        status = (
            await api.GetPlayerStatus(g.GetPlayerStatusRequest(), metadata=bearer(ann.tokens))
        ).status
        if status.draft_id:
            break
        await asyncio.sleep(0.2)
    assert status.draft_id, "never paired for the draft"
    shown = client.json("draft")
    assert shown["draftId"] == status.draft_id and shown["opponentName"] == bea.player.player_name
    assert all("hidden" in s for b in shown["boosters"] for s in b["slots"])
    opened = client.json("draft", "reveal", "0")
    booster = opened["boosters"][0]["slots"]
    assert all("revealed" in s for s in booster)
    assert all("hidden" in s for s in opened["boosters"][1]["slots"])
    refused = client.fails("draft", "pick", "1", "0", code=2)
    assert "reveal card 0 of booster 1 first" in refused
    picked = client.json("draft", "pick", "0", "2")
    assert picked["pickedCardIds"] == [booster[2]["revealed"]["cardId"]]
    person = client.run("draft")
    assert person.returncode == 0, person.stderr
    assert "Picked 1 of 5" in person.stdout and "left to pick" in person.stdout
    assert f"Your deck: {booster[2]['revealed']['character']['name']}" in person.stdout


async def test_boosters_are_recomputed_in_the_client_once_the_seed_is_revealed(
    api: Any,  # noqa: F811
    backend: Stack,  # noqa: F811
    tmp_path: Path,
) -> None:
    """``triad-client verify``: the boosters of the seed in force cannot be checked yet;
    with ``--client-seed`` the server seed is revealed and every booster recomputed in
    the client matches what the server drew."""
    me = await register(api)
    client = signed_in(backend, tmp_path / "state.json", me)
    before = client.json("seed")
    drawn = [client.json("booster")["draw"] for _ in range(2)]
    assert {d["serverSeedHash"] for d in drawn} == {before["serverSeedHash"]}
    first = drawn[0]["copies"][0]
    assert client.json("copy", first["copyId"][:8])["copy"] == first  # a copy by its start
    pending = client.json("verify")["boosters"]
    assert [b["drawId"] for b in pending] == [d["drawId"] for d in reversed(drawn)]
    assert all(b["pending"] and not b["verified"] for b in pending)
    checked = client.run("verify", "--client-seed", "my own seed")
    assert checked.returncode == 0, checked.stderr
    assert "2 of 2 checkable boosters match the seeds." in checked.stdout
    assert "my own seed" in checked.stdout
    verified = client.json("verify")["boosters"]
    assert all(b["verified"] and not b["problems"] for b in verified), verified
    after = client.json("seed")
    assert after["clientSeed"] == "my own seed"
    assert after["serverSeedHash"] != before["serverSeedHash"]
    assert json.loads(json.dumps(after)).get("nextCounter", "0") in (0, "0")


def legal_picks(draft: pb.DraftView) -> list[tuple[int, int, str]]:
    """Five revealed cards that make a legal deck (RULES.md 2), weakest first: (booster,
    card, draft card id)."""
    cards = sorted(
        (
            (s.revealed.character.stars, b.booster_index, s.card_index, s.revealed)
            for b in draft.boosters
            for s in b.slots
            if s.WhichOneof("card") == "revealed"
        ),
        key=lambda c: c[0],
    )
    chosen: list[tuple[int, int, str]] = []
    characters: set[str] = set()
    for stars, booster, index, card in cards:
        if card.character.character_id in characters or (stars >= 4 and len(chosen) > 2):
            continue
        chosen.append((booster, index, card.card_id))
        characters.add(card.character.character_id)
    return chosen[:5]


async def test_a_person_drafts_a_deck_on_the_terminal_and_plays_it(
    api: Any,  # noqa: F811
    backend: Stack,  # noqa: F811
    tmp_path: Path,
) -> None:
    """``triad-client queue --mode draft`` in an 80x24 terminal: once paired (Bea through
    the API), the three boosters show hidden, ``r B`` opens one, ``p B C`` picks, the
    pick clock runs and the deck grows; when both decks are built the match follows on
    the same screen with the Draft rules, and a forfeit ends it with the Draft rating
    change in the summary."""
    ann, bea = await register(api), await register(api)
    argv = signed_in(backend, tmp_path / "state.json", ann).argv
    terminal = Terminal([*argv, "queue", "--mode", "draft"], {})
    try:
        await terminal.until(lambda s: "In the Draft queue" in s, "the queue")
        await api.Enqueue(
            g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_DRAFT),
            metadata=bearer(bea.tokens),
        )
        screen = await terminal.until(lambda s: "draft > " in s, "the draft")
        assert f"Draft against {bea.player.player_name}" in screen
        assert screen.count("(hidden)") == 15

        def pick_clock(shown: str) -> int | None:
            found = re.search(r"(\d+):(\d\d) left to pick", " ".join(shown.split()))
            return int(found.group(1)) * 60 + int(found.group(2)) if found else None

        first = pick_clock(screen)
        assert first is not None and 150 <= first <= 180, screen  # the 3-minute clock
        await terminal.until(lambda s: (pick_clock(s) or first) < first, "the pick clock running")
        status = (
            await api.GetPlayerStatus(g.GetPlayerStatusRequest(), metadata=bearer(ann.tokens))
        ).status
        for booster in range(3):
            terminal.type(f"r {booster}\r")
            await terminal.until(
                lambda s, b=booster: s.count("(hidden)") == 15 - 5 * (b + 1), "the booster open"
            )
        mine = (
            await api.GetDraft(
                g.GetDraftRequest(draft_id=status.draft_id), metadata=bearer(ann.tokens)
            )
        ).draft
        for n, (booster, index, _) in enumerate(legal_picks(mine)):
            terminal.type(f"p {booster} {index}\r")
            await terminal.until(
                lambda s, k=n + 1: f"Picked {k} of 5" in s or "Draft complete" in s, "the pick"
            )
        theirs = (
            await api.GetDraft(
                g.GetDraftRequest(draft_id=status.draft_id), metadata=bearer(bea.tokens)
            )
        ).draft
        for booster in range(3):
            theirs = (
                await api.RevealDraftCards(
                    g.RevealDraftCardsRequest(
                        request_id=uuid4().hex, draft_id=theirs.draft_id, booster_index=booster
                    ),
                    metadata=bearer(bea.tokens),
                )
            ).draft
        for _, _, card_id in legal_picks(theirs):
            await api.PickDraftCard(
                g.PickDraftCardRequest(
                    request_id=uuid4().hex, draft_id=theirs.draft_id, draft_card_id=card_id
                ),
                metadata=bearer(bea.tokens),
            )
        screen = await terminal.until(lambda s: "Rules: " in s, "the drafted match")
        assert "Rules: Three Open, Same, Plus, Combo (Draft, rated)" in " ".join(screen.split())
        terminal.type("q\r")
        end = await terminal.until(lambda s: "Rating (Draft): 1500 -> " in s, "the rating change")
        assert re.search(r"You lose \d+-\d+: you forfeited\.", end), end
        assert re.search(r"Rating \(Draft\): 1500 -> 1\d{3} \(-\d+\)\.", end), end
        assert terminal.process.wait(timeout=30) == 0
    finally:
        terminal.close()


async def test_a_queued_person_types_b_for_a_practice_bot(
    api: Any,  # noqa: F811
    backend: Stack,  # noqa: F811
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
        terminal.type("q\r")
        await terminal.until(lambda s: "you forfeited." in s, "the forfeit")
        assert terminal.process.wait(timeout=30) == 0
    finally:
        terminal.close()


async def test_tables_are_listed_by_rule_closed_and_joined_from_the_client(
    api: Any,  # noqa: F811
    backend: Stack,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Ann opens a Sudden Death table (``host --json`` leaves it open), Bea lists it
    with filters that fit and not with one that does not; Ann closes it, and it is
    gone; Ann opens another, Bea joins it by the start of its id and the match starts."""
    ann, bea = await register(api), await register(api)
    state = tmp_path / "state.json"
    hosting = signed_in(backend, state, ann)
    guest = signed_in(backend, tmp_path / "bea.json", bea)
    table = hosting.json("host", "--sudden-death", "--no-plus")["table"]
    mine = table["tableId"]

    def listed(*filters: str) -> set[str]:
        return {t["tableId"] for t in guest.json("tables", *filters).get("tables", [])}

    assert mine in listed()
    assert mine in listed("--same", "--no-plus", "--board", "3x3", "--trade", "none")
    assert mine not in listed("--board", "5x5")
    assert mine not in listed("--plus")
    person = guest.run("tables", "--no-plus")
    assert f"{mine[:8]}  {ann.player.player_name}: Three Open, Same, Combo" in person.stdout
    assert "Sudden Death" in person.stdout
    assert hosting.json("close")["table"]["status"] == "TABLE_STATUS_CLOSED"
    assert mine not in listed()
    again = hosting.json("host", "--visibility", "all-open")["table"]["tableId"]
    joined = guest.json("join", again[:8])
    view = (await api.GetActiveMatch(g.GetActiveMatchRequest(), metadata=bearer(ann.tokens))).view
    assert view.match_id == joined["matchId"] and view.mode == pb.MODE_CUSTOM
    assert "no single open table" in guest.fails("join", mine[:8], code=2)
    guest.json("forfeit", view.match_id)


async def test_a_custom_practice_plays_the_rules_chosen(
    api: Any,  # noqa: F811
    backend: Stack,  # noqa: F811
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
    client.json("forfeit", started["matchId"])


async def test_a_card_on_an_elemental_mark_shows_its_plus_or_minus_one_on_the_terminal(
    api: Any,  # noqa: F811
    backend: Stack,  # noqa: F811
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
            await terminal.until(lambda s: "you forfeited." in s, "the forfeit")
            return
        finally:
            terminal.close()
    pytest.skip("three Elemental boards without a marked cell")
