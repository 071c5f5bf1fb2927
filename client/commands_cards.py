"""The catalog, the collection, decks, coins and boosters as subcommands of
``triad-client``: each prints a rich table for a person, or the gateway's answer as
JSON with ``--json``."""

from __future__ import annotations

import argparse
import json
import uuid
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import Caller, CommandError, as_json, pages
from client.copies import copies_table, element, sides, stars, violations_text
from client.realm import realm_attributes

ELEMENTS = {n.removeprefix("ELEMENT_").lower(): v for n, v in pb.Element.items() if v}


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
    if not whole.characters:  # found from outside: a table's bare header, '0 characters'
        console.print("No character fits those filters: triad-client catalog lists them all.")
        return 0
    many = "character" if whole.total_size == 1 else "characters"  # found from outside
    table = Table(title=f"Catalog: {whole.total_size} {many}", title_justify="left")
    # The name and the Realm words wrap (the longest, 'elemental, lawful neutral,
    # legendary', would squeeze the name to nothing in 80 columns); the rest do not.
    for heading in ("id", "name", "stars", "element", "sides", "realm"):
        wraps = heading in ("name", "realm")
        table.add_column(heading, no_wrap=not wraps, min_width=10 if wraps else None)
    for c in whole.characters:
        table.add_row(
            c.character_id,
            c.name,
            stars(c.stars),
            element(c.element),
            sides(c.sides),
            realm_attributes(c),
        )
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
    if not entries:  # a sentence, not a table's bare header
        text = "No copies fit those filters."
        if wanted == pb.CollectionFilter(holo=True):
            text = "No holographic copies."
        console.print("No copies." if wanted == pb.CollectionFilter() else text)
        return 0
    counted = f"{len(entries)} {'copy' if len(entries) == 1 else 'copies'}"
    # A filtered list says so (found from outside: --locked's 8 copies read as the
    # player's whole collection, of 10).
    whole = wanted == pb.CollectionFilter()
    title = "Your collection" if whole else "Your copies that fit the filters"
    console.print(
        copies_table(
            f"{title}: {counted}",
            [e.copy for e in entries],
            [lock_text(e) for e in entries],
        )
    )
    console.print(
        Text(
            "Build a deck: triad-client deck save NAME and 5, 8 or 13 ids of the copy column "
            "(a 3x3, 4x4 or 5x5 deck)",
            style="dim",
        )
    )
    return 0


async def copy(client: Caller, args: argparse.Namespace, console: Console) -> int:
    """One of your copies (by id or its start) and whether a deck, match or trade
    holds it."""
    [copy_id] = await resolve_copies(client, [args.copy])
    entry = (await client.call(client.stub.GetCopy, g.GetCopyRequest(copy_id=copy_id))).entry
    if args.json:
        print(as_json(entry))
        return 0
    console.print(copies_table(f"Copy {copy_id}", [entry.copy], [lock_text(entry)]))
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
        if not matching:  # found from outside: `deck save mine 0 1 2 3 4` typed the # column
            raise CommandError(
                f"{text!r} names none of your copies: give the copy column's ids "
                "(their first characters will do) from triad-client collection"
            )
        if len(matching) > 1:
            raise CommandError(
                f"{text!r} names {len(matching)} of your copies: type more of its id"
            )
        found.append(matching[0])
    return found


async def resolve_deck(client: Caller, given: str) -> str:
    """A deck as typed: its id, the start of it, or its name (found from outside: `deck
    delete mine` was refused, 'names no single deck', though deck list showed 'mine')."""
    decks = [d for page in await list_decks(client) for d in page.decks]
    matching: list[str] = [d.deck_id for d in decks if d.deck_id.startswith(given)]
    matching = [given] if given in matching else matching
    matching = matching or [d.deck_id for d in decks if d.name == given]
    if not matching:
        raise CommandError(f"{given!r} names none of your decks: see triad-client deck list")
    if len(matching) > 1:
        ids = ", ".join(m[:8] for m in matching)
        raise CommandError(f"{given!r} names {len(matching)} of your decks ({ids}): give its id")
    return matching[0]


async def _new_name(client: Caller, args: argparse.Namespace) -> str:
    """'' (a new deck) once its name is none of the player's decks': a second deck of
    the same name could not be named again (found from outside: `deck save mine ...`
    twice saved two decks 'mine', then `--deck mine` and `deck delete mine` were refused,
    'names 2 of your decks'). The one of that name is replaced with --id."""
    same = [d for page in await list_decks(client) for d in page.decks if d.name == args.name]
    if same:
        held = same[0].deck_id[:8]
        raise CommandError(
            f"you have a deck named {args.name!r} ({held}): deck save --id {held} replaces "
            "it; a new deck needs another name"
        )
    return ""


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
            console.print(
                "No saved decks. triad-client deck save NAME and 5, 8 or 13 copies saves one."
            )
        for d in [] if args.json else decks:
            console.print(deck_table(d))
            if d.violations:
                console.print(violations_text(list(d.violations)))
        return 0
    if args.deck_command == "save":
        deck_id = await resolve_deck(client, args.id) if args.id else await _new_name(client, args)
        copy_ids = await resolve_copies(client, args.copies)
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
    console.print(slot_table("Chance of each star rank per slot", o.slots))
    console.print(f"Holographic: {100 * o.holo_probability:.0f}% of cards (+1 on one side)")
    console.print(f"Pity: {o.pity.description}")
    console.print(
        f"You: {answer.boosters_since_pity} of {o.pity.booster_count} boosters since your "
        f"last card of {o.pity.min_stars} stars or more"
    )
    if answer.draft_slots:  # found from outside: the Draft's odds were nowhere
        title = "A Draft's boosters (free, 3 a player): chance of each star rank per slot"
        console.print(slot_table(title, answer.draft_slots))
    return 0


def slot_table(title: str, slots: Sequence[pb.BoosterSlotOdds]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("slot")
    ranks = sorted({s.stars for slot in slots for s in slot.star_odds})
    for rank in ranks:
        table.add_column(stars(rank), justify="right")
    for slot in slots:
        chance = {s.stars: s.probability for s in slot.star_odds}
        table.add_row(str(slot.slot_index), *(f"{100 * chance.get(r, 0):.1f}%" for r in ranks))
    return table


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


async def deck_choice(client: Caller, args: argparse.Namespace) -> pb.DeckChoice:
    """The saved deck --deck names (its id or the start of it), else Random. A Draft
    queue plays the deck drafted: --deck there is refused (found from outside: `queue
    --mode draft --deck mine` queued 'with the deck you will draft', --deck dropped)."""
    if getattr(args, "command", "") in ("queue", "enqueue") and args.mode == "draft" and args.deck:
        raise CommandError("a Draft plays the deck you draft in it: leave --deck out")
    if not getattr(args, "deck", None):
        return pb.DeckChoice(random=pb.RandomDeck())
    return pb.DeckChoice(deck_id=await resolve_deck(client, args.deck))


async def practice_deck(
    client: Caller, args: argparse.Namespace, custom: pb.TableSettings | None
) -> pb.DeckChoice | None:
    """The deck a practice brings: none where it deals house hands (RULES.md 11), where
    --deck is refused rather than dropped (found from outside: the server ignored it)."""
    if custom is None or not custom.rules.house_hands:
        return await deck_choice(client, args)
    if args.deck:
        raise CommandError("house hands are dealt from the catalog: leave --deck out")
    return None


async def queue_deck(client: Caller, args: argparse.Namespace) -> pb.DeckChoice | None:
    """The deck an Enqueue carries: none for a Draft (the deck is drafted), else
    ``deck_choice``'s."""
    return await deck_choice(client, args) if args.mode != "draft" or args.deck else None
