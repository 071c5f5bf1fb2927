"""A saved deck named as a person types it: its id, the start of it, or its name (what
`deck list` shows first), each command that takes a deck (delete, validate --id, --deck)
through ``resolve_deck``."""

from __future__ import annotations

import argparse
import io
from typing import Any

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.commands_cards import deck, queue_deck, resolve_deck
from client.connection import CommandError
from client.main import parser
from client.render import plain_console

MINE = "0f506e48-65ac-46d4-a6b3-4be5c1310310"
TWIN = "d9415206-9e7e-4d6d-9311-e823eb560575"
EIGHT = "87907455-17e8-4787-a2ec-d2b0c0e35b2e"


class Decks:
    """A gateway with three saved decks, two of them named 'mine'."""

    def __init__(self, *named: tuple[str, str]) -> None:
        self.decks = [pb.Deck(deck_id=i, name=n) for i, n in named]
        self.stub = self

    async def ListDecks(self, request: g.ListDecksRequest) -> g.ListDecksResponse:
        return g.ListDecksResponse(decks=self.decks)

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)


async def test_a_deck_is_found_by_its_name_its_id_or_the_start_of_it() -> None:
    """Found from outside: `deck delete mine` was refused ('names no single deck of
    yours') though `deck list` showed Deck 'mine'."""
    gateway = Decks((MINE, "mine"), (EIGHT, "eight"))
    assert await resolve_deck(gateway, "mine") == MINE
    assert await resolve_deck(gateway, "eight") == EIGHT
    assert (
        await resolve_deck(gateway, "8790") == EIGHT and await resolve_deck(gateway, MINE) == MINE
    )
    with pytest.raises(
        CommandError, match="'nine' names none of your decks: see triad-client deck list"
    ):
        await resolve_deck(gateway, "nine")
    twins = Decks((MINE, "mine"), (TWIN, "mine"))
    with pytest.raises(CommandError, match=r"'mine' names 2 of your decks \(0f506e48, d9415206\)"):
        await resolve_deck(twins, "mine")


async def test_a_deck_name_is_printed_as_typed_never_as_markup() -> None:
    """Found from outside: `deck save 'a[/b]' ...` saved the deck, then every `deck list`
    ended in a MarkupError traceback; a deck named '[bot] x' was listed as ' x'."""
    written = io.StringIO()
    console = plain_console(file=written, width=80)
    args = argparse.Namespace(deck_command="list", json=False)
    await deck(Decks((MINE, "a[/b]"), (TWIN, "[bot] x :x:")), args, console)
    said = written.getvalue()
    assert "Deck 'a[/b]' (0f506e48)" in said and "Deck '[bot] x :x:' (d9415206)" in said, said


async def test_a_new_deck_may_not_take_the_name_of_another() -> None:
    """Found from outside: `deck save mine ...` a second time saved a second deck 'mine';
    from then on `--deck mine` and `deck delete mine` were refused ('names 2 of your
    decks'). Replacing it is `--id`."""
    args = argparse.Namespace(deck_command="save", name="mine", id=None, copies=["c1"], json=False)
    with pytest.raises(
        CommandError,
        match=r"you have a deck named 'mine' \(0f506e48\): deck save --id 0f506e48 replaces it",
    ):
        await deck(Decks((MINE, "mine")), args, plain_console())


@pytest.mark.parametrize(
    "argv", [["queue", "--mode", "draft", "--deck", "mine"], ["enqueue", "draft", "--deck", "mine"]]
)
async def test_a_draft_queue_refuses_a_saved_deck_it_would_not_play(argv: list[str]) -> None:
    """Found from outside: `queue --mode draft --deck mine` queued 'with the deck you
    will draft', the --deck dropped without a word."""
    with pytest.raises(CommandError, match="a Draft plays the deck you draft in it"):
        await queue_deck(Decks((MINE, "mine")), parser().parse_args(argv))
    assert await queue_deck(Decks(), parser().parse_args(["enqueue", "draft"])) is None
    ranked = parser().parse_args(["enqueue", "ranked", "--deck", "mine"])
    assert await queue_deck(Decks((MINE, "mine")), ranked) == pb.DeckChoice(deck_id=MINE)


class Collection(Decks):
    """A gateway whose player owns two copies, 35f0... and 3d42..., and no deck."""

    async def ListCollection(self, request: g.ListCollectionRequest) -> g.ListCollectionResponse:
        entries = [
            pb.CollectionEntry(copy=pb.OwnedCopy(copy_id=i)) for i in ("35f0740b", "3d42b98a")
        ]
        return g.ListCollectionResponse(entries=entries)


async def test_a_copy_typed_as_the_collections_row_number_is_told_to_use_the_copy_column() -> None:
    """Found from outside: `deck save mine 0 1 2 3 4`, the # column `collection` shows,
    was told "'0' names none of your copies: see triad-client collection", the table
    it had just read; the footer said only 'COPY x5'."""
    args = argparse.Namespace(deck_command="save", name="new", id=None, copies=["0"], json=False)
    with pytest.raises(CommandError, match="give the copy column's ids"):
        await deck(Collection(), args, plain_console())
    args.copies = ["3"]
    with pytest.raises(CommandError, match="'3' names 2 of your copies: type more of its id"):
        await deck(Collection(), args, plain_console())
