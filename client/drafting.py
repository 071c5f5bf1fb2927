"""Draft from the terminal (RULES.md 8): the three boosters with their cards hidden
until revealed, the picks, the 3-minute pick clock and the 120-s inactivity clock,
the opponent's pick count and, once five are picked, the built deck.

Typed on the live screen (``play``) or given to ``triad-client draft``:
``r B`` opens booster B (0..2), ``r B C`` reveals its card C (0..4), ``p B C`` picks it.
"""

from __future__ import annotations

import argparse
import contextlib
import uuid
from datetime import UTC, datetime
from typing import Any

import grpc
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import Caller, CommandError, as_json
from client.rules_text import element_name, sides

DRAFT_PROMPT = "draft > "
DRAFT_HINT = "r B: open booster B (0..2); r B C: reveal card C (0..4); p B C: pick it"


def clock(deadline: datetime, now: datetime) -> str:
    """'2:41' left until ``deadline`` (never below 0:00)."""
    left = max(0, int((deadline - now).total_seconds()))
    return f"{left // 60}:{left % 60:02}"


def drafted(draft: pb.DraftView) -> dict[str, pb.Card]:
    """Every revealed draft card by its id."""
    return {
        slot.revealed.card_id: slot.revealed
        for booster in draft.boosters
        for slot in booster.slots
        if slot.WhichOneof("card") == "revealed"
    }


def deck_words(draft: pb.DraftView) -> str:
    """The deck built so far, in pick order: 'Ifrit, Shiva' ('' before a pick)."""
    cards = drafted(draft)
    return ", ".join(
        cards[i].character.name if i in cards else i[:8] for i in draft.picked_card_ids
    )


def status_words(draft: pb.DraftView, now: datetime | None = None) -> str:
    """Where the draft stands: the picks, both clocks; or how it ended."""
    now = now or datetime.now(UTC)
    need = draft.picks_required or 5
    if draft.status == pb.DRAFT_STATUS_COMPLETED:
        return f"Draft complete: your deck is {deck_words(draft)}. The match follows."
    if draft.status == pb.DRAFT_STATUS_FORFEITED:
        who = " and ".join(draft.forfeiting_player_names) or "a player"
        won = f"; {draft.winner_player_name} wins it" if draft.winner_player_name else ""
        return f"Draft forfeited: {who} stayed inactive too long{won}."
    picks = f"Picked {len(draft.picked_card_ids)} of {need}"
    them = f"{draft.opponent_name} picked {draft.opponent_pick_count}"
    if done_picking(draft):  # nothing left to do, no clock of yours
        return f"Your deck is complete: waiting for {draft.opponent_name} ({them} of {need})."
    pick_left = clock(draft.pick_deadline_time.ToDatetime(tzinfo=UTC), now)
    idle_left = clock(draft.inactivity_deadline_time.ToDatetime(tzinfo=UTC), now)
    return (
        f"{picks} ({them}); {pick_left} left to pick, then the server completes your deck; "
        f"act within {idle_left} or forfeit."
    )


def done_picking(draft: pb.DraftView) -> bool:
    """The player has picked their whole deck; the draft waits for the opponent's."""
    need = draft.picks_required or 5
    return draft.status == pb.DRAFT_STATUS_PICKING and len(draft.picked_card_ids) >= need


NAME = 21
"""The most of a name a booster's column shows (a holo card's ``*`` after it): three
columns of it fit 80 (found from outside: cut to 10, 'Brannoch E' and 'Chapel Gar'
named more than one character)."""


SHORT_ELEMENTS = {
    pb.ELEMENT_THUNDER: "thun",
    pb.ELEMENT_EARTH: "erth",
    pb.ELEMENT_POISON: "pois",
    pb.ELEMENT_WATER: "watr",
}
"""Elements in at most four letters, the rest whole (found from outside: cut to three,
holy read 'hol', as if holographic)."""


def _slot(slot: pb.DraftSlot) -> Text:
    """A card in two lines: its name, then stars, element, printed sides, PICKED."""
    if slot.WhichOneof("card") != "revealed":
        return Text("?  (hidden)", style="dim")
    card = slot.revealed
    name = card.character.name
    name = (name if len(name) <= NAME else name[: NAME - 1] + "…") + ("*" if card.holo else "")
    element = SHORT_ELEMENTS.get(card.character.element, element_name(card.character.element))
    text = Text(name, style="bold green" if slot.picked else "")
    text.append(f"\n{card.character.stars}★ {element:<4} {sides(card.printed_sides, spaced=False)}")
    text.append(" PICKED" if slot.picked else "")
    return text


def boosters_table(draft: pb.DraftView) -> Table:
    """The three boosters side by side, a card per row (its index first)."""
    table = Table(title=f"Draft against {draft.opponent_name}", title_justify="left")
    table.add_column("")
    for booster in draft.boosters:
        table.add_column(f"booster {booster.booster_index}", no_wrap=True)
    holo = any(s.revealed.holo for b in draft.boosters for s in b.slots if s.HasField("revealed"))
    if holo:  # found from outside: a holo card's '*' was said nowhere on the screen
        table.caption, table.caption_justify = "* holographic: +1 on one side", "left"
    rows = max((len(b.slots) for b in draft.boosters), default=0)
    for index in range(rows):
        table.add_row(
            str(index),
            *(_slot(b.slots[index]) if index < len(b.slots) else "" for b in draft.boosters),
        )
    return table


async def forfeit_rated(
    client: Caller, draft: pb.DraftView, ratings: dict[str, pb.RatingChange]
) -> bool:
    """Whether a forfeited draft's rating change is known (pushed, or read now from the
    Draft ladder's history) for its end to say (found from outside: a draft won by a
    forfeit moved the rating, and the screen said nothing of it); one both players
    forfeited has none to wait for."""
    if draft.draft_id in ratings or not draft.winner_player_name:
        return True
    with contextlib.suppress(grpc.aio.AioRpcError):
        history = await client.call(
            client.stub.ListRatingHistory,
            g.ListRatingHistoryRequest(ladder=pb.LadderKey(ladder=pb.LADDER_DRAFT), page_size=5),
        )
        for change in history.changes:
            if change.draft_id == draft.draft_id:
                ratings[draft.draft_id] = change
    return draft.draft_id in ratings


def boosters_or_width(draft: pb.DraftView, console: Console | None) -> RenderableType:
    """The boosters, or, where they do not fit the terminal's width, the width they need
    (found from outside: in 60 columns the cards' numbers were squeezed out and their
    sides cut, 'T4R2B8…', while a pick is typed by those numbers)."""
    table = boosters_table(draft)
    if console is None:
        return table
    needed = Measurement.get(console, console.options.update(max_width=400), table).maximum
    if needed <= console.width:
        return table
    return Text(
        f"This terminal is {console.width} columns wide: the boosters need {needed}. "
        "Enlarge the window (the clocks run on).",
        style="bold yellow",
    )


def draft_frame(
    draft: pb.DraftView,
    typing: str = "",
    note: str = "",
    rating: pb.RatingChange | None = None,
    console: Console | None = None,
) -> RenderableType:
    """The draft on the live screen: boosters (as wide as ``console``, when given, lets
    them be), picks and clocks, the deck, the prompt; once forfeited, the rating change
    it brought."""
    parts: list[RenderableType] = [
        boosters_or_width(draft, console),
        Text(status_words(draft), style="bold"),
    ]
    if rating is not None and draft.status == pb.DRAFT_STATUS_FORFEITED:
        change = f"{rating.rating_before} -> {rating.rating_after} ({rating.delta:+d})"
        parts.append(Text(f"Rating (Draft): {change}."))
    if draft.picked_card_ids and draft.status == pb.DRAFT_STATUS_PICKING:
        parts.append(Text(f"Your deck: {deck_words(draft)}"))
    if draft.status != pb.DRAFT_STATUS_PICKING or done_picking(draft):
        return Group(*parts)
    if note:
        parts.append(Text(note, style="yellow"))
    parts.append(Text(DRAFT_HINT, style="dim"))
    prompt = Text(DRAFT_PROMPT, style="bold")
    prompt.append(typing)
    prompt.append("_", style="blink")
    parts.append(prompt)
    return Group(*parts)


def _index(word: str, top: int, what: str) -> int:
    if not word.isdigit() or not 0 <= int(word) <= top:
        raise CommandError(f"{what} is a number 0..{top}, not {word!r}")
    return int(word)


async def act(
    client: Caller, draft: pb.DraftView, words: list[str], reveal: str = "r"
) -> pb.DraftView:
    """``r B [C...]`` reveals, ``p B C`` picks; the draft as it is after. ``reveal``:
    how the player reveals a card where they typed this (the hint of a refused pick).
    The command word in any case ("R 1" as the hint writes it)."""
    words = [words[0].lower(), *words[1:]] if words else words
    if not words or words[0] not in ("r", "reveal", "p", "pick"):
        raise CommandError(DRAFT_HINT)
    booster = _index(words[1], 2, "a booster") if len(words) > 1 else None
    if booster is None:
        raise CommandError(DRAFT_HINT)
    cards = [_index(w, 4, "a card") for w in words[2:]]
    if words[0] in ("r", "reveal"):
        revealed = await client.call(
            client.stub.RevealDraftCards,
            g.RevealDraftCardsRequest(
                request_id=uuid.uuid4().hex,
                draft_id=draft.draft_id,
                booster_index=booster,
                card_indices=cards,
            ),
        )
        return revealed.draft  # type: ignore[no-any-return]
    if len(cards) != 1:
        raise CommandError("pick one card: p BOOSTER CARD, e.g. p 0 3")
    slots = [b for b in draft.boosters if b.booster_index == booster]
    slot = slots[0].slots[cards[0]] if slots and cards[0] < len(slots[0].slots) else None
    if slot is None or slot.WhichOneof("card") != "revealed":
        raise CommandError(
            f"reveal card {cards[0]} of booster {booster} first: {reveal} {booster} {cards[0]}"
        )
    picked = await client.call(
        client.stub.PickDraftCard,
        g.PickDraftCardRequest(
            request_id=uuid.uuid4().hex,
            draft_id=draft.draft_id,
            draft_card_id=slot.revealed.card_id,
        ),
    )
    return picked.draft  # type: ignore[no-any-return]


async def current(client: Caller) -> pb.DraftView:
    """The draft the player is in (GetPlayerStatus names it)."""
    status = (await client.call(client.stub.GetPlayerStatus, g.GetPlayerStatusRequest())).status
    if not status.draft_id:
        raise CommandError("you are in no draft: triad-client queue --mode draft queues for one")
    found = await client.call(client.stub.GetDraft, g.GetDraftRequest(draft_id=status.draft_id))
    return found.draft  # type: ignore[no-any-return]


async def draft(client: Caller, args: argparse.Namespace, console: Console) -> int:
    """``draft`` (show), ``draft reveal B [C...]``, ``draft pick B C``."""
    shown = await current(client)
    action = args.draft_command or "show"
    if action != "show":
        words = ["r" if action == "reveal" else "p", str(args.booster), *map(str, args.card)]
        shown = await act(client, shown, words, reveal="triad-client draft reveal")
    if args.json:
        print(as_json(shown))
        return 0
    console.print(boosters_table(shown))
    console.print(status_words(shown))
    if shown.picked_card_ids:
        console.print(f"Your deck: {deck_words(shown)}")
    return 0


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    drafting = sub.add_parser(
        "draft", parents=[common], help="your draft: show it, reveal cards, pick (RULES.md 8)"
    )
    actions = drafting.add_subparsers(dest="draft_command")
    actions.add_parser("show", parents=[common], help="the boosters, picks and clocks")
    reveal = actions.add_parser("reveal", parents=[common], help="open a booster or some cards")
    reveal.add_argument("booster", type=int, help="0..2")
    reveal.add_argument("card", type=int, nargs="*", help="0..4; none: the whole booster")
    pick = actions.add_parser("pick", parents=[common], help="pick a revealed card")
    pick.add_argument("booster", type=int, help="0..2")
    pick.add_argument("card", type=int, nargs=1, help="0..4")
