"""Drafts, boosters and tables from ``triad-client`` against the whole backend (every
service a process, TLS gateway): a draft revealed and picked from the client, and
drafted and played on an 80x24 terminal; boosters recomputed in the client from the
revealed seed; tables listed by rule, closed and joined.
"""

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
from tests.e2e.client_runs import signed_in
from tests.e2e.end_to_end import register

pytestmark = pytest.mark.integration


async def test_a_draft_is_revealed_and_picked_from_the_client(
    api: Any,
    backend: Stack,
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
    api: Any,
    backend: Stack,
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
    fives = high = 0  # 5★ cards, and 4★-or-higher cards, chosen so far
    for stars, booster, index, card in cards:
        five, four_up = int(stars == 5), int(stars >= 4)
        if card.character.character_id in characters or fives + five > 1 or high + four_up > 2:
            continue
        chosen.append((booster, index, card.card_id))
        characters.add(card.character.character_id)
        fives, high = fives + five, high + four_up
    assert len(chosen) >= 5, f"no legal deck among the revealed cards: {cards}"
    return chosen[:5]


async def test_a_person_drafts_a_deck_on_the_terminal_and_plays_it(
    api: Any,
    backend: Stack,
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
                lambda s, k=n + 1: (
                    f"Picked {k} of 5" in s
                    or "Draft complete" in s
                    or (k == 5 and "Your deck is complete" in s)
                ),
                "the pick",
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
        await terminal.until(lambda s: "Forfeit this match?" in s, "the question")
        terminal.type("y\r")  # q asks first
        end = await terminal.until(lambda s: "Rating (Draft): 1500 -> " in s, "the rating change")
        assert re.search(r"You lose at \d+-\d+: you forfeited\.", end), end
        assert re.search(r"Rating \(Draft\): 1500 -> 1\d{3} \(-\d+\)\.", end), end
        assert terminal.process.wait(timeout=30) == 0
    finally:
        terminal.close()


async def test_tables_are_listed_by_rule_closed_and_joined_from_the_client(
    api: Any,
    backend: Stack,
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
