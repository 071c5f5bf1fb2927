"""``triad-client catalog`` as a person reads it on an 80-column terminal: every
column keeps its text, the characters' names above all (the longest Realm words,
'elemental, lawful neutral, legendary', once squeezed the name column to nothing)."""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.commands_cards import catalog

LEGENDS = [
    pb.Character(
        character_id=f"chr-{100 + n:03}",
        name=name,
        stars=5,
        element=pb.ELEMENT_WIND,
        sides=pb.Sides(top=4, right=9, bottom=10, left=5),
        creature_type=pb.CREATURE_TYPE_ELEMENTAL,
        alignment=pb.Alignment(law=pb.ALIGNMENT_LAW_LAWFUL, moral=pb.ALIGNMENT_MORAL_NEUTRAL),
        legendary=True,
    )
    for n, name in enumerate(("Zephyrine Unbound", "Lightning Cartographer", "Ysmay"))
]


class Stub:
    async def ListCatalog(self, request: g.ListCatalogRequest) -> g.ListCatalogResponse:
        return g.ListCatalogResponse(characters=LEGENDS, total_size=len(LEGENDS))


class Caller:
    stub = Stub()

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)


async def test_the_catalog_of_5_star_characters_shows_every_name_in_80_columns() -> None:
    console = Console(width=80, record=True, force_terminal=False)
    args = argparse.Namespace(stars=[5], element=None, name="", json=False)
    assert await catalog(Caller(), args, console) == 0
    text = console.export_text()
    assert all(len(line) <= 80 for line in text.splitlines()), text
    flat = " ".join(text.split())
    for character in LEGENDS:
        assert character.character_id in text, text
        assert character.name.split()[0] in flat, text
    assert "legendary" in text and "★★★★★" in text, text
