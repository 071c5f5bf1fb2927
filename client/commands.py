"""The catalog, the collection, decks, the economy, Trade One and ratings as
subcommands of ``triad-client``: each prints a rich table for a person, or the
gateway's answer as JSON with ``--json``."""

from __future__ import annotations

import argparse
import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from google.protobuf import json_format
from google.protobuf.message import Message
from rich.console import Console
from rich.table import Table
from rich.text import Text
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.render import ELEMENT_NAMES, side

ELEMENTS = {n.removeprefix("ELEMENT_").lower(): v for n, v in pb.Element.items() if v}
LADDERS = {m.removeprefix("LADDER_").lower(): v for m, v in pb.Ladder.items() if v}


class CommandError(Exception):
    """Something the user must fix; printed without a traceback."""


class Caller(Protocol):
    stub: Any

    async def call(self, method: Callable[..., Awaitable[Any]], request: Message) -> Any: ...


def as_json(message: Message) -> str:
    return json.dumps(json_format.MessageToDict(message))


def sides(s: pb.Sides) -> str:
    return f"T{side(s.top)} R{side(s.right)} B{side(s.bottom)} L{side(s.left)}"


def stars(n: int) -> str:
    return "★" * n


def element(value: pb.Element.ValueType) -> str:
    return ELEMENT_NAMES.get(value, "") if value else "-"


def copy_row(copy: pb.OwnedCopy) -> list[str | Text]:
    name = copy.character.name + (" (holo)" if copy.holo else "")
    return [
        copy.copy_id[:8],
        Text(name, style="bold magenta" if copy.holo else ""),
        stars(copy.character.stars),
        element(copy.character.element),
        sides(copy.printed_sides),
    ]


def copies_table(title: str, copies: list[pb.OwnedCopy], locks: list[str] | None = None) -> Table:
    table = Table(title=title, title_justify="left")
    for heading in ("#", "copy", "name", "stars", "element", "sides"):
        table.add_column(heading, no_wrap=heading != "name")
    if locks is not None:
        table.add_column("lock")
    for index, copy in enumerate(copies):
        row = [str(index), *copy_row(copy)]
        if locks is not None:
            row.append(locks[index])
        table.add_row(*row)
    return table


def violations_text(violations: list[pb.DeckViolation]) -> Text:
    text = Text()
    for v in violations:
        rule = pb.DeckRule.Name(v.rule).removeprefix("DECK_RULE_").lower()
        text.append(f"  {rule}: ", style="bold red")
        text.append(f"{v.message}\n")
    return text


# ---- the catalog and the collection ------------------------------------------


async def pages(fetch: Callable[[str], Awaitable[Any]]) -> list[Any]:
    """Every page of a listing, following next_page_token."""
    found, token = [], ""
    while True:
        page = await fetch(token)
        found.append(page)
        token = page.next_page_token
        if not token:
            return found


def element_values(names: list[str] | None) -> list[pb.Element.ValueType]:
    return [ELEMENTS[n] if n != "none" else pb.ELEMENT_UNSPECIFIED for n in names or []]


async def catalog(client: Caller, args: argparse.Namespace, console: Console) -> int:
    wanted = pb.CatalogFilter(
        stars=args.stars or [], elements=element_values(args.element), name_contains=args.name
    )
    listed = await pages(
        lambda token: client.call(
            client.stub.ListCatalog,
            g.ListCatalogRequest(filter=wanted, page_size=200, page_token=token),
        )
    )
    whole = g.ListCatalogResponse(total_size=listed[0].total_size)
    for page in listed:
        whole.characters.extend(page.characters)
    if args.json:
        print(as_json(whole))
        return 0
    table = Table(title=f"Catalog: {whole.total_size} characters", title_justify="left")
    for heading in ("id", "name", "stars", "element", "sides"):
        table.add_column(heading, no_wrap=heading != "name")
    for c in whole.characters:
        table.add_row(c.character_id, c.name, stars(c.stars), element(c.element), sides(c.sides))
    console.print(table)
    return 0


async def owned(client: Caller, wanted: pb.CollectionFilter | None = None) -> list[Any]:
    listed = await pages(
        lambda token: client.call(
            client.stub.ListCollection,
            g.ListCollectionRequest(filter=wanted, page_size=200, page_token=token),
        )
    )
    return [entry for page in listed for entry in page.entries]


def lock_text(entry: pb.CollectionEntry) -> str:
    if not entry.HasField("lock"):
        return ""
    holder = entry.lock.holder
    kind = holder.WhichOneof("holder")
    return f"{kind.removesuffix('_id') if kind else 'locked'} {getattr(holder, kind or '')[:8]}"


async def collection(client: Caller, args: argparse.Namespace, console: Console) -> int:
    wanted = pb.CollectionFilter(
        stars=args.stars or [], elements=element_values(args.element), name_contains=args.name
    )
    if args.holo is not None:
        wanted.holo = args.holo
    if args.locked is not None:
        wanted.locked = args.locked
    entries = await owned(client, wanted)
    if args.json:
        print(as_json(g.ListCollectionResponse(entries=entries, total_size=len(entries))))
        return 0
    console.print(
        copies_table(
            f"Your collection: {len(entries)} copies",
            [e.copy for e in entries],
            [lock_text(e) for e in entries],
        )
    )
    console.print(
        Text("Build a deck from five copies: triad-client deck save NAME COPY x5", style="dim")
    )
    return 0


# ---- decks -------------------------------------------------------------------


async def resolve_copies(client: Caller, given: list[str]) -> list[str]:
    """Copy ids as typed: whole, or the first characters the collection shows, as long
    as they name one copy of the player's."""
    mine = [e.copy.copy_id for e in await owned(client)]
    found = []
    for text in given:
        if text in mine:
            found.append(text)
            continue
        matching = [copy_id for copy_id in mine if copy_id.startswith(text)]
        if len(matching) != 1:
            what = "none of your copies" if not matching else f"{len(matching)} of your copies"
            raise CommandError(f"{text!r} names {what}: see triad-client collection")
        found.append(matching[0])
    return found


async def resolve_deck(client: Caller, given: str) -> str:
    decks = [d for page in await list_decks(client) for d in page.decks]
    matching: list[str] = [d.deck_id for d in decks if d.deck_id.startswith(given)]
    matching = [given] if given in matching else matching
    if len(matching) != 1:
        raise CommandError(f"{given!r} names no single deck of yours: see triad-client deck list")
    return matching[0]


async def list_decks(client: Caller) -> list[Any]:
    return await pages(
        lambda token: client.call(
            client.stub.ListDecks, g.ListDecksRequest(page_size=200, page_token=token)
        )
    )


def deck_table(deck: pb.Deck) -> Table:
    verdict = "playable" if not deck.violations else "breaks a rule now"
    return copies_table(f"Deck {deck.name!r} ({deck.deck_id[:8]}): {verdict}", list(deck.copies))


async def deck(client: Caller, args: argparse.Namespace, console: Console) -> int:
    stub = client.stub
    if args.deck_command == "list":
        decks = [d for page in await list_decks(client) for d in page.decks]
        if args.json:
            print(as_json(g.ListDecksResponse(decks=decks)))
        elif not decks:
            console.print("No saved decks. triad-client deck save NAME COPY x5 saves one.")
        for d in [] if args.json else decks:
            console.print(deck_table(d))
            if d.violations:
                console.print(violations_text(list(d.violations)))
        return 0
    if args.deck_command == "save":
        copy_ids = await resolve_copies(client, args.copies)
        deck_id = await resolve_deck(client, args.id) if args.id else ""
        saved = await client.call(
            stub.SaveDeck,
            g.SaveDeckRequest(
                request_id=uuid.uuid4().hex, deck_id=deck_id, name=args.name, copy_ids=copy_ids
            ),
        )
        if args.json:
            print(as_json(saved.deck))
        else:
            console.print(deck_table(saved.deck))
            console.print(f"Saved: play it with its id {saved.deck.deck_id}.")
        return 0
    if args.deck_command == "validate":
        if args.random:
            request = g.ValidateDeckRequest(random=pb.RandomDeck())
        elif args.id:
            request = g.ValidateDeckRequest(deck_id=await resolve_deck(client, args.id))
        elif args.copies:
            request = g.ValidateDeckRequest(
                copies=pb.CopySelection(copy_ids=await resolve_copies(client, args.copies))
            )
        else:
            raise CommandError("give the copies, --id DECK or --random")
        checked = await client.call(stub.ValidateDeck, request)
        if args.json:
            print(as_json(checked))
        elif checked.valid:
            console.print("The deck is legal and can be played now.")
        else:
            console.print("The deck cannot be played:", style="bold red")
            console.print(violations_text(list(checked.violations)))
        return 0 if checked.valid else 1
    # delete
    deck_id = await resolve_deck(client, args.deck)
    await client.call(
        stub.DeleteDeck, g.DeleteDeckRequest(request_id=uuid.uuid4().hex, deck_id=deck_id)
    )
    print(json.dumps({"deckId": deck_id, "deleted": True}) if args.json else "Deck deleted.")
    return 0


# ---- coins and boosters ------------------------------------------------------


async def balance(client: Caller, args: argparse.Namespace, console: Console) -> int:
    held = (await client.call(client.stub.GetBalance, g.GetBalanceRequest())).balance
    print(as_json(held)) if args.json else console.print(f"Balance: {held.coins} coins")
    return 0


async def odds(client: Caller, args: argparse.Namespace, console: Console) -> int:
    answer = await client.call(client.stub.GetBoosterOdds, g.GetBoosterOddsRequest())
    if args.json:
        print(as_json(answer))
        return 0
    o = answer.odds
    console.print(
        f"A booster: {o.cards_per_booster} cards for {o.price_coins} coins "
        f"(draws: {o.algorithm}, verifiable)"
    )
    table = Table(title="Chance of each star rank per slot", title_justify="left")
    table.add_column("slot")
    ranks = sorted({s.stars for slot in o.slots for s in slot.star_odds})
    for rank in ranks:
        table.add_column(stars(rank), justify="right")
    for slot in o.slots:
        chance = {s.stars: s.probability for s in slot.star_odds}
        table.add_row(str(slot.slot_index), *(f"{100 * chance.get(r, 0):.1f}%" for r in ranks))
    console.print(table)
    console.print(f"Holographic: {100 * o.holo_probability:.0f}% of cards (+1 on one side)")
    console.print(f"Pity: {o.pity.description}")
    console.print(
        f"You: {answer.boosters_since_pity} of {o.pity.booster_count} boosters since your "
        f"last card of {o.pity.min_stars} stars or more"
    )
    return 0


async def booster(client: Caller, args: argparse.Namespace, console: Console) -> int:
    opened = await client.call(
        client.stub.OpenBooster,
        g.OpenBoosterRequest(
            request_id=args.request_id or uuid.uuid4().hex,
            expected_server_seed_hash=args.expected_hash or "",
        ),
    )
    if args.json:
        print(as_json(opened))
        return 0
    draw = opened.draw
    console.print(copies_table("Your new cards", list(draw.copies)))
    if draw.pity_applied:
        console.print("The pity rule gave you the guaranteed rank.", style="yellow")
    console.print(
        f"Paid {draw.price_coins} coins; balance {opened.balance.coins} coins. "
        f"Seed hash {draw.server_seed_hash[:16]}..., client seed {draw.client_seed!r}, "
        f"counter {draw.counter}."
    )
    return 0


# ---- Trade One -----------------------------------------------------------------


def trade_table(trade: pb.Trade) -> Table:
    role = "you choose" if trade.my_role == pb.TRADE_ROLE_CHOOSER else "you give"
    return copies_table(
        f"Trade One: {trade.winner_name} takes one of {trade.loser_name}'s cards ({role})",
        list(trade.offered_copies),
    )


def trade_status(trade: pb.Trade) -> str:
    if trade.status == pb.TRADE_STATUS_AWAITING_CHOICE:
        return "Waiting for the winner's choice."
    chosen = next((c for c in trade.offered_copies if c.copy_id == trade.chosen_copy_id), None)
    name = chosen.character.name if chosen else trade.chosen_copy_id[:8]
    how = " (picked by the server: time ran out)" if trade.auto_picked else ""
    done = "moved" if trade.status == pb.TRADE_STATUS_COMPLETED else "is moving"
    return f"{name} {done} to {trade.winner_name}{how}."


def offered_copy(trade: pb.Trade, given: str) -> str:
    """A card of the offer as its number in the list (0..4) or its copy id (or start)."""
    offered = [c.copy_id for c in trade.offered_copies]
    if given.isdigit() and int(given) < len(offered):
        return offered[int(given)]
    matching = [c for c in offered if c == given or c.startswith(given)]
    if len(matching) != 1:
        raise CommandError(f"choose one of the offered cards: 0..{len(offered) - 1} or a copy id")
    return matching[0]


async def choose(client: Caller, trade: pb.Trade, given: str, request_id: str = "") -> pb.Trade:
    chosen = await client.call(
        client.stub.ChooseTradeCard,
        g.ChooseTradeCardRequest(
            request_id=request_id or uuid.uuid4().hex,
            trade_id=trade.trade_id,
            copy_id=offered_copy(trade, given),
        ),
    )
    return chosen.trade  # type: ignore[no-any-return]


async def trade(client: Caller, args: argparse.Namespace, console: Console) -> int:
    pending = await client.call(client.stub.GetPendingTrade, g.GetPendingTradeRequest())
    if args.trade_command == "choose":
        if not pending.HasField("trade"):
            raise CommandError("no Trade One is waiting for you")
        chosen = await choose(client, pending.trade, args.card, args.request_id)
        print(as_json(chosen)) if args.json else console.print(trade_status(chosen))
        return 0
    if args.json:
        print(as_json(pending))
    elif not pending.HasField("trade"):
        console.print("No pending trade.")
    else:
        console.print(trade_table(pending.trade))
        console.print(trade_status(pending.trade))
        if (
            pending.trade.my_role == pb.TRADE_ROLE_CHOOSER
            and pending.trade.status == pb.TRADE_STATUS_AWAITING_CHOICE
        ):
            console.print("Take one: triad-client trade choose NUMBER", style="bold")
    return 0


# ---- ratings -----------------------------------------------------------------


def ladder(args: argparse.Namespace) -> pb.LadderKey:
    return pb.LadderKey(ladder=LADDERS[args.ladder], season=args.season)


async def rating(client: Caller, args: argparse.Namespace, console: Console) -> int:
    mine = (
        await client.call(client.stub.GetRating, g.GetRatingRequest(ladder=ladder(args)))
    ).rating
    if args.json:
        print(as_json(mine))
        return 0
    rank = f"rank {mine.rank}" if mine.rank else "unranked"
    marker = " (provisional)" if mine.provisional else ""
    console.print(
        f"{args.ladder.capitalize()} season {args.season}: {mine.rating}{marker}, {rank}; "
        f"{mine.games} games: {mine.wins} won, {mine.losses} lost, {mine.draws} drawn"
    )
    return 0


async def history(client: Caller, args: argparse.Namespace, console: Console) -> int:
    listed = await pages(
        lambda token: client.call(
            client.stub.ListRatingHistory,
            g.ListRatingHistoryRequest(ladder=ladder(args), page_size=200, page_token=token),
        )
    )
    changes = [c for page in listed for c in page.changes]
    if args.json:
        print(as_json(g.ListRatingHistoryResponse(changes=changes)))
        return 0
    if not changes:
        console.print(f"No rated games on the {args.ladder} ladder yet.")
        return 0
    table = Table(title=f"{args.ladder.capitalize()} rating history", title_justify="left")
    for heading in ("when", "opponent", "result", "change", "rating"):
        table.add_column(heading)
    for c in changes:
        result = {1.0: "win", 0.5: "draw", 0.0: "loss"}.get(c.actual_score, str(c.actual_score))
        when = c.change_time.ToDatetime().strftime("%Y-%m-%d %H:%M")
        table.add_row(
            when,
            f"{c.opponent_name} ({c.opponent_rating_before})",
            result,
            Text(f"{c.delta:+d}", style="green" if c.delta >= 0 else "red"),
            f"{c.rating_before} -> {c.rating_after}",
        )
    console.print(table)
    return 0


async def leaderboard(client: Caller, args: argparse.Namespace, console: Console) -> int:
    board = await client.call(
        client.stub.GetLeaderboard, g.GetLeaderboardRequest(ladder=ladder(args), top_n=args.top)
    )
    if args.json:
        print(as_json(board))
        return 0
    if not board.entries:
        console.print(f"Nobody has played a rated game on the {args.ladder} ladder yet.")
        return 0
    table = Table(
        title=f"{args.ladder.capitalize()} leaderboard ({board.ranked_player_count} players)",
        title_justify="left",
    )
    for heading in ("rank", "player", "rating", "games"):
        table.add_column(heading, justify="right" if heading != "player" else "left")
    me = board.my_entry.player_name if board.HasField("my_entry") else None
    for e in board.entries:
        style = "bold cyan" if e.player_name == me else ""
        marker = "?" if e.provisional else ""
        table.add_row(str(e.rank), e.player_name, f"{e.rating}{marker}", str(e.games), style=style)
    console.print(table)
    if me and all(e.player_name != me for e in board.entries):
        mine = board.my_entry
        console.print(f"You: rank {mine.rank}, {mine.rating}, {mine.games} games")
    console.print(Text("? provisional (first 20 games)", style="dim"))
    return 0


# ---- the command line --------------------------------------------------------

COMMANDS: dict[str, Callable[[Caller, argparse.Namespace, Console], Awaitable[int]]] = {
    "catalog": catalog,
    "collection": collection,
    "deck": deck,
    "balance": balance,
    "odds": odds,
    "booster": booster,
    "trade": trade,
    "rating": rating,
    "history": history,
    "leaderboard": leaderboard,
}


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """The subcommands of this module; ``common`` carries the options every
    subcommand takes (--json)."""

    def filters(cmd: argparse.ArgumentParser) -> None:
        cmd.add_argument("--stars", type=int, action="append", help="1..5; repeatable")
        cmd.add_argument("--element", choices=[*ELEMENTS, "none"], action="append")
        cmd.add_argument("--name", default="", help="names containing this text")

    filters(sub.add_parser("catalog", parents=[common], help="the characters of the game"))
    owned_cmd = sub.add_parser("collection", parents=[common], help="the copies you own")
    filters(owned_cmd)
    owned_cmd.add_argument("--holo", action=argparse.BooleanOptionalAction, default=None)
    owned_cmd.add_argument("--locked", action=argparse.BooleanOptionalAction, default=None)

    decks = sub.add_parser("deck", parents=[common], help="list, save, validate, delete decks")
    deck_sub = decks.add_subparsers(dest="deck_command", required=True)
    deck_sub.add_parser("list", parents=[common], help="your saved decks and what they break")
    save = deck_sub.add_parser("save", parents=[common], help="save five copies as a deck")
    save.add_argument("name")
    save.add_argument("copies", nargs="+", help="copy ids (or their first characters)")
    save.add_argument("--id", help="replace this deck instead of saving a new one")
    check = deck_sub.add_parser(
        "validate", parents=[common], help="check copies, a deck or Random (exit 1 if illegal)"
    )
    check.add_argument("copies", nargs="*", help="copy ids (or their first characters)")
    check.add_argument("--id", help="a saved deck")
    check.add_argument("--random", action="store_true", help="can a Random deck be drawn")
    deck_sub.add_parser("delete", parents=[common], help="delete a saved deck").add_argument("deck")

    sub.add_parser("balance", parents=[common], help="your coins")
    sub.add_parser("odds", parents=[common], help="booster odds, holo rate, pity progress")
    opener = sub.add_parser("booster", parents=[common], help="buy and open one booster")
    opener.add_argument("--request-id", help="retry a purchase without buying twice")
    opener.add_argument("--expected-hash", help="refuse unless this server seed hash is in force")

    trades = sub.add_parser("trade", parents=[common], help="your pending Trade One")
    trade_sub = trades.add_subparsers(dest="trade_command")
    trade_sub.add_parser("show", parents=[common], help="the offer (the default)")
    pick = trade_sub.add_parser("choose", parents=[common], help="take one of the offered cards")
    pick.add_argument("card", help="its number in the offer (0..4) or its copy id")
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
            cmd.add_argument("--top", type=int, default=10, help="1..100")
