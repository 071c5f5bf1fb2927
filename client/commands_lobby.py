"""Custom tables, Find Game and challenges as subcommands of ``triad-client`` (RULES.md
11-14): ``host`` opens a table with the rules chosen (board, blocked cells, house hands,
Sudden Death, trade rule) and plays it once a guest joins; ``tables`` lists the open
tables by any rule, ``join`` joins one and plays it, ``close`` closes the one you host;
``find`` joins the oldest open table that fits and plays it; ``challenge NAME`` opens a
table only that player may join; ``challenges`` lists those addressed to you,
``accept`` joins one and plays it (a battle challenge as ``battle --join`` does),
``decline`` turns one down. ``watch`` shows a challenge the moment it arrives (the
``challenge`` push)."""

from __future__ import annotations

import argparse
import contextlib
import uuid
from typing import Any

import grpc
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client import battle as battles
from client.commands_cards import resolve_deck
from client.connection import Caller, Client, CommandError, Holder, as_json, pages
from client.expiry import expiry
from client.hosted import refuse_own
from client.lobby_rows import challenge_row, joined_line, print_rows
from client.play import play
from client.realm import OPTIONS, chosen_modules
from client.rules_text import rules_line, table_row

VISIBILITIES = {
    v.removeprefix("VISIBILITY_").lower().replace("_", "-"): n
    for v, n in pb.Visibility.items()
    if n
}
FLAGS = ("same", "plus", "combo", "elemental", "realm")
"""The filters `find` takes, each on, off or unset (realm: Realm tables, RULES.md 17)."""
BOARDS = ("3x3", "4x4", "5x5")
TRADES = {t.removeprefix("TRADE_RULE_").lower(): n for t, n in pb.TradeRule.items() if n}


def table_settings(args: argparse.Namespace, deck: pb.DeckChoice | None) -> pb.TableSettings:
    """The table's rules from the options of ``host`` and ``challenge``. A table
    without a deck of the host's plays Random decks, unless it deals house hands
    (nobody brings a deck). The server says what it refuses, and why."""
    size = int(args.board[0])
    rules = pb.Rules(
        visibility=VISIBILITIES[args.visibility],
        same=args.same,
        plus=args.plus,
        # Combo chains Same and Plus captures: on with either unless asked otherwise.
        combo=args.same or args.plus if args.combo is None else args.combo,
        elemental=args.elemental,
        same_wall=args.same_wall,
        sudden_death=args.sudden_death,
        trade_rule=TRADES[getattr(args, "trade", "none")],
        house_hands=args.house_hands,
        board=pb.BoardShape(rows=size, columns=size, blocked_count=args.blocked),
    )
    realm = getattr(args, "realm", None)  # host, challenge and a custom practice
    if realm is not None:  # Realm Triad (RULES.md 17): the family and its modules
        rules.family = pb.RULES_FAMILY_REALM
        rules.realm.CopyFrom(chosen_modules(realm))
        if getattr(args, "command", "") == "practice" and not getattr(args, "deck", None):
            rules.house_hands = True  # a Realm table never plays Random decks
    return pb.TableSettings(rules=rules, random_deck=deck is None and not rules.house_hands)


def realm_option(cmd: argparse.ArgumentParser, practice: bool = False) -> None:
    """A Realm table (RULES.md 17) and its modules: ``host``, ``challenge`` and a custom
    practice (found from outside: the API took a Realm practice, the terminal had none;
    without --deck a Realm practice is dealt house hands, never Random decks)."""
    dealt = "; without --deck, house hands" if practice else ""
    cmd.add_argument(
        "--realm",
        nargs="?",
        const="",
        metavar="MODULES",
        help="a Realm table (3x3 or 4x4): 'all' or modules from "
        f"{','.join(OPTIONS)} (comma-separated; none, or left out: Same/Plus/Combo only{dealt})",
    )


def rules_options(cmd: argparse.ArgumentParser, realm: bool = False) -> None:
    """The rules of a table (RULES.md 3, 11, 12): also a custom practice's (``realm``:
    with ``--realm``, RULES.md 17)."""
    cmd.add_argument("--visibility", choices=sorted(VISIBILITIES), default="three-open")
    for flag in ("same", "plus"):
        cmd.add_argument(f"--{flag}", action=argparse.BooleanOptionalAction, default=True)
    cmd.add_argument(
        "--combo", action=argparse.BooleanOptionalAction, help="default: on with Same or Plus"
    )
    cmd.add_argument("--elemental", action="store_true")
    cmd.add_argument("--same-wall", action="store_true")
    cmd.add_argument(
        "--board", choices=BOARDS, default="3x3", help="3x3 (5 cards), 4x4 (8), 5x5 (13)"
    )
    cmd.add_argument(
        "--blocked", type=int, default=0, metavar="K", help="5x5: K cells (0..5) blocked, drawn"
    )
    cmd.add_argument(
        "--house-hands",
        action="store_true",
        help="4x4 and 5x5: both dealt a hand from the whole catalog (trades nothing)",
    )
    cmd.add_argument(
        "--sudden-death", action="store_true", help="a tie plays again (at most 5 rounds)"
    )
    if realm:
        realm_option(cmd, practice=True)


def _table_options(cmd: argparse.ArgumentParser) -> None:
    """The rules a host chooses (RULES.md 3, 11, 12, 13)."""
    rules_options(cmd)
    cmd.add_argument("--trade", choices=list(TRADES), default="none", help="the trade rule")
    realm_option(cmd)
    cmd.add_argument("--deck", help="a saved deck (id or its start); default: Random decks")
    cmd.add_argument("--request-id", help="retry without opening twice")


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


def table_filter(args: argparse.Namespace) -> pb.TableFilter:
    """The lobby's filters from the options of ``tables`` and ``find``: every one given
    must hold."""
    wanted = pb.TableFilter()
    for flag in (*FLAGS, "same_wall", "random_deck", "house_hands", "sudden_death"):
        if getattr(args, flag, None) is not None:
            setattr(wanted, flag, getattr(args, flag))
    wanted.visibilities.extend(VISIBILITIES[v] for v in args.visibility or ())
    wanted.trade_rules.extend(TRADES[t] for t in getattr(args, "trade", None) or ())
    wanted.board_sizes.extend(int(b[0]) for b in getattr(args, "board", None) or ())
    wanted.battles = bool(getattr(args, "battles", False))
    if (modules := getattr(args, "realm_modules", None)) is not None:
        wanted.realm = True  # Realm tables with exactly these modules (RULES.md 17)
        wanted.realm_modules.CopyFrom(chosen_modules(modules))
    return wanted


def _filter_options(cmd: argparse.ArgumentParser) -> None:
    for flag in (*FLAGS, "same-wall", "random-deck", "house-hands", "sudden-death"):
        cmd.add_argument(f"--{flag}", action=argparse.BooleanOptionalAction, default=None)
    repeatable = {"visibility": sorted(VISIBILITIES), "trade": list(TRADES), "board": BOARDS}
    for option, values in repeatable.items():  # a rule with several values: any of them
        cmd.add_argument(f"--{option}", choices=values, action="append", help="repeatable")
    cmd.add_argument(
        "--realm-modules",
        metavar="MODULES",
        help=f"Realm tables with exactly these modules: 'all', 'none' or from {','.join(OPTIONS)}",
    )


async def _open_tables(client: Caller, wanted: pb.TableFilter) -> list[pb.Table]:
    async def page(token: str) -> Any:
        return await client.call(
            client.stub.ListTables, g.ListTablesRequest(filter=wanted, page_token=token)
        )

    return [t for each in await pages(page) for t in each.tables]


async def tables(client: Caller, args: argparse.Namespace, console: Console) -> int:
    """The open tables you may join, newest first, filtered by any rule."""
    found = await _open_tables(client, table_filter(args))
    if args.json:
        print(as_json(g.ListTablesResponse(tables=found)))
        return 0
    if not found:
        host = "battle --host" if args.battles else "host"
        console.print(f"No open table fits: triad-client {host} opens one.")
    print_rows(console, map(table_row, found))
    return 0


async def _table(client: Caller, given: str) -> pb.Table:
    """An open table by its id (or the start of it)."""
    matching = [
        t for t in await _open_tables(client, pb.TableFilter()) if t.table_id.startswith(given)
    ]
    if not matching:
        await refuse_own(client, given)  # the lobby lists no table to its host
    if len(matching) != 1:
        raise CommandError(f"no single open table starts with {given!r}: see triad-client tables")
    return matching[0]


async def _join(
    client: Caller, args: argparse.Namespace, console: Console, table: pb.Table, text: str
) -> int:
    """Join ``table`` with --deck where it plays players' decks (Random if none), say
    ``text`` (with --json, the reply first) and play the match it starts."""
    if table.settings.random_deck and args.deck:
        raise CommandError("this table plays Random decks: leave --deck out")
    if table.settings.rules.house_hands and args.deck:
        raise CommandError("this table deals house hands: leave --deck out")
    deck = None
    if not table.settings.random_deck and not table.settings.rules.house_hands:
        deck = await _deck(client, args) or pb.DeckChoice(random=pb.RandomDeck())
    joined = await client.call(
        client.stub.JoinTable,
        g.JoinTableRequest(request_id=uuid.uuid4().hex, table_id=table.table_id, deck=deck),
    )
    if args.json:
        print(as_json(joined))
    return await _played(client, console, args, text)


async def join(client: Caller, args: argparse.Namespace, console: Console) -> int:
    table = await _table(client, args.table)
    return await _join(client, args, console, table, joined_line(table))


async def close(client: Caller, args: argparse.Namespace, console: Console) -> int:
    """Close the table you host (``--json`` hosting leaves it open), or the one named by
    its id or the start of it (found from outside: `close 7d61a6c8`, the id status and
    tables print, was told 'no table 7d61a6c8')."""
    status = (await client.call(client.stub.GetPlayerStatus, g.GetPlayerStatusRequest())).status
    hosted = status.hosted_table.table_id if status.HasField("hosted_table") else ""
    if not args.table and not hosted:
        raise CommandError("you host no open table")
    table_id = hosted if hosted.startswith(args.table or "") else args.table
    closed = await client.call(
        client.stub.CloseTable, g.CloseTableRequest(request_id=uuid.uuid4().hex, table_id=table_id)
    )
    print(as_json(closed)) if args.json else console.print("Table closed.")
    return 0


async def find(client: Caller, args: argparse.Namespace, console: Console) -> int:
    found = await client.call(
        client.stub.FindGame,
        g.FindGameRequest(
            request_id=args.request_id or uuid.uuid4().hex,
            filter=table_filter(args),
            deck=await _deck(client, args),
        ),
    )
    if args.json:
        print(as_json(found))
    return await _played(client, console, args, joined_line(found.table, bool(args.deck)))


async def _create(client: Caller, args: argparse.Namespace, challenged: str = "") -> Any:
    deck = await _deck(client, args)
    return await client.call(
        client.stub.CreateTable,
        g.CreateTableRequest(
            request_id=args.request_id or uuid.uuid4().hex,
            settings=table_settings(args, deck),
            deck=deck,
            challenged_player_name=challenged,
        ),
    )


async def host(client: Caller, args: argparse.Namespace, console: Console) -> int:
    """Open a table and play it once a guest joins; leaving before that closes it."""
    made = await _create(client, args)
    if args.json:
        print(as_json(made))
        return 0
    table = made.table
    rules = rules_line(table.settings.rules)
    console.print(f"Table {table.table_id[:8]} open: {rules}{expiry(table)}.")
    if not isinstance(client, Client):
        return 0
    played = None
    try:
        played = await play(
            client, console, waiting="Waiting for a guest to join your table (Ctrl-C closes it)."
        )
    finally:
        if played is None:
            with contextlib.suppress(grpc.aio.AioRpcError):  # joined meanwhile: it plays on
                closed = await client.call(
                    client.stub.CloseTable,
                    g.CloseTableRequest(request_id=uuid.uuid4().hex, table_id=table.table_id),
                )
                if not closed.table.close_reason:  # else the screen said why it closed
                    console.print("Table closed.")
    return 0


async def challenge(client: Caller, args: argparse.Namespace, console: Console) -> int:
    made = await _create(client, args, challenged=args.name)
    if args.json:
        print(as_json(made))
        return 0
    table = made.table
    console.print(
        f"Challenge sent to {table.challenged_player_name} (table {table.table_id[:8]}, "
        f"{rules_line(table.settings.rules)}{expiry(table)}). It starts when they accept: "
        "`triad-client play` waits for it."
    )
    return 0


async def challenges_to(client: Caller) -> list[pb.Table]:
    """The challenges to you: Triad tables, then battle tables (listed only when asked
    for: ``filter.battles``)."""
    triad = await _open_tables(client, pb.TableFilter(challenges_only=True))
    return triad + await _open_tables(client, pb.TableFilter(challenges_only=True, battles=True))


async def _challenge(client: Caller, given: str) -> pb.Table:
    """An open challenge to you (Triad or battle) by its id (or the start of it)."""
    matching = [t for t in await challenges_to(client) if t.table_id.startswith(given)]
    if len(matching) > 1:
        raise CommandError(f"several challenges to you start with {given!r}: give more of its id")
    if not matching:  # found from outside: an expired one was said to be 'no single' one
        raise CommandError(f"no open challenge to you starts with {given!r} (expired, withdrawn "
                           "or answered?): see triad-client challenges")  # fmt: skip
    return matching[0]


async def challenges(client: Caller, args: argparse.Namespace, console: Console) -> int:
    """The challenges to you (Triad, then battle tables), each with how to take it up."""
    found = await challenges_to(client)
    if args.json:
        print(as_json(g.ListTablesResponse(tables=found)))
    elif not found:
        console.print("No challenges for you.")
    print_rows(console, [] if args.json else map(challenge_row, found))
    return 0


async def accept(client: Holder, args: argparse.Namespace, console: Console) -> int:
    table = await _challenge(client, args.table)
    if table.settings.battle:  # a Skirmish battle: joined and played as `battle --join`
        if args.deck:
            raise CommandError("a battle challenge takes no deck: leave --deck out")
        if not args.json:
            console.print(f"Battle challenge from {table.host_name} accepted.")
        joining = argparse.Namespace(json=args.json, join=table.table_id)
        return await battles.battle(client, joining, console)
    text = f"Challenge from {table.host_name} accepted."
    return await _join(client, args, console, table, text)


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
    _filter_options(finder)
    finder.add_argument("--deck", help="a saved deck (id or its start); default: Random tables")
    finder.add_argument("--request-id", help="retry without joining twice")

    hosting = sub.add_parser(
        "host", parents=[common], help="open a table with your rules and play it once joined"
    )
    _table_options(hosting)
    duel = sub.add_parser("challenge", parents=[common], help="challenge a player by name")
    duel.add_argument("name")
    _table_options(duel)

    listing = sub.add_parser("tables", parents=[common], help="the open tables, by any rule")
    _filter_options(listing)
    listing.add_argument("--battles", action="store_true", help="the Skirmish battle tables")
    joining = sub.add_parser("join", parents=[common], help="join an open table and play it")
    joining.add_argument("table", help="its id (or the start of it)")
    joining.add_argument("--deck", help="a saved deck, where the table plays players' decks")
    sub.add_parser("close", parents=[common], help="close the table you host").add_argument(
        "table", nargs="?", help="its id (default: the one you host)"
    )
    sub.add_parser("challenges", parents=[common], help="the challenges addressed to you")
    accepting = sub.add_parser("accept", parents=[common], help="accept a challenge and play it")
    accepting.add_argument("table", help="its id (or the start of it)")
    accepting.add_argument("--deck", help="a saved deck, where the table plays players' decks")
    sub.add_parser("decline", parents=[common], help="decline a challenge").add_argument(
        "table", help="its id (or the start of it)"
    )
