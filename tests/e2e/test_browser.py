"""The browser client in a real browser: headless Chromium (Debian's ``chromium``, driven
by ``playwright-core`` from web/e2e/play.mjs) opens the gateway's web port on a phone's
viewport, registers, plays a whole practice match by clicking, and reads the final
screen; two players meet in the queue, or at a table one of them hosts. The whole
backend runs as processes (devtools/stack.py).

What it needs is installed by ``make test`` (``make web``: the npm packages and the
built page; Chromium with apt when run as root). Where either cannot be had, the test
is skipped and says which, and the command that installs it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devtools.stack import Stack, stack

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
RESULTS = ROOT / "bench" / "results"
CHROMIUM = "/usr/bin/chromium"


def chromium() -> str:
    """Debian's Chromium, installed here with apt when missing and run as root."""
    if Path(CHROMIUM).exists():
        return CHROMIUM
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip("Chromium is not installed: run `sudo apt-get install -y chromium`")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        done = subprocess.run(
            command, check=False, env=env, capture_output=True, text=True, timeout=900
        )
        if done.returncode != 0:
            pytest.skip(
                f"Chromium could not be installed ({' '.join(command)}): {done.stderr[-300:]}"
            )
    return CHROMIUM


def built_client() -> None:
    """web/dist and playwright-core, from ``make web`` (run here if missing)."""
    ready = (WEB / "dist" / "app.js").exists() and (
        WEB / "node_modules" / "playwright-core"
    ).exists()
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed, so nothing can drive Chromium (apt-get install npm)")
    if ready:
        return
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed, so the browser client cannot be built (`make web`)")
    done = subprocess.run(
        ["make", "web"], check=False, cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    if done.returncode != 0:
        pytest.skip(f"`make web` failed, so there is no client to test: {done.stderr[-300:]}")


@pytest.fixture(scope="module")
def backend(
    request: pytest.FixtureRequest,
    shared_database_url: str,
    nats_url: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Stack]:
    """The whole backend, the client built, for every browser module (each imports it),
    with the module's ``STACK_OVERRIDES`` (none by default: the bots as players meet them)."""
    built_client()
    logs = tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])
    overrides = getattr(request.module, "STACK_OVERRIDES", {})
    with stack(shared_database_url, nats_url, logs, overrides=overrides) as running:
        yield running


def play(
    backend: Stack, scenario: str, shot: Path, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run web/e2e/play.mjs's ``scenario`` in Chromium (with ``params``, what the test
    made for it); what it saw, as it printed it."""
    env = {
        **os.environ,
        "TRIAD_WEB_URL": backend.backend.web_url(),
        "TRIAD_SCENARIO": scenario,
        "TRIAD_SCREENSHOT": str(shot),
        "TRIAD_CHROMIUM": chromium(),
        "TRIAD_PARAMS": json.dumps(params or {}),
    }
    done = subprocess.run(["node", "e2e/play.mjs"], check=False, cwd=WEB, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    played: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert played["failures"] == []  # no error in any page
    assert shot.stat().st_size > 10_000
    RESULTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, RESULTS / shot.name)
    return played


def check_final_screen(final: dict[str, Any], phone: dict[str, int]) -> tuple[int, int]:
    """A full 3x3 board on a phone, and the result in words; the two scores."""
    assert final["result"].startswith(("You won", "You lost", "Draw")), final
    assert "the board is full" in final["result"]
    mine, theirs = (int(n) for n in final["result"].split(":")[0].split()[-3::2])
    assert mine + theirs == 10  # nine cells and the card left in one hand
    assert final["cells"] == 9 and final["placed"] == 9
    # The board fits the phone's screen: three square cells a row, the whole of it in view.
    board = final["board"]
    assert board["x"] > 0 and board["x"] + board["width"] <= phone["width"], board
    assert board["height"] <= phone["height"] / 2 and board["width"] > phone["width"] / 2, board
    # The session's pushes were shown as they came.
    assert any("session opened" in line for line in final["pushes"]), final["pushes"]
    return mine, theirs


def test_a_whole_practice_match_played_by_clicking(backend: Stack, tmp_path: Path) -> None:
    played = play(backend, "practice", tmp_path / "browser-practice.png")
    check_final_screen(played, played["viewport"])
    assert played["moves"] in (4, 5)  # the player placed every other card
    assert played["resumed"] >= 3  # reloaded after two moves: the match came back
    assert played["told"].startswith("You have an active battle"), played  # RULES.md 5


def test_two_players_queue_for_ranked_and_the_winner_takes_a_card(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "ranked", tmp_path / "browser-ranked.png")
    ann, bea = played["players"]
    scores = [check_final_screen(final, played["viewport"]) for final in (ann, bea)]
    assert scores[0] == scores[1][::-1]  # the same match, seen from each side
    assert sorted(played["moves"]) in ([4, 5],)
    for final, opponent in ((ann, bea), (bea, ann)):
        assert any(f"match found: against {opponent['name']}" in p for p in final["pushes"])
    # Each was told their rating change and finds it on the Ranked ladder, which other
    # tests' players may share: their place there, and their name when in the top 20.
    for seen, me in zip(played["ladders"], (ann, bea), strict=True):
        change = re.search(r"ranked rating [+-]?\d+: 1500 → (\d+)", seen["change"])
        assert change, seen
        place = re.search(r"You: #(\d+) of \d+, (\d+) \(provisional\) after 1 game\.", seen["mine"])
        assert place and place[2] == change[1], seen
        assert int(place[1]) > 20 or me["name"] in seen["table"], seen
    if scores[0][0] == scores[0][1]:
        assert played["trade"] == []  # a draw trades nothing
        return
    trade = played["trade"]
    assert trade["offered"] == trade["stakes"] == 5 and trade["taken"], "both see the 5"
    # Found from outside: the loser read "Or they are picked at random" of the one card.
    assert "is choosing one of your cards to take." in trade["waiting"], trade
    assert "Or the server picks one at random in" in trade["waiting"], trade
    # Both players are told which card moved, the winner on choosing, the loser by push.
    assert trade["taken"] in trade["winner"] and trade["taken"] in trade["loser"]
    # The trade's prompt reached both sessions, and its result the loser's.
    winner_pushes, loser_pushes = trade["pushes"]
    assert any("trade prompt" in line for line in winner_pushes), winner_pushes
    assert any("trade prompt" in line for line in loser_pushes), loser_pushes
    assert any("trade done" in line for line in loser_pushes), loser_pushes


def test_a_table_hosted_on_a_4x4_board_is_found_joined_and_played_and_a_closed_one_goes(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "tables", tmp_path / "browser-tables.png")
    ann, bea = played["players"]
    # The host's own line and the guest's list say the board and how hands are dealt.
    assert "Waiting for a guest" in played["hosted"], played["hosted"]
    for line in (played["hosted"], played["listed"]):
        assert "4×4" in line and "house hands" in line and "Same" in line, line
    assert ann["name"] in played["listed"]
    scores = []
    for final in (ann, bea):
        assert final["result"].startswith(("You won", "You lost", "Draw")), final
        assert "the board is full" in final["result"]
        assert final["cells"] == 16 and final["placed"] == 16  # the whole 4x4 board
        mine, theirs = (int(n) for n in final["result"].split(":")[0].split()[-3::2])
        assert mine + theirs == 16  # 4x4: sixteen cards down, none left in hand
        scores.append((mine, theirs))
    assert scores[0] == scores[1][::-1]  # one match, seen from each side
    assert played["moves"] == [8, 8]  # eight cards each: every one placed
    # The host followed the match from its pushes: the table started, the match found.
    assert any("your table started" in line for line in played["pushes"]), played["pushes"]
    assert any(f"match found: against {bea['name']}" in p for p in played["pushes"])
    assert played["closedTable"]
    closed = [line for line in played["pushes"] if "your table closed" in line]
    assert len(closed) == 1, played["pushes"]  # found from outside: told twice
    # Found from outside: Join on a table closed since the list was read said "table
    # 68c9fffd is not open any more", and the row stayed, Join and all, until another look.
    assert played["refused"] == (
        f"{ann['name']}'s table is not open any more: its host closed it; look for tables again"
    ), played


def test_a_challenge_is_accepted_another_declined_and_find_game_joins_a_public_table(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "challenges", tmp_path / "browser-challenges.png")
    ann, bea = played["names"]
    assert f"Your challenge to {bea}" in played["hosted"], played["hosted"]
    assert f"{ann} challenges you" in played["offer"], played["offer"]
    for match in (played["accepted"], played["found"]):
        # One match between the two, forfeited by Ann: she lost, Bea won, both were told.
        assert match["first"]["result"].startswith("You lost"), match
        assert "forfeited" in match["first"]["result"]
        assert match["second"]["result"].startswith("You won"), match
        assert any(f"match found: against {bea}" in p for p in match["first"]["pushes"])
        assert any(f"match found: against {ann}" in p for p in match["second"]["pushes"])
    assert any(f"challenge from {ann}" in p for p in played["accepted"]["second"]["pushes"])
    # Found from outside: told "your table declined"; the challenger is told who declined.
    assert any(f"{bea} declined your challenge" in line for line in played["declined"]), played
    assert played["declinedNotice"] == f"{bea} declined your challenge.", played
    # Find Game found the table with the rules chosen.
    rules = played["found"]["rules"]
    assert "all open" in rules and "Elemental" in rules and "Same Wall" in rules, rules


def test_a_booster_is_opened_a_deck_built_and_played_in_practice(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "cards", tmp_path / "browser-cards.png")
    before, after = played["before"], played["after"]
    # The booster's cards were shown and joined the collection; its price was spent.
    assert played["opened"] > 0
    assert after["owned"] == before["owned"] + played["opened"], played
    assert after["coins"] < before["coins"], played
    # Four copies are refused, in the server's words; five are saved and listed.
    assert "this one holds 4" in played["refused"], played["refused"]
    assert len(played["chosen"]) == 5
    assert "Web deck" in played["saved"]
    for name in played["chosen"]:
        assert name in played["saved"], (name, played["saved"])
    # The practice match was dealt exactly the deck's five cards.
    assert sorted(played["hand"]) == sorted(played["chosen"]), played


def test_two_players_draft_five_cards_each_and_play_the_match_with_them(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "draft", tmp_path / "browser-draft.png")
    ann, bea = played["players"]
    scores = [check_final_screen(final, played["viewport"]) for final in (ann, bea)]
    assert scores[0] == scores[1][::-1]  # one match, seen from each side
    # Each was dealt exactly the five cards they drafted, in the match the draft started.
    for picked, hand in zip(played["picked"], played["hands"], strict=True):
        assert len(picked) == 5 and sorted(hand) == sorted(picked), (picked, hand)
    assert sorted(played["moves"]) == [4, 5]
    assert re.fullmatch(r"[1-5]★", played["stars"]), played  # what the deck rules count


def test_at_a_desk_window_the_match_fits_and_keys_and_typing_keep_their_place(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "desk", tmp_path / "browser-desk.png")
    # House hands never trade: no trade rule offered at 4×4, one at 3×3.
    assert not played["tradeAt4"] and played["tradeAt3"], played
    # Found from outside: "Open a table" and "Open a Skirmish battle" touched, one button.
    assert played["hostGap"] >= 4, played
    # Find Game's refusal names the page's button, not the API's call.
    assert "Open a table" in played["findRefusal"], played
    assert "CreateTable" not in played["findRefusal"], played
    # A queue push drew the page again as the player typed: every key kept, and the focus.
    assert played["typed"] == "abcdef" and played["typingFocus"] == "challenged", played
    # A card picked with Enter keeps the focus; Shift+Tab and Enter place it.
    assert played["pickedFocus"] == played["card"] and played["cell"] != "", played
    # The hand and Forfeit in a 1280x800 window, without scrolling.
    fits = played["fits"]
    assert fits["forfeit"] <= fits["height"] and fits["board"] > 300, fits
    assert any("balance: " in line and " coins" in line for line in played["pushes"])


def test_a_difference_winner_taps_d_cards_and_takes_them(backend: Stack, tmp_path: Path) -> None:
    played = play(backend, "difference", tmp_path / "browser-difference.png")
    assert "closed" in played["hosted"] and "Trade difference" in played["hosted"], played
    scores = [check_final_screen(final, played["viewport"]) for final in played["players"]]
    trade = played["trade"]
    if scores[0][0] == scores[0][1]:
        assert trade is None  # a draw trades nothing
        return
    # d is the difference of the scores, capped at the deck size (RULES.md 13).
    winner = max(scores[0])
    d = min(5, winner - (10 - winner))
    assert trade["d"] == d, (trade, scores)
    assert "is choosing" in trade["waiting"], trade
    for said in (trade["winner"], trade["loser"]):
        for name in trade["names"]:
            assert name in said, (name, said)
    if d > 1:
        # The button says what is left to do (found from outside: a third card tapped
        # read "Take these 3 of 2", disabled, nothing saying to put one back).
        labels = [f"Pick {d - n} more" for n in range(d)]
        if d < 5:  # a card beyond the d to tap, then put back
            labels.append("1 too many: tap one to put it back")
        assert trade["labels"] == [*labels, f"Take these {d}"], trade


def test_a_queued_player_switches_to_practice_then_forfeits(backend: Stack, tmp_path: Path) -> None:
    played = play(backend, "switched", tmp_path / "browser-switched.png")
    assert played["refusal"] == "unknown player name or wrong password", played
    # Found from outside: a Register the browser stopped (a password too short) left
    # "wrong password" on the page beside the browser's own words.
    assert played["refusalLeft"] is False, played
    assert "In the unranked queue" in played["queued"], played
    assert played["result"].startswith("You lost") and "forfeited" in played["result"], played
    assert "In the unranked queue" not in played["lobby"]  # the ticket was given up
    assert any("left the queue for a practice match" in line for line in played["pushes"])
    assert played["afterLogout"] == ""  # logged out without a refusal, back at the form
    # Found from outside: the refused name was wiped from the form, and the push log
    # kept the last player's lines for the next person at the page.
    assert played["kept"] and played["logAfterLogout"] == 0, played


def test_a_realm_table_is_hosted_with_every_module_played_and_its_state_drawn(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "realm", tmp_path / "browser-realm.png")
    ann, bea = played["players"]
    # The host's line, the guest's list and the match's rules line name Realm and its modules.
    modules = ("Realm", "Type Advantage", "Alignment Clash", "Lair", "Resistance", "Cursed")
    for line in (played["hosted"], played["listed"], played["rules"]):
        assert all(word in line for word in modules), line
    assert "4×4" in played["hosted"] and "house hands" in played["listed"], played
    # The hands show each card's creature type and alignment ("Dra CE", "★" if Legendary).
    tags = played["tags"]
    assert len(tags) == 8 and all(re.fullmatch(r"\w{3} [LNC][GNE]( ★)?", t) for t in tags), tags
    for start in played["start"]:
        assert start["lines"][:3] == [
            "Lair spent: nobody",
            "Resistance spent: nobody",
            "Draw pile: 10 left",
        ], start
    # Lair: offered to the first mover, declared, then spent for them and offered no more.
    lair = played["lair"]
    by, other = lair["by"], 1 - lair["by"]
    assert played["offers"][by][0] == 1 and set(played["offers"][by][1:]) == {0}, played["offers"]
    declarer, opponent = lair["after"][by], lair["after"][other]
    assert "Lair spent: you" in declarer["lines"], declarer
    assert "Lair spent: them" in opponent["lines"], opponent
    assert any(line.startswith("Last move: Lair") for line in declarer["lines"]), declarer
    # Cursed: every card on the board carries its hex, drawn in its cell; the last move's
    # comparisons were told by the cards' names ("Ifrit beat Shiva, 7 v 4"): the board
    # shows no cell numbers.
    assert played["seen"]["hexes"] >= 15, played["seen"]
    for final in played["end"]:
        assert len(final["hexNames"]) == 16, final
        assert set(final["hexNames"]) <= {"ward", "ember", "rot", "silence", "bind"}, final
    told = r"[A-Za-z] (beat|did not beat) [A-Z].*, -?\d+ v -?\d+"
    assert any(re.search(told, line) for line in played["seen"]["lines"]), played["seen"]
    scores = []
    for final in (ann, bea):
        assert final["result"].startswith(("You won", "You lost", "Draw")), final
        assert "the board is full" in final["result"]
        assert final["cells"] == 16 and final["placed"] == 16
        scores.append(tuple(int(n) for n in final["result"].split(":")[0].split()[-3::2]))
    assert scores[0] == scores[1][::-1]  # one match, seen from each side
    assert played["moves"] == [8, 8]


def test_a_tied_sudden_death_round_shows_round_two_and_how_round_one_ended(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "sudden", tmp_path / "browser-sudden.png")
    assert "Sudden Death" in played["hosted"] and "all open" in played["hosted"], played
    assert len(played["line"]) == 9
    for seen in played["roundOne"]:
        assert seen == {"round": "Round 1 of at most 5", "earlier": [], "placed": 0, "hand": 5}
    # Round 2: an empty board, each hand every card its player owned (5-5), round 1 told.
    for i, seen in enumerate(played["roundTwo"]):
        assert seen["round"] == "Round 2 of at most 5", seen
        who = "you" if (i == 0) == played["firstIsAnn"] else "they"  # placed first
        assert seen["earlier"] == [f"Round 1: 5–5, {who} placed first"], seen
        assert seen["placed"] == 0 and seen["hand"] == 5, seen
    # RULES.md 12: round 1's final board, full, the move that filled it marked.
    assert played["finalBoard"] == {"cells": 9, "last": [played["line"][-1][1]], "board": 0}
    desk = played["desk"]  # at 1280x720: opened beside the board, which keeps its size
    assert desk["open"]["width"] >= desk["closed"]["width"] - 1 >= desk["final"]["width"], desk
    assert desk["final"]["width"] >= 100 and desk["final"]["right"] <= desk["open"]["left"], desk
    ann, bea = played["results"]
    assert ann.startswith("You lost") and "forfeited" in ann and bea.startswith("You won"), bea
    for seen in played["ended"]:  # the finished match still says its round
        assert seen["round"] == "Round 2 of at most 5" and len(seen["earlier"]) == 1, seen


def test_a_3x3_realm_table_hosted_without_a_deck_deals_house_hands(
    backend: Stack, tmp_path: Path
) -> None:
    """RULES.md 11 and 17: a Realm table plays house hands or saved decks, on 3x3 too; the
    host form of a player with no saved deck asks for house hands, so the table opens and
    both are dealt five cards from the catalog."""
    played = play(backend, "realmSmall", tmp_path / "browser-realm-3x3.png")
    assert "Realm" in played["hosted"] and "house hands" in played["hosted"], played
    assert "house hands" in played["listed"], played
    assert played["hands"] == [5, 5] and played["cells"] == 9, played
    assert "Realm" in played["rules"], played
