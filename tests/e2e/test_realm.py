"""Realm Triad as players meet it (issue 20; RULES.md 17): a Realm Great Cloth (4x4)
table with every module on and Realm Sudden Death, hosted and joined through the TLS
gateway, played to its end between two clients: a Lair move (and a second Lair
refused), a Ward and a Legendary Resistance each cancelling a capture, a tie on the
full board and the weakest card replaced from the recorded draw pile. Replayed after
a restart of the match service, the match gives the same final view.

The whole backend as processes (devtools/stack.py). Both players bring saved decks of
characters an operator granted them (GrantCopies, as support does), so the hands hold
Wards (Constructs, Celestials) and one Legendary each; the table plays All Open, so both
hands are in every view and the test finds, with the Realm engine, a line of moves that
shows everything above before the first move.
"""

from __future__ import annotations

from random import Random
from typing import Any
from uuid import uuid4

import grpc
import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Overrides, Stack
from services.match.mapping import card_back
from services.rules import Board, Geometry, Rules, Seat
from services.rules.realm import (
    Protection,
    RealmBoard,
    RealmCard,
    RealmRules,
    RealmState,
)
from tests.e2e.sessions import SEAT_OF, Session, granted_deck, join

pytestmark = pytest.mark.integration

GREAT_CLOTH = pb.Rules(
    visibility=pb.VISIBILITY_ALL_OPEN,
    same=True,
    plus=True,
    combo=True,
    sudden_death=True,
    board=pb.BoardShape(rows=4, columns=4),
    family=pb.RULES_FAMILY_REALM,
    realm=pb.RealmModules(
        type_advantage=True, alignment_clash=True, lair=True, resistance=True, cursed=True
    ),
)
EVERY_MODULE = RealmRules(True, True, True, True, True, True, True, True)
DECKS = {
    # One Legendary (5 stars), two 4 stars, Constructs and Celestials (Ward) among them.
    "ann": ["chr-101", "chr-100", "chr-098", "chr-082", "chr-077", "chr-055", "chr-053", "chr-025"],
    "bea": ["chr-103", "chr-090", "chr-091", "chr-067", "chr-069", "chr-036", "chr-020", "chr-028"],
}
Move = tuple[str, int, bool]


STACK_OVERRIDES: Overrides = {}
"""The backend of this module: no quick populated bot (tests/e2e/conftest.py)."""


def _realm(card: pb.Card) -> RealmCard:
    found = card_back(card).realm
    assert found is not None, "a Realm table's card carries its creature type"
    return found


def wanted_line(view: pb.MatchView, seed: int = 1, tries: int = 20_000) -> list[Move]:
    """A line of (card id, cell, Lair) from the empty board to a full one with equal
    scores, with a Ward save and a Resistance save before the last placement (whose
    reply shows the replacements) and an early Lair whose seat moves again (random
    play-outs of the Realm engine over both open hands)."""
    mine = [_realm(x.card) for x in view.my_hand]
    theirs = [_realm(s.revealed) for s in view.opponent_hand]
    seat = SEAT_OF[view.my_seat]
    start = (mine, theirs) if seat is Seat.A else (theirs, mine)
    rng = Random(seed)
    for _ in range(tries):
        board = RealmBoard(
            Board.empty(Geometry.of(4, 4), Rules()), EVERY_MODULE, RealmState.fresh(16)
        )
        hands = [list(start[0]), list(start[1])]
        mover = SEAT_OF[view.turn_seat]
        line: list[Move] = []
        saves: set[Protection] = set()
        while hands[mover]:
            card = hands[mover].pop(rng.randrange(len(hands[mover])))
            cell = rng.choice(board.board.empty_cells)
            lair = not board.state.lair_spent[mover] and rng.random() < 0.3
            board, placed = board.place(cell, card, mover, lair)
            line.append((card.id, cell, lair))
            if hands[mover.other]:  # not the last placement
                saves |= {s.by for s in placed.saved}
            mover = mover.other
        early_lair = any(lair for _, _, lair in line[:-2])
        if board.owners.count(Seat.A) == 8 and early_lair and saves == set(Protection):
            return line
    raise AssertionError("no line of moves shows Lair, Ward, Resistance and a tie")


def comparable(view: pb.MatchView) -> pb.MatchView:
    """The view without the moment it was computed at (and presence, which a restart
    may report anew)."""
    copy = pb.MatchView()
    copy.CopyFrom(view)
    copy.ClearField("server_time")
    for player in copy.players:
        player.ClearField("connected")
    return copy


async def test_a_realm_3x3_table_deals_house_hands(api: Any) -> None:
    """RULES.md 11 and 17: a Realm table deals house hands on 3x3 too (hands of five).
    First in this module: a later test restarts the match service."""
    ann, bea = await join(api), await join(api)
    rules = pb.Rules()
    rules.CopyFrom(GREAT_CLOTH)
    rules.board.CopyFrom(pb.BoardShape(rows=3, columns=3))
    rules.house_hands = True
    table = (
        await ann.call(
            "CreateTable",
            g.CreateTableRequest(request_id=uuid4().hex, settings=pb.TableSettings(rules=rules)),
        )
    ).table
    joined = await bea.call(
        "JoinTable", g.JoinTableRequest(request_id=uuid4().hex, table_id=table.table_id)
    )
    view = await bea.view(joined.match_id)
    assert view.rules.family == pb.RULES_FAMILY_REALM and view.rules.house_hands
    assert len(view.board) == 9 and len(view.my_hand) == 5 and len(view.opponent_hand) == 5
    assert view.realm.draw_pile_left == 10


async def test_find_game_joins_only_a_realm_table_with_the_modules_asked_for(api: Any) -> None:
    """RULES.md 14, Find Game filtered like the lobby list. Found from outside: the
    browser's "Find a game like this" with Realm and only Cursed ticked seated the player
    at a Realm table with only Lair on."""
    ann, bea = await join(api), await join(api)
    rules = pb.Rules(
        visibility=pb.VISIBILITY_ALL_OPEN,
        house_hands=True,
        family=pb.RULES_FAMILY_REALM,
        realm=pb.RealmModules(lair=True),
    )
    create = g.CreateTableRequest(request_id=uuid4().hex, settings=pb.TableSettings(rules=rules))
    table = (await ann.call("CreateTable", create)).table

    def find(**modules: bool) -> g.FindGameRequest:
        wanted = pb.TableFilter(realm=True, realm_modules=pb.RealmModules(**modules))
        return g.FindGameRequest(request_id=uuid4().hex, filter=wanted)

    with pytest.raises(grpc.aio.AioRpcError) as refusal:
        await bea.call("FindGame", find(cursed=True))
    assert refusal.value.code() == grpc.StatusCode.NOT_FOUND, refusal.value.details()
    found = await bea.call("FindGame", find(lair=True))
    assert found.table.table_id == table.table_id and found.match_id


async def test_a_realm_great_cloth_match_with_every_module_plays_out_and_replays(
    backend: Stack, api: Any
) -> None:
    ann, bea = await join(api), await join(api)
    decks = {
        p.name: await granted_deck(backend, p, DECKS[key])
        for p, key in ((ann, "ann"), (bea, "bea"))
    }
    sessions = {p.name: await Session.open(p) for p in (ann, bea)}
    table = (
        await ann.call(
            "CreateTable",
            g.CreateTableRequest(
                request_id=uuid4().hex,
                settings=pb.TableSettings(rules=GREAT_CLOTH),
                deck=pb.DeckChoice(deck_id=decks[ann.name]),
            ),
        )
    ).table
    listed = await bea.call("ListTables", g.ListTablesRequest(filter=pb.TableFilter(realm=True)))
    shown = next(t for t in listed.tables if t.table_id == table.table_id).settings.rules
    assert all(t.settings.rules.family == pb.RULES_FAMILY_REALM for t in listed.tables)
    standard = await bea.call("ListTables", g.ListTablesRequest(filter=pb.TableFilter(realm=False)))
    assert table.table_id not in {t.table_id for t in standard.tables}
    assert shown.family == pb.RULES_FAMILY_REALM and shown.realm.cursed and shown.realm.lair
    joined = await bea.call(
        "JoinTable",
        g.JoinTableRequest(
            request_id=uuid4().hex,
            table_id=table.table_id,
            deck=pb.DeckChoice(deck_id=decks[bea.name]),
        ),
    )
    match_id = joined.match_id
    view = await ann.view(match_id)
    assert view.rules.family == pb.RULES_FAMILY_REALM and len(view.board) == 16
    assert view.realm.draw_pile_left == 10 and len(view.realm.cells) == 16
    assert {x.card.character.creature_type for x in view.my_hand} >= {
        pb.CREATURE_TYPE_CONSTRUCT,
        pb.CREATURE_TYPE_CELESTIAL,
    }
    assert sum(x.card.character.legendary for x in view.my_hand) == 1
    line = wanted_line(view)

    by_seat = {SEAT_OF[(await p.view(match_id)).my_seat]: p for p in (ann, bea)}
    saves: set[int] = set()
    refused_once, compared = False, 0
    for turn, (card_id, cell, lair) in enumerate(line):
        current = await ann.view(match_id)
        player = by_seat[SEAT_OF[current.turn_seat]]
        spent = {s.seat: s.lair_spent for s in current.realm.seats}
        if spent[current.turn_seat] and not refused_once:
            # A second Lair is refused clearly and changes nothing.
            with pytest.raises(grpc.aio.AioRpcError) as refusal:
                await player.call(
                    "PlaceCard",
                    g.PlaceCardRequest(
                        request_id=uuid4().hex,
                        match_id=match_id,
                        card_id=card_id,
                        cell=cell,
                        lair=True,
                    ),
                )
            assert refusal.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "Lair is spent" in (refusal.value.details() or "")
            assert (await ann.view(match_id)).version == current.version
            refused_once = True
        reply = await player.call(
            "PlaceCard",
            g.PlaceCardRequest(
                request_id=uuid4().hex, match_id=match_id, card_id=card_id, cell=cell, lair=lair
            ),
        )
        if turn < len(line) - 1:  # the last placement is followed by the replacements
            move = reply.view.realm.last_move
            assert move.lair == lair and not move.replaced_card_id
            saves |= {s.by for s in move.saved}
            compared += len(move.comparisons)
    assert refused_once, "the line has a Lair by a seat that moves again"
    assert saves == {pb.PROTECTION_WARD, pb.PROTECTION_RESISTANCE}
    assert compared, "views show the modified values of the comparisons"

    finals = {}
    for name, session in sessions.items():
        final = await session.view_where(match_id, lambda v: v.status == pb.MATCH_STATUS_FINISHED)
        assert final.realm.draw_pile_left < 10, "Realm Sudden Death drew from the pile"
        assert final.realm.last_move.replaced_card_id, "the weakest card was replaced"
        placed = [x for x in final.board if x.WhichOneof("content") == "card"]
        assert len(placed) == 16 and not final.my_hand and not final.opponent_hand
        ids = {x.card.card.card_id for x in placed}
        assert final.realm.last_move.replaced_card_id not in ids, "the replaced card left"
        # Both players are shown the move that tied the full board and every card that
        # left (found from outside: only the last replacement was told).
        tying = final.realm.tying_placement
        assert (tying.card.card_id, tying.cell) == line[-1][:2], tying
        replaced = final.realm.replacements
        assert len(replaced) == 10 - final.realm.draw_pile_left, replaced
        assert replaced[-1].removed.card_id == final.realm.last_move.replaced_card_id
        assert replaced[-1].drawn.card_id == final.last_placement.card.card_id
        finals[name] = await (ann if name == ann.name else bea).view(match_id)
    final = finals[ann.name]
    assert any(s.resistance_spent for s in final.realm.seats)
    assert any(s.lair_spent for s in final.realm.seats)
    assert pb.HEX_WARD in {x.hex for x in final.realm.cells}

    backend.backend.restart("match")
    for player in (ann, bea):
        again = await player.view(match_id)
        assert comparable(again) == comparable(finals[player.name])
    for session in sessions.values():
        await session.close()


async def test_a_realm_table_that_cannot_be_played_is_refused_saying_why(api: Any) -> None:
    ann = await join(api)
    cases = [
        (pb.BoardShape(rows=5, columns=5), "not 5x5"),
        (pb.BoardShape(rows=4, columns=4), "never trade"),
    ]
    for board, says in cases:
        rules = pb.Rules()
        rules.CopyFrom(GREAT_CLOTH)
        rules.board.CopyFrom(board)
        if says == "never trade":
            rules.visibility = pb.VISIBILITY_CLOSED
            rules.trade_rule = pb.TRADE_RULE_ONE
        with pytest.raises(grpc.aio.AioRpcError) as refusal:
            await ann.call(
                "CreateTable",
                g.CreateTableRequest(
                    request_id=uuid4().hex,
                    settings=pb.TableSettings(rules=rules, random_deck=True),
                ),
            )
        assert refusal.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert says in (refusal.value.details() or "")


async def test_the_catalog_api_shows_every_characters_type_alignment_and_legendary(
    api: Any,
) -> None:
    ann = await join(api)
    listed = await ann.call("ListCatalog", g.ListCatalogRequest(page_size=200))
    characters = list(listed.characters)
    assert len(characters) == listed.total_size >= 110
    for character in characters:
        assert character.creature_type != pb.CREATURE_TYPE_UNSPECIFIED, character.character_id
        assert character.alignment.law and character.alignment.moral
        assert character.legendary == (character.stars == 5)
    kinds = {x.creature_type for x in characters}
    assert len(kinds) == 13
    owned = await ann.call("ListCollection", g.ListCollectionRequest(page_size=200))
    assert all(e.copy.character.creature_type for e in owned.entries)
