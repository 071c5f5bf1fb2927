"""Find Game and challenges as subcommands of ``triad-client`` (RULES.md 14): ``find``
joins the oldest open table that fits and plays it; ``challenge NAME`` opens a table
only that player may join; ``challenges`` lists those addressed to you, ``accept`` joins
one and plays it, ``decline`` turns one down. ``watch`` shows a challenge the moment it
arrives (the ``challenge`` push)."""

from __future__ import annotations

import argparse
import uuid
from typing import Any

from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.commands_cards import resolve_deck
from client.connection import Caller, Client, CommandError, as_json, pages
from client.play import play

VISIBILITIES = {
    v.removeprefix("VISIBILITY_").lower().replace("_", "-"): n
    for v, n in pb.Visibility.items()
    if n
}
FLAGS = ("same", "plus", "combo", "elemental")


def rules_line(rules: pb.Rules) -> str:
    visibility = pb.Visibility.Name(rules.visibility).removeprefix("VISIBILITY_")
    on = [f.title() for f in FLAGS if getattr(rules, f)]
    if rules.same_wall:
        on.append("Same Wall")
    if rules.trade_rule == pb.TRADE_RULE_ONE:
        on.append("Trade One")
    return ", ".join([visibility.replace("_", " ").title(), *on])


async def _deck(client: Caller, args: argparse.Namespace) -> pb.DeckChoice | None:
    """The saved deck --deck names, or None (a Random table draws it)."""
    return pb.DeckChoice(deck_id=await resolve_deck(client, args.deck)) if args.deck else None


async def _played(client: Caller, console: Console, args: argparse.Namespace, text: str) -> int:
    """After a join: the JSON answer alone with --json, else the match played here."""
    if not args.json:
        console.print(text)
        if isinstance(client, Client):
            await play(client, console)
    return 0


async def find(client: Caller, args: argparse.Namespace, console: Console) -> int:
    wanted = pb.TableFilter()
    for flag in FLAGS:
        if getattr(args, flag) is not None:
            setattr(wanted, flag, getattr(args, flag))
    for visibility in args.visibility or ():
        wanted.visibilities.append(VISIBILITIES[visibility])
    found = await client.call(
        client.stub.FindGame,
        g.FindGameRequest(
            request_id=args.request_id or uuid.uuid4().hex,
            filter=wanted,
            deck=await _deck(client, args),
        ),
    )
    if args.json:
        print(as_json(found))
    table = found.table
    text = f"Joined {table.host_name}'s table ({rules_line(table.settings.rules)})."
    return await _played(client, console, args, text)


async def challenge(client: Caller, args: argparse.Namespace, console: Console) -> int:
    deck = await _deck(client, args)
    rules = pb.Rules(visibility=VISIBILITIES[args.visibility], same=True, plus=True, combo=True)
    rules.elemental = args.elemental
    made = await client.call(
        client.stub.CreateTable,
        g.CreateTableRequest(
            request_id=args.request_id or uuid.uuid4().hex,
            settings=pb.TableSettings(rules=rules, random_deck=deck is None),
            deck=deck,
            challenged_player_name=args.name,
        ),
    )
    if args.json:
        print(as_json(made))
        return 0
    table = made.table
    console.print(
        f"Challenge sent to {table.challenged_player_name} (table {table.table_id[:8]}, "
        f"{rules_line(table.settings.rules)}). It starts when they accept: "
        "`triad-client play` waits for it."
    )
    return 0


async def _challenges(client: Caller) -> list[pb.Table]:
    mine = pb.TableFilter(challenges_only=True)

    async def page(token: str) -> Any:
        return await client.call(
            client.stub.ListTables, g.ListTablesRequest(filter=mine, page_token=token)
        )

    return [t for each in await pages(page) for t in each.tables]


async def _challenge(client: Caller, given: str) -> pb.Table:
    """An open challenge to you by its id (or the start of it)."""
    matching = [t for t in await _challenges(client) if t.table_id.startswith(given)]
    if len(matching) != 1:
        raise CommandError(
            f"no single open challenge to you starts with {given!r}: see triad-client challenges"
        )
    return matching[0]


async def challenges(client: Caller, args: argparse.Namespace, console: Console) -> int:
    found = await _challenges(client)
    if args.json:
        print(as_json(g.ListTablesResponse(tables=found)))
    elif not found:
        console.print("No challenges for you.")
    for table in [] if args.json else found:
        decks = "Random decks" if table.settings.random_deck else "your deck"
        console.print(
            f"{table.table_id[:8]}  from {table.host_name}: "
            f"{rules_line(table.settings.rules)}, {decks}"
        )
    return 0


async def accept(client: Caller, args: argparse.Namespace, console: Console) -> int:
    table = await _challenge(client, args.table)
    if table.settings.random_deck and args.deck:
        raise CommandError("this challenge plays Random decks: leave --deck out")
    deck = None
    if not table.settings.random_deck:
        deck = await _deck(client, args) or pb.DeckChoice(random=pb.RandomDeck())
    joined = await client.call(
        client.stub.JoinTable,
        g.JoinTableRequest(request_id=uuid.uuid4().hex, table_id=table.table_id, deck=deck),
    )
    if args.json:
        print(as_json(joined))
    return await _played(client, console, args, f"Challenge from {table.host_name} accepted.")


async def decline(client: Caller, args: argparse.Namespace, console: Console) -> int:
    table = await _challenge(client, args.table)
    declined = await client.call(
        client.stub.DeclineChallenge,
        g.DeclineChallengeRequest(request_id=uuid.uuid4().hex, table_id=table.table_id),
    )
    if args.json:
        print(as_json(declined))
    else:
        console.print(f"Declined {table.host_name}'s challenge.")
    return 0


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    finder = sub.add_parser(
        "find", parents=[common], help="Find Game: join the oldest open table that fits, play it"
    )
    for flag in FLAGS:
        finder.add_argument(f"--{flag}", action=argparse.BooleanOptionalAction, default=None)
    finder.add_argument("--visibility", choices=sorted(VISIBILITIES), action="append")
    finder.add_argument("--deck", help="a saved deck (id or its start); default: Random tables")
    finder.add_argument("--request-id", help="retry without joining twice")

    duel = sub.add_parser("challenge", parents=[common], help="challenge a player by name")
    duel.add_argument("name")
    duel.add_argument("--visibility", choices=sorted(VISIBILITIES), default="three-open")
    duel.add_argument("--elemental", action="store_true")
    duel.add_argument("--deck", help="a saved deck (id or its start); default: Random decks")
    duel.add_argument("--request-id", help="retry without opening twice")

    sub.add_parser("challenges", parents=[common], help="the challenges addressed to you")
    accepting = sub.add_parser("accept", parents=[common], help="accept a challenge and play it")
    accepting.add_argument("table", help="its id (or the start of it)")
    accepting.add_argument("--deck", help="a saved deck, where the table plays players' decks")
    sub.add_parser("decline", parents=[common], help="decline a challenge").add_argument(
        "table", help="its id (or the start of it)"
    )
