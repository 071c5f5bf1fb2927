"""Domain views -> ``triad.v1.MatchView``: what the edge sends to one player, in a
reply, a stream, or pushed on the player's NATS subject (:class:`SeatViews`)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from typing import Any

from triad.v1 import common_pb2 as pb

from services import wire
from services.match import mapping, mapping_realm
from services.match.domain import SEATS, Match
from services.match.domain.events import CardPlaced, MatchCard
from services.match.views import CellView, MatchView, match_view
from services.platform.pushes import PlayerPushes
from services.rules import Hidden

MATCH_VIEW = "match_view"
"""The session push field (``OpenSessionResponse.push``) a match view travels as."""
KEPT_VIEWS = 1_024
"""Views kept for the replies of the commands that made them (one per match and human
seat, the latest version's): a reply follows its announcement within the same task."""


def _placement(event: CardPlaced, card: MatchCard) -> pb.Placement:
    return pb.Placement(
        turn_number=event.turn,
        seat=mapping.SEATS[event.seat],
        card=mapping.card(card),
        cell=event.cell,
        captures=mapping.captures(event.captures),
        auto_played=event.auto_played,
    )


def view_message(
    view: MatchView, now: datetime, other_seat: pb.MatchView | None = None
) -> pb.MatchView:
    """The protobuf view of one player; built from the redacted domain view only.

    Nested messages are filled in place (``add``, ``CopyFrom``, attributes) rather than
    built apart and copied in: each PlaceCard reply is one of these, and building a
    part apart costs a second copy of it.

    ``other_seat``: the other seat's message of the same version and moment. What both
    seats see alike (rules, players, board, last placement, outcome) is copied from it
    and only the seat's own fields are filled: a version's second view costs about a
    third of its first."""
    if other_seat is not None:
        message = pb.MatchView()
        message.CopyFrom(other_seat)
        message.ClearField("my_hand")
        message.ClearField("opponent_hand")
        _fill_seat(message, view)
        return message
    setup = view.setup
    message = pb.MatchView(
        match_id=view.match_id,
        version=view.version,
        mode=mapping.MODES[setup.mode],
        origin_mode=mapping.MODES[setup.origin_mode],
        rules=mapping.rules(setup),
        ladder=mapping.ladder(setup),
        first_seat=mapping.SEATS[view.first],
        turn_seat=mapping.SEATS[view.turn_seat],
        turn_number=view.turn,
        turn_deadline_time=wire.timestamp(view.deadline),
        turn_duration=wire.duration(view.turn_seconds),
        status=pb.MATCH_STATUS_IN_PROGRESS if view.finished is None else pb.MATCH_STATUS_FINISHED,
        create_time=wire.timestamp(view.created_at),
        server_time=wire.timestamp(now),
    )
    for info in view.players:
        message.players.add(
            seat=mapping.SEATS[info.seat],
            player_name=info.player.name,
            is_bot=info.player.is_bot,
            bot_level=mapping.BOT_LEVELS[info.player.bot_level],
            score=info.score,
            hand_size=info.hand_size,
            missed_turn_warning=info.warned,
            connected=info.connected,
            disconnect_forfeit_time=wire.timestamp(info.forfeit_at),
        )
    _fill_board(message.board, view.board)
    if view.round > 1:
        # The rules carry the blocked cells drawn at match start; each Sudden Death
        # round draws its own (RULES.md 12), and the view shows the round's.
        blocked = message.rules.board.blocked_cells
        del blocked[:]
        blocked.extend(c.index for c in view.board if c.blocked)
    message.round_number = view.round
    for ended in view.earlier:
        result = message.earlier_rounds.add(
            round_number=ended.number, first_seat=mapping.SEATS[ended.first]
        )
        result.scores.seat_a, result.scores.seat_b = ended.scores
        _fill_board(result.board, ended.board)
        if ended.last is not None and ended.last_card is not None:
            result.last_placement.CopyFrom(_placement(ended.last, ended.last_card))
    if view.last is not None and view.last_card is not None:
        message.last_placement.CopyFrom(_placement(view.last, view.last_card))
    if view.finished is not None:
        message.outcome.CopyFrom(mapping.outcome(view.finished))
    if view.realm is not None:
        _fill_realm(message.realm, view)
    _fill_seat(message, view)
    return message


def _fill_board(board: Any, cells: tuple[CellView, ...]) -> None:
    """``cells`` added to ``board``, a repeated BoardCell field."""
    for cell in cells:
        out = board.add(index=cell.index, mark=wire.ELEMENTS[cell.mark])
        if cell.blocked:
            out.blocked.SetInParent()
        elif cell.card is None:
            out.empty.SetInParent()
        else:
            assert cell.owner is not None and cell.adjusted is not None
            placed = out.card
            placed.card.CopyFrom(mapping.card(cell.card))
            placed.owner_seat = mapping.SEATS[cell.owner]
            placed.placed_by_seat = mapping.SEATS[cell.placed_by]
            adjusted = placed.adjusted_sides
            adjusted.top, adjusted.right, adjusted.bottom, adjusted.left = cell.adjusted
            placed.placed_turn = cell.placed_turn


def _fill_realm(out: pb.RealmView, view: MatchView) -> None:
    """The Realm state both seats see: each cell's hex (from its face-up card), spent
    powers, the last move's Realm outcome, the size (only) of the draw pile, and once
    Realm Sudden Death has replaced cards, the tying placement and each replacement."""
    realm = view.realm
    assert realm is not None and view.setup.realm is not None
    cards = tuple(cell.card for cell in view.board)
    out.CopyFrom(mapping_realm.state(realm.state, cards, view.setup.realm.cursed))
    if realm.last is not None:
        out.last_move.CopyFrom(mapping_realm.move(realm.last))
    out.draw_pile_left = realm.pile_left
    if realm.tying is not None:
        out.tying_placement.CopyFrom(_placement(*realm.tying))
    for replaced in realm.replacements:
        out.replacements.add(
            cell=replaced.cell,
            removed=mapping.card(replaced.removed),
            drawn=mapping.card(replaced.drawn),
            seat=mapping.SEATS[replaced.seat],
        )


def _fill_seat(message: pb.MatchView, view: MatchView) -> None:
    """The fields only this seat sees as it does: which seat it is, its hand (and which
    of it the opponent sees), the opponent's hand as shown to it."""
    message.my_seat = mapping.SEATS[view.seat]
    for own in view.hand:
        mine = message.my_hand.add(revealed_to_opponent=own.card_id in view.revealed)
        mine.card.CopyFrom(mapping.card(own))
    for slot in view.opponent_hand:
        if isinstance(slot, Hidden):
            message.opponent_hand.add().hidden.SetInParent()
        else:
            message.opponent_hand.add().revealed.CopyFrom(mapping.card(slot))


class SeatViews:
    """Each human seat's view of a committed version, built once: pushed to the player
    (``announce``, the handlers' ``Context.announce``), then reused by the reply to the
    command that made the version (``reply``). Bot seats have no session: nothing is
    built or sent for them."""

    def __init__(
        self, pushes: PlayerPushes, clock: Callable[[], datetime], keep: int = KEPT_VIEWS
    ) -> None:
        self._pushes = pushes
        self._clock = clock
        self._keep = keep
        self._built: OrderedDict[tuple[str, str], pb.MatchView] = OrderedDict()

    def build(self, match: Match, player_id: str) -> pb.MatchView:
        """The view of ``player_id`` now (strangers get MatchNotFound)."""
        return view_message(match_view(match, player_id), self._clock())

    async def announce(self, match: Match, quiet: str = "") -> None:
        """Each human seat's view of ``match`` built, kept for its reply and published,
        but for ``quiet``'s (its reply carries it: ``handlers.Announce``)."""
        now = self._clock()
        view: MatchView | None = None  # the first seat's: the second shares what it can
        message: pb.MatchView | None = None
        for seat in SEATS:
            player = match.player(seat)
            if player.is_bot:
                continue
            view = match_view(match, player.player_id, view)
            message = view_message(view, now, message)
            key = (match.match_id, player.player_id)
            self._built[key] = message
            self._built.move_to_end(key)
            if len(self._built) > self._keep:
                self._built.popitem(last=False)
            if player.player_id != quiet:
                await self._pushes.send(player.player_id, MATCH_VIEW, message)

    def reply(self, match: Match, player_id: str) -> pb.MatchView:
        """The view announced for this version, taken (a reply needs it once), or one
        built now (a retried request's answer, an unannounced state). The caller copies
        it into its reply and never changes it: it was published as it is."""
        built = self._built.pop((match.match_id, player_id), None)
        if built is not None and built.version == match.version:
            return built
        return self.build(match, player_id)
