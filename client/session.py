"""What a player's session stream told the live screen, newest kept: the match view
(and every move its views told), the queue, the trade, the draft, rating changes by
match, and the last notice."""

from __future__ import annotations

from datetime import UTC, datetime

from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.expiry import expiry
from client.frame import settled
from client.rules_text import rules_line

RESUMED = "You have an active battle: your match resumes."
FOUND = ("Match found: ", "Draft found: ")
"""Said when a session opens in a match in progress (RULES.md 5's words)."""
NOT_YOUR_TURN = "Not your turn yet."
"""Said to a move typed on the opponent's turn, until the match moves on."""
ENDED_AWAY = "MATCH_ENDED_AWAY"
"""The notice of a match that ended while no session of the player was open."""
BATTLE_ENDED_AWAY = "BATTLE_ENDED_AWAY"
"""The same of a Skirmish battle (the CPU played the player's seat after they left)."""
CHALLENGE_ENDS = {
    pb.TABLE_STATUS_CLOSED: "{host} withdrew the challenge (table {table}).",
    pb.TABLE_STATUS_EXPIRED: "The challenge from {host} expired (table {table}).",
    pb.TABLE_STATUS_DECLINED: "You declined the challenge from {host} (table {table}).",
}
"""How a challenge to the player ended, where its push was the news on the screen."""


OPENING = "Opening your session: the server tells what is going on."
BATTLE_RESUMES = "You have an active battle: your Skirmish battle resumes."


class Followed:
    """What the session stream told, newest first: the match view, the queue, the
    trade, the draft, rating changes by match, and the last notice."""

    def __init__(self, resuming: bool = False) -> None:
        self.resuming = resuming
        """Whether a match the session opens in is resumed (``triad-client play``),
        not one just started by this client (practice, join, switch)."""
        self.view: pb.MatchView | None = None
        self.received = datetime.now(UTC)
        self.queue: pb.QueueStatus | None = None
        self.table: pb.Table | None = None
        """The table the player hosts, as the session last told it."""
        self.trade: pb.Trade | None = None
        self.draft: pb.DraftView | None = None
        self.ratings: dict[str, pb.RatingChange] = {}
        self.note = ""
        self.leaving = False
        """The player left (the trade to the server): the client ends."""
        self.moves: dict[int, pb.Placement] = {}
        """The moves of the match shown, by turn number, as its views told them."""
        self.opened = False
        """The session told its opening state (before it, no screen is the truth)."""
        self.session_id = ""
        """The session's id: a PlaceCard naming it is answered with the view, not also
        pushed."""
        self.away: list[str] = []
        """Matches and battles that ended while the player was away, told once above the
        screen (as its note they read as the result of the match on it)."""
        self.battle: pb.BattleView | None = None
        """A Skirmish battle in progress (the Battle queue paired the player, or the
        session opened in one): ``play`` hands the terminal over to its screen."""

    def show(self, view: pb.MatchView) -> None:
        shown = self.view
        if shown is None or shown.match_id != view.match_id:
            self.moves = {}
        if shown is None or shown.match_id != view.match_id or view.version > shown.version:
            self.view, self.received = view, datetime.now(UTC)
            if self.note == NOT_YOUR_TURN:
                self.note = ""  # the match moved on: it may be your turn now
            stale = self.note == RESUMED or self.note.startswith(FOUND)
            if stale and view.status == pb.MATCH_STATUS_FINISHED:
                # Under the result it read as news after the end (found in review: "Match
                # found: you play bea." under a Trade All's cards moved).
                self.note = ""
        if view.HasField("last_placement"):
            self.moves[view.last_placement.turn_number] = view.last_placement

    def keep(self, trade: pb.Trade) -> None:
        """The trade as last told, never back from its completion to a prompt."""
        held = self.trade
        if held is None or held.trade_id != trade.trade_id or not settled(held):
            self.trade = trade

    def keep_draft(self, draft: pb.DraftView) -> None:
        held = self.draft
        if held is None or held.draft_id != draft.draft_id or draft.version > held.version:
            self.draft = draft

    def queue_from(self, ticket: pb.Ticket) -> None:
        """The queue as the status the session opened with tells it: the ticket, waiting
        since it was enqueued (the Enqueue's own push went out before the session
        listened, and an Unranked queue sends no other until a bot takes the seat)."""
        self.queue = pb.QueueStatus(ticket=ticket)
        if self.view is None and ticket.HasField("enqueue_time"):
            self.received = min(datetime.now(UTC), ticket.enqueue_time.ToDatetime(UTC))

    def take(self, push: g.OpenSessionResponse) -> bool:
        """One push; False once the server closed the session."""
        kind = push.WhichOneof("push")
        if kind == "session_opened":
            opened = push.session_opened
            self.opened = True
            self.session_id = opened.session_id
            if opened.HasField("active_match"):
                active = opened.active_match
                if self.resuming and self.view is None:
                    self.note = RESUMED  # once: a reopened session's match is no news
                self.show(active)
            if opened.HasField("active_battle"):
                self.follow_battle(opened.active_battle)
            if opened.HasField("draft"):
                self.keep_draft(opened.draft)
            if opened.status.HasField("ticket") and self.queue is None:
                self.queue_from(opened.status.ticket)
            if opened.status.HasField("hosted_table"):
                self.table = opened.status.hosted_table
            if opened.status.HasField("pending_trade"):  # a match over, its trade open
                self.keep(opened.status.pending_trade)
        elif kind == "match_view":
            self.show(push.match_view)
        elif kind == "battle":
            self.follow_battle(push.battle)
        elif kind == "queue_status":
            self.queue = push.queue_status
            if self.view is None:
                self.received = datetime.now(UTC)
        elif kind == "table":
            self.table = push.table
        elif kind in ("trade_prompt", "trade_result"):
            self.keep(getattr(push, kind))
        elif kind == "draft":
            self.keep_draft(push.draft)
        elif kind == "rating_change":
            change = push.rating_change  # a draft forfeited has no match: its draft's
            self.ratings[change.match_id or change.draft_id] = change
        elif kind == "match_found":
            found = push.match_found
            what = "draft" if found.WhichOneof("target") == "draft_id" else "match"
            self.note = f"{what.capitalize()} found: you play {found.opponent_name}."
        elif kind == "challenge":
            self.challenged(push.challenge)
        elif kind == "notice" and push.notice.code in (ENDED_AWAY, BATTLE_ENDED_AWAY):
            self.away.append(push.notice.message)
        elif kind == "notice" and push.notice.code == "TABLE_CLOSED":
            pass  # the table pushed with it says why (frame.table_line), the screen ends
        elif kind == "notice":
            self.note = push.notice.message
        elif kind == "session_closed":
            closed = push.session_closed
            self.note = f"Session closed: {closed.message}"
            if closed.reason == g.SESSION_CLOSE_REASON_REPLACED:
                self.note += " (another terminal or page of yours took it: play takes it back)"
            return False
        return True

    def challenged(self, table: pb.Table) -> None:
        """A challenge to the player, as the session tells it (RULES.md 14: at once, and
        again at every open of the session while it stays open): what it plays and the
        commands for it; its end only where it was the news (an accepted one starts a
        match, which the screen shows). Not over a match in progress: accept must wait
        for its end, and status lists the challenges meanwhile."""
        short = table.table_id[:8]
        playing = self.view is not None and self.view.status == pb.MATCH_STATUS_IN_PROGRESS
        if table.status == pb.TABLE_STATUS_OPEN and not playing:  # accept waits for its end
            rules = table.settings.rules
            what = "a Skirmish battle" if table.settings.battle else rules_line(rules)
            self.note = (
                f"{table.host_name} challenges you: {what}: "
                f"triad-client accept {short} or decline {short}{expiry(table, '; it ')}."
            )
        elif short in self.note and table.status in CHALLENGE_ENDS:
            self.note = CHALLENGE_ENDS[table.status].format(host=table.host_name, table=short)

    def follow_battle(self, view: pb.BattleView) -> None:
        if view.battle_id and view.status != pb.BATTLE_STATUS_FINISHED:
            self.battle = view

    def drafting(self) -> pb.DraftView | None:
        """The draft to show: one whose match is not on the screen yet (a match of
        another draft, still running, comes first)."""
        draft, view = self.draft, self.view
        if draft is None or view is None:
            return draft
        if view.match_id == draft.match_id or view.status != pb.MATCH_STATUS_FINISHED:
            return None
        return draft

    def trade_of(self, view: pb.MatchView | None) -> pb.Trade | None:
        """The trade kept, unless it is of another match than ``view``'s."""
        trade = self.trade
        if view is not None and trade is not None and trade.match_id != view.match_id:
            return None  # another match's
        return trade

    def waiting(self, waiting: str) -> str:
        """What the screen shows before a match: ``waiting`` (a hosted table), or until the
        session's first push, that it is opening (found from outside: after a client was
        killed mid-match, the next ``play`` said "No active match" for a second before
        the match)."""
        if self.battle is not None:  # found from outside: "No active match" said first
            return BATTLE_RESUMES
        return waiting if self.opened or self.queue is not None else OPENING
