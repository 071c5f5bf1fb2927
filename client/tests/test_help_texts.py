"""What the client's help and footers tell a person about the options and the decks:
every lobby filter that takes several values says it is repeatable, and a deck is
built of 5, 8 or 13 copies (a 3x3, 4x4 or 5x5 board), not only five."""

from __future__ import annotations

import argparse
import io

import pytest

from client.commands_cards import collection, deck
from client.main import parser
from client.render import plain_console
from client.tests.test_decks import Collection, Decks


@pytest.mark.parametrize("command", ["tables", "find"])
def test_every_filter_that_takes_several_values_says_it_is_repeatable(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: `tables --help` and `find --help` marked --trade and --board
    repeatable, not --visibility, which is too."""
    several = {"--visibility": "closed", "--trade": "one", "--board": "4x4"}
    for option, value in several.items():
        twice = parser().parse_args([command, option, value, option, value])
        assert getattr(twice, option.removeprefix("--")) == [value, value], option
    with pytest.raises(SystemExit):
        parser().parse_args([command, "--help"])
    shown = capsys.readouterr().out
    for option in several:
        said = shown[shown.index(f"  {option} {{") :].split("\n  --")[0]
        assert "repeatable" in said, said
    assert shown.count("repeatable") == len(several), shown


async def test_the_collection_and_an_empty_deck_list_name_every_deck_size() -> None:
    """Found from outside: `collection` ended with 'Build a deck: triad-client deck save
    NAME and five ids' though decks of 8 and 13 play the 4x4 and 5x5 boards."""
    written = io.StringIO()
    console = plain_console(file=written, width=200)
    args = argparse.Namespace(stars=None, element=None, name="", holo=None, locked=None, json=False)
    assert await collection(Collection(), args, console) == 0
    listed = argparse.Namespace(deck_command="list", json=False)
    assert await deck(Decks(), listed, console) == 0
    shown = " ".join(written.getvalue().split())
    assert "deck save NAME and 5, 8 or 13 ids of the copy column" in shown, shown
    assert "No saved decks. triad-client deck save NAME and 5, 8 or 13 copies" in shown, shown
    assert "five ids" not in shown and "COPY x5" not in shown
