"""The subcommands of ``triad-client`` beyond playing: the catalog, the collection,
decks, the economy (``commands_cards.py``), trades (``commands_trades.py``),
ratings (``commands_ratings.py``), custom tables, Find Game and challenges
(``commands_lobby.py``), the draft (``drafting.py``), the seed commitment and booster
verification (``verify.py``), the Auction House (``commands_auction.py``); here, which
function runs each and its arguments."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import Any

from rich.console import Console

from client import battle as battles
from client import commands_auction, commands_lobby, drafting, verify
from client.arguments import within
from client.commands_auction import auction
from client.commands_cards import (
    ELEMENTS,
    balance,
    booster,
    catalog,
    collection,
    copy,
    deck,
    odds,
)
from client.commands_lobby import (
    accept,
    challenge,
    challenges,
    close,
    decline,
    find,
    host,
    join,
    tables,
)
from client.commands_ratings import LADDERS, history, leaderboard, rating
from client.commands_trades import trade
from client.connection import Holder

COMMANDS: dict[str, Callable[[Holder, argparse.Namespace, Console], Awaitable[int]]] = {
    "catalog": catalog,
    "collection": collection,
    "copy": copy,
    "deck": deck,
    "balance": balance,
    "odds": odds,
    "booster": booster,
    "trade": trade,
    "rating": rating,
    "history": history,
    "leaderboard": leaderboard,
    "host": host,
    "tables": tables,
    "join": join,
    "close": close,
    "find": find,
    "challenge": challenge,
    "challenges": challenges,
    "accept": accept,
    "decline": decline,
    "draft": drafting.draft,
    "seed": verify.seed,
    "verify": verify.verify,
    "auction": auction,
    "battle": battles.battle,
}


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """The subcommands of this module; ``common`` carries the options every
    subcommand takes (--json)."""

    def filters(cmd: argparse.ArgumentParser) -> None:
        cmd.add_argument("--stars", type=within(1, 5), action="append", help="1..5; repeatable")
        cmd.add_argument("--element", choices=[*ELEMENTS, "none"], action="append")
        cmd.add_argument("--name", default="", help="names containing this text")

    filters(sub.add_parser("catalog", parents=[common], help="the characters of the game"))
    owned_cmd = sub.add_parser("collection", parents=[common], help="the copies you own")
    filters(owned_cmd)
    owned_cmd.add_argument("--holo", action=argparse.BooleanOptionalAction, default=None)
    owned_cmd.add_argument("--locked", action=argparse.BooleanOptionalAction, default=None)
    sub.add_parser("copy", parents=[common], help="one of your copies and its lock").add_argument(
        "copy", help="its id (or the start of it)"
    )

    decks = sub.add_parser("deck", parents=[common], help="list, save, validate, delete decks")
    deck_sub = decks.add_subparsers(dest="deck_command", required=True)
    deck_sub.add_parser("list", parents=[common], help="your saved decks and what they break")
    save = deck_sub.add_parser(
        "save", parents=[common], help="save copies as a deck (5; 8 or 13 for the larger boards)"
    )
    save.add_argument("name")
    save.add_argument("copies", nargs="+", help="copy ids (or their first characters)")
    save.add_argument("--id", help="replace this deck instead of saving a new one")
    check = deck_sub.add_parser(
        "validate", parents=[common], help="check copies, a deck or Random (exit 1 if illegal)"
    )
    check.add_argument("copies", nargs="*", help="copy ids (or their first characters)")
    check.add_argument("--id", help="a saved deck: its name, id or the start of it")
    check.add_argument("--random", action="store_true", help="can a Random deck be drawn")
    deleting = deck_sub.add_parser("delete", parents=[common], help="delete a saved deck")
    deleting.add_argument("deck", help="its name, id or the start of it")

    sub.add_parser("balance", parents=[common], help="your coins")
    sub.add_parser("odds", parents=[common], help="booster odds, holo rate, pity progress")
    opener = sub.add_parser("booster", parents=[common], help="buy and open one booster")
    opener.add_argument("--request-id", help="retry a purchase without buying twice")
    opener.add_argument("--expected-hash", help="refuse unless this server seed hash is in force")

    trades = sub.add_parser("trade", parents=[common], help="your pending trade (One, Difference)")
    trade_sub = trades.add_subparsers(dest="trade_command")
    trade_sub.add_parser("show", parents=[common], help="the offer (the default)")
    pick = trade_sub.add_parser("choose", parents=[common], help="take the offered cards you win")
    pick.add_argument(
        "card",
        nargs="+",
        help="its number in the offer (0..4; 0..7 or 0..12 from a 4x4 or 5x5 deck) or its "
        "copy id; Difference: d of them at once",
    )
    pick.add_argument("--request-id")

    for name, text in (
        ("rating", "your rating, record and rank"),
        ("history", "your rating changes, newest first"),
        ("leaderboard", "the top of a ladder and your place"),
    ):
        cmd = sub.add_parser(name, parents=[common], help=text)
        cmd.add_argument("--ladder", choices=sorted(LADDERS), default="ranked")
        cmd.add_argument("--season", type=int, default=0)
        if name == "leaderboard":
            cmd.add_argument("--top", type=within(1, 100), default=10, help="1..100")
    commands_lobby.add_parsers(sub, common)
    drafting.add_parsers(sub, common)
    verify.add_parsers(sub, common)
    commands_auction.add_parsers(sub, common)
    battles.add_parser(sub, common)
