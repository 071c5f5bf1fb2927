"""The draft on the terminal: three boosters with hidden and revealed cards, the picks
marked, the 3-minute pick clock and the inactivity clock, the deck being built, how a
forfeited draft ended; and typed actions refused before any call when they cannot be
right (a hidden card picked, a booster or card out of range)."""

from __future__ import annotations

import argparse
import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from rich.console import Console
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import CommandError
from client.drafting import act, draft_frame, forfeit_rated, status_words
from client.drafting import draft as draft_command
from client.tests.views import card

NOW = datetime(2026, 12, 1, 21, 0, tzinfo=UTC)


def at(seconds: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(NOW + timedelta(seconds=seconds))
    return stamp


def draft(revealed: int = 7, picked: tuple[int, ...] = (0, 6)) -> pb.DraftView:
    """Booster 0 open, booster 1 with two cards shown, booster 2 closed; cards 0 and 6
    (by position over the boosters) picked; 2:41 left to pick, 100 s to act."""
    boosters = []
    for b in range(3):
        slots = []
        for i in range(5):
            n = b * 5 + i
            slot = pb.DraftSlot(card_index=i, picked=n in picked)
            if n < revealed:
                slot.revealed.CopyFrom(card(n, f"d{b}"))
            else:
                slot.hidden.SetInParent()
            slots.append(slot)
        boosters.append(pb.DraftBooster(booster_index=b, slots=slots))
    ids = [boosters[n // 5].slots[n % 5].revealed.card_id for n in picked]
    return pb.DraftView(
        draft_id="draft-1",
        status=pb.DRAFT_STATUS_PICKING,
        boosters=boosters,
        picked_card_ids=ids,
        picks_required=5,
        pick_deadline_time=at(161),
        inactivity_deadline_time=at(100),
        opponent_name="bea",
        opponent_pick_count=3,
    )


def shown(view: pb.DraftView) -> str:
    out = io.StringIO()
    Console(width=80, height=24, file=out, color_system=None).print(draft_frame(view, "p 0 1"))
    return out.getvalue()


def test_the_draft_shows_boosters_picks_clocks_and_the_deck() -> None:
    screen = shown(draft())
    lines = screen.splitlines()
    assert len(lines) <= 24 and max(map(len, lines)) <= 80, screen
    assert "Draft against bea" in screen
    assert screen.count("(hidden)") == 8, "three cards of booster 1, booster 2 whole"
    assert screen.count("PICKED") == 2
    assert "Your deck: Quistis Trepe, Tonberry King" in screen
    assert lines[-1].startswith("draft > p 0 1")
    words = status_words(draft(), NOW)
    assert words.startswith("Picked 2 of 5 (bea picked 3); 2:41 left to pick")
    assert "act within 1:40 or forfeit" in words


def test_every_booster_open_names_each_card_whole_in_80_columns() -> None:
    """Found from outside: names were cut to 10 letters at any width, so 'Brannoch E'
    or 'Chapel Gar' could be either of two characters. Now up to 21 letters (4 of the
    112 are longer, cut with '…'), a holo card's '*' after it."""
    view = draft(revealed=15, picked=(0, 6, 14))
    names = [
        "Brannoch Emberwright",
        "Brannoch Embercrown",
        "Chapel Gargoyle",
        "Vaskarath the Glacier Throne",
    ]
    for n, name in enumerate(names * 4):
        if n < 15:
            view.boosters[n // 5].slots[n % 5].revealed.character.name = name
    view.boosters[0].slots[3].revealed.holo = True
    # Found from outside: holy cut to 'hol' read as holographic. Picked ones are widest.
    for slot, element in ((0, pb.ELEMENT_HOLY), (6, pb.ELEMENT_THUNDER), (14, pb.ELEMENT_WATER)):
        view.boosters[slot // 5].slots[slot % 5].revealed.character.element = element
    screen = shown(view)
    lines = screen.splitlines()
    assert len(lines) <= 24 and max(map(len, lines)) <= 80, screen
    assert " holy " in screen and " thun " in screen and " watr " in screen, screen
    for name in names[:3]:
        assert name in screen, screen
    assert "Vaskarath the Glacie…" in screen and "Vaskarath the Glacie…*" in screen, screen
    # Found from outside: the '*' was said nowhere on the screen.
    assert "* holographic: +1 on one side" in screen, screen
    assert "holographic" not in shown(draft()), "said where a holo card shows only"
    assert screen.count("PICKED") == 3, screen


def test_a_completed_or_forfeited_draft_says_how_it_ended() -> None:
    done = draft(revealed=15, picked=(0, 1, 2, 5, 10))
    done.status = pb.DRAFT_STATUS_COMPLETED
    assert status_words(done).startswith("Draft complete: your deck is Quistis Trepe, Chocobo")
    assert "draft >" not in shown(done), "nothing more to type"
    lost = draft()
    lost.status = pb.DRAFT_STATUS_FORFEITED
    lost.forfeiting_player_names.append("ann")
    lost.winner_player_name = "bea"
    assert status_words(lost) == "Draft forfeited: ann stayed inactive too long; bea wins it."


class History:
    """A gateway whose Draft ladder history holds the forfeited draft's change."""

    def __init__(self, draft_id: str) -> None:
        self.stub = self
        self.change = pb.RatingChange(draft_id=draft_id, rating_before=1500, rating_after=1519)
        self.change.delta = 19

    async def ListRatingHistory(self, request: Any) -> g.ListRatingHistoryResponse:
        assert request.ladder.ladder == pb.LADDER_DRAFT
        return g.ListRatingHistoryResponse(changes=[pb.RatingChange(match_id="m0"), self.change])

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)


async def test_a_draft_won_by_a_forfeit_ends_with_its_rating_change() -> None:
    """Found from outside: 'Draft forfeited: ec_cid stayed inactive too long; tc_ann
    wins it.' and the client ended, while the Draft rating had moved (+19): the end of
    a match says its rating change, a forfeited draft's did not."""
    won = draft()
    won.status = pb.DRAFT_STATUS_FORFEITED
    won.forfeiting_player_names.append("bea")
    won.winner_player_name = "ann"
    ratings: dict[str, pb.RatingChange] = {}
    assert await forfeit_rated(History(won.draft_id), won, ratings)
    out = io.StringIO()
    console = Console(width=80, height=24, file=out, color_system=None)
    console.print(draft_frame(won, "", "", ratings[won.draft_id]))
    assert "Rating (Draft): 1500 -> 1519 (+19)." in out.getvalue(), out.getvalue()
    both = draft()
    both.status = pb.DRAFT_STATUS_FORFEITED
    assert await forfeit_rated(History("other"), both, {})  # none to wait for


def test_a_deck_picked_whole_waits_for_the_opponent_without_a_clock_or_a_prompt() -> None:
    """Found from outside: with five of five picked the screen still said "act within
    0:11 or forfeit" over the draft prompt, while the draft only waited for the other."""
    waiting = draft(revealed=15, picked=(0, 1, 2, 5, 10))
    assert status_words(waiting, NOW) == (
        "Your deck is complete: waiting for bea (bea picked 3 of 5)."
    )
    screen = shown(waiting)
    assert "forfeit" not in screen and "draft >" not in screen, screen


class Refusing:
    """A caller that fails the test if anything is sent."""

    stub: Any = None

    async def call(self, method: Any, request: Any) -> Any:
        raise AssertionError(f"nothing should be sent: {request}")


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("p 1 4", "reveal card 4 of booster 1 first: r 1 4"),
        ("P 1 4", "reveal card 4 of booster 1 first: r 1 4"),  # the command in any case
        ("R 3", "a booster is a number 0..2"),
        ("p 0", "pick one card: p BOOSTER CARD"),
        ("r 3", "a booster is a number 0..2"),
        ("r 0 5", "a card is a number 0..4"),
        ("x 0", "r B: open booster B"),
        ("p", "r B: open booster B"),
    ],
)
async def test_a_draft_action_that_cannot_be_right_is_refused_before_any_call(
    typed: str, said: str
) -> None:
    with pytest.raises(CommandError, match=said.replace("(", r"\(")):
        await act(Refusing(), draft(), typed.split())


class Reads:
    GetPlayerStatus = GetDraft = None


class Drafting(Refusing):
    """A caller that answers only the reads of the draft the player is in."""

    stub = Reads()

    async def call(self, method: Any, request: Any) -> Any:
        if isinstance(request, g.GetPlayerStatusRequest):
            return g.GetPlayerStatusResponse(status=g.PlayerStatus(draft_id="draft-1"))
        if isinstance(request, g.GetDraftRequest):
            return g.GetDraftResponse(draft=draft())
        return await super().call(method, request)


async def test_a_scripted_pick_of_a_hidden_card_is_told_the_scripted_reveal() -> None:
    """``triad-client draft pick 1 4`` is told the command that reveals the card, not
    the ``r 1 4`` typed on the draft's screen."""
    args = argparse.Namespace(draft_command="pick", booster=1, card=[4], json=False)
    with pytest.raises(CommandError, match=r"first: triad-client draft reveal 1 4$"):
        await draft_command(Drafting(), args, Console(file=io.StringIO()))


def test_boosters_too_wide_for_the_terminal_say_the_width_they_need() -> None:
    """Found from outside: in 60 columns the boosters' card numbers were squeezed out and
    the sides cut ('T4R2B8…'), while a pick is typed by those numbers."""
    view = draft(revealed=15, picked=())
    for booster in view.boosters:
        for slot in booster.slots:
            slot.revealed.character.name = "Brannoch Emberwright"
    out = io.StringIO()
    console = Console(width=60, height=24, file=out, color_system=None)
    console.print(draft_frame(view, "p 0 1", console=console))
    screen = out.getvalue()
    assert "This terminal is 60 columns wide: the boosters need" in screen, screen
    assert "…" not in screen and screen.splitlines()[-1].startswith("draft > p 0 1"), screen
    wide = Console(width=80, file=io.StringIO())
    assert "booster 0" in shown(draft()) and draft_frame(draft(), console=wide) is not None
