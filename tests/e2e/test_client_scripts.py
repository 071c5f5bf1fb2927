"""``triad-client`` as a script uses it: each subcommand run as a process with
``--json`` against the whole backend (every service a process, TLS gateway), its
output read back and checked against what the gateway says next: browsing, a deck, a
booster, the ladder, and the card the winner of a Ranked match takes.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.players import PASSWORD, bearer
from devtools.processes import ROOT
from devtools.stack import Stack
from tests.e2e.client_runs import Client, signed_in
from tests.e2e.end_to_end import active_view, enqueue, play, register

pytestmark = pytest.mark.integration


NOWHERE = "127.0.0.1:9"  # discard: nothing listens


def legal_five(entries: list[dict[str, Any]]) -> list[str]:
    """Five copies that make a legal deck (RULES.md 2): five characters, at most one
    5-star and at most two of 4 stars or more, weakest first."""
    chosen: list[str] = []
    characters: set[str] = set()
    high = five = 0
    for entry in sorted(entries, key=lambda e: e["copy"]["character"]["stars"]):
        copy = entry["copy"]
        stars = copy["character"]["stars"]
        if copy["character"]["characterId"] in characters or "lock" in entry:
            continue
        if (stars >= 4 and high == 2) or (stars == 5 and five == 1):
            continue
        chosen.append(copy["copyId"])
        characters.add(copy["character"]["characterId"])
        high, five = high + (stars >= 4), five + (stars == 5)
        if len(chosen) == 5:
            return chosen
    raise AssertionError("the starter collection holds no legal deck")


def test_a_script_browses_builds_a_deck_opens_a_booster_and_reads_the_ladder(
    backend: Stack,
    tmp_path: Path,
) -> None:
    client = Client(backend, tmp_path / "state.json")
    name = f"s{uuid4().hex[:12]}"
    assert client.json("register", name, "--password", PASSWORD)["playerName"] == name
    # Found from outside: `status` printed raw JSON without --json.
    said = client.run("status")
    assert said.returncode == 0 and said.stdout.startswith(f"{name}: 300 coins."), said.stdout
    assert "Nothing going on" in said.stdout and "{" not in said.stdout

    catalog = client.json("catalog")
    assert catalog["totalSize"] == len(catalog["characters"]) == 112  # every page
    five_stars = client.json("catalog", "--stars", "5")["characters"]
    assert five_stars and all(c["stars"] == 5 for c in five_stars)

    entries = client.json("collection")["entries"]
    assert entries and all(e["copy"]["ownerPlayerId"] for e in entries)
    deck = legal_five(entries)

    # An illegal deck: the same character twice is named as the rule it breaks.
    twice = [deck[0], deck[0], *deck[1:4]]
    checked = client.run("deck", "validate", *twice, "--json")
    assert checked.returncode == 1, checked.stderr
    rules = {v["rule"] for v in json.loads(checked.stdout)["violations"]}
    assert "DECK_RULE_DISTINCT_COPIES" in rules
    short = client.run("deck", "validate", *deck[:2])  # a person reads the rule
    assert short.returncode == 1 and "five_cards" in short.stdout
    refused = client.fails("deck", "save", "twice", *twice)
    assert refused.startswith("triad-client: invalid argument: ")
    assert "each copy can be in a deck once" in refused

    # A legal deck, given as the first characters of the copy ids a person sees.
    assert client.json("deck", "validate", *deck) == {"valid": True, "violations": []}
    saved = client.json("deck", "save", "first deck", *(c[:8] for c in deck))
    assert saved["copyIds"] == deck and not saved["violations"]
    listed = client.json("deck", "list")["decks"]
    assert [d["deckId"] for d in listed] == [saved["deckId"]]
    assert client.json("deck", "validate", "--id", saved["deckId"][:8])["valid"]
    assert client.json("deck", "delete", saved["deckId"])["deleted"]
    assert client.json("deck", "list")["decks"] == []  # found from outside: {} had no key

    coins = int(client.json("balance")["coins"])
    odds = client.json("odds")
    price = int(odds["odds"]["priceCoins"])
    assert price > 0 and odds["odds"]["cardsPerBooster"] == 5
    shown = client.run("odds")  # the Draft's odds too, on the screen (found from outside)
    assert shown.returncode == 0 and "A Draft's boosters" in shown.stdout, shown
    assert len(odds["draftSlots"]) == 5, odds
    assert coins >= price, "a new player can afford a booster"
    opened = client.json("booster")
    drawn = [c["copyId"] for c in opened["draw"]["copies"]]
    assert len(drawn) == 5
    assert int(opened["balance"]["coins"]) == coins - price
    assert int(client.json("balance")["coins"]) == coins - price
    after = {e["copy"]["copyId"] for e in client.json("collection")["entries"]}
    assert after == {e["copy"]["copyId"] for e in entries} | set(drawn)
    assert len(after) == len(entries) + 5

    rating = client.json("rating")
    assert rating["rating"] == 1500 and rating["games"] == 0  # a zero is printed
    assert client.json("history", "--ladder", "draft")["changes"] == []
    board = client.json("leaderboard", "--top", "5")
    assert len(board["entries"]) <= 5 and "myEntry" not in board  # no rated game
    assert client.json("trade") == {}  # no pending trade

    # Errors are one line a person can act on.
    typed = client.run("leaderboard", "--top", "500")  # argparse's own usage and error
    assert typed.returncode == 2 and "--top: must be 1..100, not 500" in typed.stderr
    assert "none of your copies" in client.fails("deck", "validate", "nosuchcopy", code=2)
    assert "Trade One" in client.fails("trade", "choose", "0", code=2)
    nowhere = Client(backend, tmp_path / "state.json", address=NOWHERE)
    assert "make run" in nowhere.fails("balance")
    said = client.fails("--profile", "nobody", "balance", code=2)
    assert "run triad-client --profile nobody login NAME (or register NAME)" in said, said


async def test_the_winner_of_a_ranked_match_takes_a_card_with_the_client(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """Two players meet in Ranked (through the API); the winner sees the offer and
    takes a card with ``triad-client trade``, and both read their new ratings with it."""
    ann, bea = await register(api), await register(api)
    state = tmp_path / "state.json"
    state.write_text(
        json.dumps(
            {
                me.player.player_name: {
                    "player_id": me.player.player_id,
                    "player_name": me.player.player_name,
                    "access_token": me.tokens.access_token,
                    "refresh_token": me.tokens.refresh_token,
                }
                for me in (ann, bea)
            }
        )
    )
    client = Client(backend, state)
    games = 0
    while games < 3:  # a draw trades nothing: play again (RULES.md 7)
        games += 1
        for me in (ann, bea):
            await enqueue(api, me, pb.MODE_RANKED)
        view = await active_view(api, ann)
        final = await play(api, [ann, bea], view.match_id, greedy=frozenset({ann.player.player_id}))
        if final.outcome.WhichOneof("result") != "draw":
            break
    else:
        pytest.skip("three draws in a row: Trade One trades nothing (RULES.md 7)")
    ann_view = (
        await api.GetMatchView(
            g.GetMatchViewRequest(match_id=view.match_id), metadata=bearer(ann.tokens)
        )
    ).view
    winner, loser = (ann, bea) if final.outcome.winner_seat == ann_view.my_seat else (bea, ann)

    offer: dict[str, Any] = {}
    for _ in range(100):
        offer = await asyncio.to_thread(client.json, "trade", profile=winner.player.player_name)
        if offer.get("trade", {}).get("offeredCopies"):
            break
        await asyncio.sleep(0.2)
    trade = offer["trade"]
    assert trade["myRole"] == "TRADE_ROLE_CHOOSER" and len(trade["offeredCopies"]) == 5
    assert trade["loserName"] == loser.player.player_name
    wanted = trade["offeredCopies"][2]["copyId"]
    loser_sees = client.json("trade", profile=loser.player.player_name)["trade"]
    assert loser_sees["myRole"] == "TRADE_ROLE_GIVER"

    chosen = client.json("trade", "choose", "2", profile=winner.player.player_name)
    assert chosen["chosenCopyId"] == wanted
    assert chosen["status"] in ("TRADE_STATUS_CHOSEN", "TRADE_STATUS_COMPLETED")
    again = client.run("trade", "choose", "3", profile=winner.player.player_name)
    assert again.returncode != 0 and "Traceback" not in again.stderr  # once only

    def owns(me: g.RegisterResponse) -> set[str]:
        entries = client.json("collection", profile=me.player.player_name).get("entries", [])
        return {e["copy"]["copyId"] for e in entries}

    for _ in range(50):
        if wanted in await asyncio.to_thread(owns, winner):
            break
        await asyncio.sleep(0.2)
    assert wanted in owns(winner) and wanted not in owns(loser)

    rating: dict[str, Any] = {}
    for _ in range(100):
        rating = client.json("rating", profile=winner.player.player_name)
        if rating.get("games") == games:
            break
        await asyncio.sleep(0.2)
    assert rating["rating"] == 1520 and rating["wins"] == 1
    changes = client.json("history", profile=loser.player.player_name)["changes"]
    assert changes[0]["delta"] == -20 and changes[0]["opponentName"] == winner.player.player_name
    board = client.json("leaderboard", "--top", "100", profile=winner.player.player_name)
    assert board["myEntry"]["playerName"] == winner.player.player_name
    assert board["myEntry"]["rating"] == 1520


async def test_the_winner_picks_the_card_at_the_end_of_the_match_in_the_client(
    api: Any,
    backend: Stack,
    tmp_path: Path,
) -> None:
    """``triad-client play`` follows a Ranked match (the moves are made through the
    API); when its player wins, it asks for the card to take (the offer read from a
    pipe here, as keys in a terminal), and the number given is the card that moves."""
    ann, bea = await register(api), await register(api)
    argv = signed_in(backend, tmp_path / "state.json", ann).argv

    async def offer(me: g.RegisterResponse) -> pb.Trade:
        for _ in range(150):
            trade = (
                await api.GetPendingTrade(g.GetPendingTradeRequest(), metadata=bearer(me.tokens))
            ).trade
            if trade.offered_copies:
                return trade
            await asyncio.sleep(0.2)
        raise AssertionError("no Trade One offer")

    for _ in range(4):  # until Ann (greedy) wins: a draw or a loss gives her no pick
        client = subprocess.Popen(
            [*argv, "play"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        try:
            await asyncio.sleep(1)  # its session opened: it waits for the match
            for me in (ann, bea):
                await enqueue(api, me, pb.MODE_RANKED)
            view = await active_view(api, ann)
            final = await play(
                api, [ann, bea], view.match_id, greedy=frozenset({ann.player.player_id})
            )
            mine = (
                await api.GetMatchView(
                    g.GetMatchViewRequest(match_id=view.match_id), metadata=bearer(ann.tokens)
                )
            ).view
            result = final.outcome.WhichOneof("result")
            if result == "draw" or final.outcome.winner_seat != mine.my_seat:
                out, err = client.communicate(timeout=30)  # no pick: it ends
                assert client.returncode == 0, err
                if result != "draw":  # Bea takes her card, so that Ann may queue again
                    trade = await offer(bea)
                    await api.ChooseTradeCard(
                        g.ChooseTradeCardRequest(
                            request_id=uuid4().hex,
                            trade_id=trade.trade_id,
                            copy_id=trade.offered_copies[0].copy_id,
                        ),
                        metadata=bearer(bea.tokens),
                    )
                continue
            wanted = (await offer(ann)).offered_copies[3]
            # A line given while the client still shows the match is a move: give the
            # pick once it has had time to see the end (it asks for the offer each
            # second; on a pipe nothing is drawn to wait for).
            await asyncio.sleep(5)
            out, err = await asyncio.to_thread(client.communicate, "3\n", 60)
            assert client.returncode == 0, err
            assert bea.player.player_name in out, out  # the offer: whose cards
            assert f"{wanted.character.name} " in out and f"to {ann.player.player_name}" in out
            break
        finally:
            if client.poll() is None:
                client.kill()
                client.wait()
    else:
        pytest.skip("Ann never won in four games")
    for _ in range(50):
        owned = await api.ListCollection(
            g.ListCollectionRequest(page_size=200), metadata=bearer(ann.tokens)
        )
        if wanted.copy_id in {e.copy.copy_id for e in owned.entries}:
            return
        await asyncio.sleep(0.2)
    raise AssertionError("the card picked in the client never reached the winner")


def test_a_gateway_whose_certificate_is_not_trusted_is_told_so_in_one_line(
    backend: Stack, tmp_path: Path
) -> None:
    """Found from outside: run outside the repository root, the client trusted no
    development certificate and said "cannot reach the gateway: is `make run`
    running?" under a gRPC log line, though the gateway ran."""
    done = subprocess.run(
        [sys.executable, "-m", "client.main", "--addr", backend.gateway.address,
         "--state", str(tmp_path / "state.json"), "login", "ann", "--password", PASSWORD],
        capture_output=True, text=True, check=False, timeout=90, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 1, done
    assert done.stderr.splitlines() == [
        "triad-client: the gateway's certificate is not trusted: pass --ca CERT (make run's "
        "is .run/tls/gateway-dev.crt in the checkout)"
    ], done.stderr
