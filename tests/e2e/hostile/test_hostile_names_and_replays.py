"""Hostile values the generated attack (test_hostile_requests.py) cannot reach, through
the TLS gateway with every service a process on real PostgreSQL and NATS: it sends only
other players' copies to SaveDeck, so a deck name is never read; it has no battle, so no
battle id or practice battle is ever real; it replays only three writes.

- A deck name is what a reader sees: control characters (terminal escapes), zero-width
  and direction-override characters, line breaks and whitespace alone are refused, and
  no deck is saved; any visible text of any script, emoji included, is kept as typed.
- A request id reused for a different request is INVALID_ARGUMENT on every write whose
  first run succeeded (one per kind of thing: match, table, queue, deck, listing,
  battle), and the first result stands.
- A client seed retried after later rotations (a client that lost the first answer)
  gets that first answer: its commitment and the seed it revealed.
- Another player's listing or battle: refused, and it stays as it was.
- A number no state could accept (a negative expected version, a cell off the board, a
  turn before the first) is INVALID_ARGUMENT, and nothing moves.
- A practice battle refused for its team leaves its request id free: asked again it is
  INVALID_ARGUMENT again, and a corrected team under that id starts the battle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import uuid4

import grpc
import pytest
from google.protobuf.message import Message
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from devtools.stack import Stack
from tests.e2e.sessions import OPEN_TABLE, Player, join, mover, table_match

pytestmark = pytest.mark.integration


REUSED = "was already used for a different request"


MADE_UP = str(uuid4())
"""An id nothing has."""


async def refusal(player: Player, rpc: str, request: Message) -> tuple[grpc.StatusCode, str]:
    try:
        await player.call(rpc, request)
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    raise AssertionError(f"{rpc} was accepted: {request}")


async def copies(player: Player) -> list[str]:
    reply = await player.call("ListCollection", g.ListCollectionRequest(page_size=200))
    return [e.copy.copy_id for e in reply.entries]


@pytest.fixture
async def api(backend: Stack, channel: grpc.aio.Channel) -> Any:
    return backend.api(channel)


UNSEEN = {
    "\x1b[31mred": "U+001B",  # a terminal escape
    "bell\x07": "U+0007",
    "del\x7f": "U+007F",
    "\u200b": "U+200B",  # ZERO WIDTH SPACE: a name that shows nothing
    "evil\u202emoc.exe": "U+202E",  # RIGHT-TO-LEFT OVERRIDE: shows backwards
    "\ufeffbom": "U+FEFF",
    "two\u2028lines": "U+2028",
    "private\ue000": "U+E000",
}


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467 family"
"""An emoji sequence joined by ZERO WIDTH JOINERs: joiners are kept where text needs them."""


async def test_a_deck_name_a_reader_cannot_see_is_refused_and_saves_nothing(api: Any) -> None:
    ann = await join(api)
    deck = (await copies(ann))[:5]
    for name, code in UNSEEN.items():
        request = g.SaveDeckRequest(request_id=uuid4().hex, name=name, copy_ids=deck)
        refused = await refusal(ann, "SaveDeck", request)
        assert refused[0] == grpc.StatusCode.INVALID_ARGUMENT, (name, refused)
        assert "control or invisible characters" in refused[1] and code in refused[1], refused
    for name in ("", "   ", "\t\n", "\u3000", "\u200d", "n" * 41):
        request = g.SaveDeckRequest(request_id=uuid4().hex, name=name, copy_ids=deck)
        refused = await refusal(ann, "SaveDeck", request)
        assert refused[0] == grpc.StatusCode.INVALID_ARGUMENT, (name, refused)
    assert not (await ann.call("ListDecks", g.ListDecksRequest())).decks
    kept = {
        "  Main  ": "Main",
        "Ωmega deck": "Ωmega deck",
        "火の デッキ": "火の デッキ",
        FAMILY: FAMILY,
        "n" * 40: "n" * 40,
    }
    for name, shown in kept.items():
        request = g.SaveDeckRequest(request_id=uuid4().hex, name=name, copy_ids=deck)
        saved = await ann.call("SaveDeck", request)
        assert saved.deck.name == shown
    listed = (await ann.call("ListDecks", g.ListDecksRequest())).decks
    assert sorted(d.name for d in listed) == sorted(kept.values())


TEAM = ["ember", "bastion", "wisp"]
SQUARES = [
    pb.BattleSquare(row=0, col=0),
    pb.BattleSquare(row=1, col=0),
    pb.BattleSquare(row=1, col=1),
]


def unclocked(answer: Message) -> Message:
    """``answer`` without the server's clock, which a match view carries."""
    copy = type(answer)()
    copy.CopyFrom(answer)
    view = getattr(copy, "view", None)
    if view is not None and "server_time" in view.DESCRIPTOR.fields_by_name:
        view.ClearField("server_time")
    return copy


async def reused(
    player: Player,
    rpc: str,
    first: Message,
    *others: Message,
    same: Callable[[Any], Any] = unclocked,
) -> Any:
    """``first`` succeeds, answers the same when sent again, and each of ``others`` (the
    same request id, another request) is refused as the id reused, or, if it names a
    thing that does not exist (a made-up id), as NOT_FOUND; the first answer."""
    answer = await player.call(rpc, first)
    retried = await player.call(rpc, first)
    assert same(retried) == same(answer), f"{rpc}: a retry gets the first answer"
    for other in others:
        code, details = await refusal(player, rpc, other)
        made_up = MADE_UP[:8] in str(other)
        assert (code == grpc.StatusCode.INVALID_ARGUMENT and REUSED in details) or (
            made_up and code == grpc.StatusCode.NOT_FOUND and MADE_UP[:8] in details
        ), (rpc, code, details)
    return answer


def again(request: Message, **changed: Any) -> Message:
    other = type(request)()
    other.CopyFrom(request)
    for name, value in changed.items():
        if isinstance(value, list):
            del getattr(other, name)[:]
            getattr(other, name).extend(value)
        else:
            setattr(other, name, value)
    return other


async def test_a_request_id_reused_for_another_request_is_refused_on_every_kind_of_write(
    api: Any,
) -> None:
    ann, bea = await join(api), await join(api)
    mine = await copies(ann)
    # a deck and its deletion
    save = g.SaveDeckRequest(request_id=uuid4().hex, name="Main", copy_ids=mine[:5])
    deck = (await reused(ann, "SaveDeck", save, again(save, name="Other"))).deck.deck_id
    spare = (await ann.call("SaveDeck", again(save, request_id=uuid4().hex))).deck.deck_id
    delete = g.DeleteDeckRequest(request_id=uuid4().hex, deck_id=deck)
    await reused(ann, "DeleteDeck", delete, again(delete, deck_id=spare))
    # a listing, its cancellation
    listing = g.CreateListingRequest(request_id=uuid4().hex, copy_id=mine[-1], price=7)
    listed = await reused(
        ann, "CreateListing", listing, again(listing, price=8), again(listing, copy_id=mine[-2])
    )
    cancel = g.CancelListingRequest(request_id=uuid4().hex, listing_id=listed.listing.listing_id)
    await reused(ann, "CancelListing", cancel, again(cancel, listing_id=MADE_UP))
    # a practice battle: its id comes from the request id, the team and level must match
    start = g.StartPracticeBattleRequest(request_id=uuid4().hex, characters=TEAM)
    battle = await reused(
        ann,
        "StartPracticeBattle",
        start,
        again(start, characters=list(reversed(TEAM))),
        again(start, bot_level=pb.BATTLE_BOT_LEVEL_SEARCH),
    )
    assert [u.ref for u in battle.view.you.units] == TEAM
    battle_id = battle.view.battle_id
    formation = g.SetFormationRequest(request_id=uuid4().hex, battle_id=battle_id, squares=SQUARES)
    await reused(ann, "SetFormation", formation, again(formation, squares=SQUARES[::-1]))
    give_up = g.GiveUpRequest(request_id=uuid4().hex, battle_id=battle_id)
    await reused(ann, "GiveUp", give_up, again(give_up, battle_id=MADE_UP))
    # a queue ticket and its cancellation
    random_deck = pb.DeckChoice(random=pb.RandomDeck())
    enqueue = g.EnqueueRequest(request_id=uuid4().hex, mode=pb.MODE_RANKED, deck=random_deck)
    ticket = await reused(
        bea,
        "Enqueue",
        enqueue,
        g.EnqueueRequest(request_id=enqueue.request_id, mode=pb.MODE_DRAFT),
        same=lambda answer: answer.ticket.ticket_id,  # its wait goes on
    )
    cancel_ticket = g.CancelTicketRequest(request_id=uuid4().hex, ticket_id=ticket.ticket.ticket_id)
    await reused(bea, "CancelTicket", cancel_ticket, again(cancel_ticket, ticket_id=MADE_UP))
    # a table and its closing
    settings = pb.TableSettings(rules=OPEN_TABLE, random_deck=True)
    create = g.CreateTableRequest(request_id=uuid4().hex, settings=settings)
    table = await reused(bea, "CreateTable", create, again(create, challenged_player_name=ann.name))
    close = g.CloseTableRequest(request_id=uuid4().hex, table_id=table.table.table_id)
    await reused(bea, "CloseTable", close, again(close, table_id=MADE_UP))
    # a card placed, a match forfeited
    match_id = await table_match(ann, bea, OPEN_TABLE)
    first, second = await mover((ann, bea), match_id)
    view = await first.view(match_id)
    empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
    place = g.PlaceCardRequest(
        request_id=uuid4().hex,
        match_id=match_id,
        card_id=view.my_hand[0].card.card_id,
        cell=empty[0],
    )
    await reused(
        first,
        "PlaceCard",
        place,
        again(place, cell=empty[1]),
        again(place, card_id=view.my_hand[1].card.card_id),
    )
    forfeit = g.ForfeitRequest(request_id=uuid4().hex, match_id=match_id)
    await reused(second, "Forfeit", forfeit, again(forfeit, match_id=MADE_UP))
    assert len((await first.view(match_id)).board) == len(view.board)


async def test_a_client_seed_retried_after_later_rotations_gets_its_first_answer(
    api: Any,
) -> None:
    ann = await join(api)
    await ann.call("OpenBooster", g.OpenBoosterRequest(request_id=uuid4().hex))
    rotate = g.SetClientSeedRequest(request_id=uuid4().hex, client_seed="first")
    first = await ann.call("SetClientSeed", rotate)
    assert first.commitment.client_seed == "first" and first.revealed_seed.draw_count == 1
    for seed in ("second", "third"):
        await ann.call(
            "SetClientSeed", g.SetClientSeedRequest(request_id=uuid4().hex, client_seed=seed)
        )
    again = await ann.call("SetClientSeed", rotate)
    assert again.commitment == first.commitment
    assert again.revealed_seed == first.revealed_seed


async def test_another_players_listing_or_battle_is_refused_and_stays_as_it_was(
    api: Any,
) -> None:
    ann, eve = await join(api), await join(api)
    listed = await ann.call(
        "CreateListing",
        g.CreateListingRequest(request_id=uuid4().hex, copy_id=(await copies(ann))[0], price=9),
    )
    listing = listed.listing
    code, details = await refusal(
        eve,
        "CancelListing",
        g.CancelListingRequest(request_id=uuid4().hex, listing_id=listing.listing_id),
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED and "not yours" in details
    mine = (await ann.call("ListMyListings", g.ListMyListingsRequest())).listings
    assert [m.status for m in mine] == [listing.status]

    cid = await join(api)  # ann is in a match: one game at a time
    started = await cid.call(
        "StartPracticeBattle", g.StartPracticeBattleRequest(request_id=uuid4().hex, characters=TEAM)
    )
    battle_id = started.view.battle_id
    attempts: list[tuple[str, Message]] = [
        ("GetBattleView", g.GetBattleViewRequest(battle_id=battle_id)),
        (
            "SetFormation",
            g.SetFormationRequest(request_id=uuid4().hex, battle_id=battle_id, squares=SQUARES),
        ),
        ("CommitPlan", g.CommitPlanRequest(request_id=uuid4().hex, battle_id=battle_id, turn=1)),
        ("GiveUp", g.GiveUpRequest(request_id=uuid4().hex, battle_id=battle_id)),
    ]
    for rpc, request in attempts:
        code, details = await refusal(eve, rpc, request)
        assert code == grpc.StatusCode.NOT_FOUND and battle_id[:8] in details, (rpc, details)
    after = await cid.call("GetBattleView", g.GetBattleViewRequest(battle_id=battle_id))
    assert after.view == started.view


async def test_a_number_no_state_could_accept_is_invalid_argument_and_changes_nothing(
    api: Any,
) -> None:
    """A negative expected version or a turn before the first is malformed whatever the
    match or battle is at (INVALID_ARGUMENT), not a stale one to refresh (ABORTED) nor a
    plan for another turn (FAILED_PRECONDITION)."""
    ann, bea = await join(api), await join(api)
    match_id = await table_match(ann, bea, OPEN_TABLE)
    mover_, waiting = await mover((ann, bea), match_id)
    view = await mover_.view(match_id)
    empty = [c.index for c in view.board if c.WhichOneof("content") == "empty"]
    card = view.my_hand[0].card.card_id
    for version in (-1, -(2**63)):
        place = g.PlaceCardRequest(
            request_id=uuid4().hex,
            match_id=match_id,
            card_id=card,
            cell=empty[0],
            expected_version=version,
        )
        code, details = await refusal(mover_, "PlaceCard", place)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "expected_version" in details
    # A cell off the board, from the player who waits (found from outside: "it is not
    # your turn", as if the same cell would do on their turn).
    theirs = (await waiting.view(match_id)).my_hand[0].card.card_id
    for cell in (9, 2**31 - 1):
        place = g.PlaceCardRequest(
            request_id=uuid4().hex, match_id=match_id, card_id=theirs, cell=cell
        )
        code, details = await refusal(waiting, "PlaceCard", place)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "not on the 3x3 board" in details
    assert (await mover_.view(match_id)).version == view.version

    cid = await join(api)  # ann is in a match: one game at a time (RULES.md 5)
    started = await cid.call(
        "StartPracticeBattle", g.StartPracticeBattleRequest(request_id=uuid4().hex, characters=TEAM)
    )
    battle_id = started.view.battle_id
    formation = g.SetFormationRequest(request_id=uuid4().hex, battle_id=battle_id, squares=SQUARES)
    placed = (await cid.call("SetFormation", formation)).view
    for turn in (0, -1, -(2**31)):
        commit = g.CommitPlanRequest(request_id=uuid4().hex, battle_id=battle_id, turn=turn)
        code, details = await refusal(cid, "CommitPlan", commit)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "turns count from 1" in details
        # SetPlan alike (found from outside: it answered FAILED_PRECONDITION)
        setting = g.SetPlanRequest(request_id=uuid4().hex, battle_id=battle_id, turn=turn)
        code, details = await refusal(cid, "SetPlan", setting)
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "turns count from 1" in details
    after = await cid.call("GetBattleView", g.GetBattleViewRequest(battle_id=battle_id))
    assert after.view.version == placed.version and not after.view.plan
    # Squares off the field, once the battle is over (found from outside: "the battle is
    # over", where the same squares before its end were INVALID_ARGUMENT).
    await cid.call("GiveUp", g.GiveUpRequest(request_id=uuid4().hex, battle_id=battle_id))
    off = [pb.BattleSquare(row=9, col=9), pb.BattleSquare(row=0, col=0), pb.BattleSquare(row=1)]
    formation = g.SetFormationRequest(request_id=uuid4().hex, battle_id=battle_id, squares=off)
    code, details = await refusal(cid, "SetFormation", formation)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "off the 3x3 field" in details, details


async def test_an_over_long_seed_id_is_invalid_argument_as_every_other_id(api: Any) -> None:
    """Found from outside: ListBoosterDraws took a seed_id of any length (NOT_FOUND,
    after loading the player's seeds) where every other id is checked for length."""
    eve = await join(api)
    code, details = await refusal(
        eve, "ListBoosterDraws", g.ListBoosterDrawsRequest(seed_id="s" * 201)
    )
    assert (code, details) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "seed_id is longer than 200 characters",
    )


async def test_a_practice_battle_refused_for_its_team_leaves_its_request_id_free(
    api: Any,
) -> None:
    """Found from outside: the battle service refuses a team outside the roster (or not
    three different characters) after the matchmaker recorded the start under the request
    id, so the same request asked again answered FAILED_PRECONDITION, and the corrected
    team under that id "was already used for a different request"."""
    ann = await join(api)
    for team in (["zz", "yy", "xx"], ["volt", "volt", "rime"]):
        request_id = uuid4().hex
        bad = g.StartPracticeBattleRequest(request_id=request_id, characters=team)
        for _ in range(2):  # the first answer, then the same request again
            code, details = await refusal(ann, "StartPracticeBattle", bad)
            assert code == grpc.StatusCode.INVALID_ARGUMENT, details
        good = g.StartPracticeBattleRequest(request_id=request_id, characters=TEAM)
        started = await ann.call("StartPracticeBattle", good)
        battle_id = started.view.battle_id
        await ann.call("GiveUp", g.GiveUpRequest(request_id=uuid4().hex, battle_id=battle_id))
