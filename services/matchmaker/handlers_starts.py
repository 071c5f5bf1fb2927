"""Starting what a pairing, a practice request or a table join decided: check both
players may play, resolve their decks, draw the bot's, create the match (or the draft),
then record the outcome and tell the players it concerns (``handlers_status.py``). No
protobuf, SQL or NATS here.

Every call made here is idempotent (the match id and request id derive from the start
id, decks resolve per (player, match)), so a start interrupted anywhere is simply run
again by whichever replica takes its expired lease.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import structlog

from services.matchmaker.domain import (
    MODE_RULES,
    Card,
    Mode,
    Seat,
    StartKind,
    StartPlan,
)
from services.matchmaker.handlers import Context, DeckRequest, MatchSeat, MatchSpec
from services.matchmaker.handlers_free import engaged_error, left_after_waiting, your_obstacle
from services.matchmaker.handlers_status import tell_settled
from services.matchmaker.store import Engaged, Request, RequestSeen, StartRecord, StartState
from services.platform.errors import (
    Conflict,
    DomainError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    Unavailable,
    require_found,
)

log = structlog.get_logger()


class Refused(Exception):
    """The match cannot start because of these players: ``culprits`` (id -> reason) is
    what each is told of their own case; ``shown`` what the other player may read of it
    (the same when not given). RULES.md 3: a hidden card never leaves the server in any
    message to the opponent, so a deck's reason names its cards to its owner only."""

    def __init__(
        self,
        culprits: Mapping[str, str],
        shown: Mapping[str, str] | None = None,
        status: type[DomainError] = FailedPrecondition,
    ) -> None:
        self.culprits = dict(culprits)
        self.shown = {**self.culprits, **(shown or {})}
        self.status = status
        """What the asker is answered: FAILED_PRECONDITION, or INVALID_ARGUMENT for a
        request the service it went to refused as such (a practice battle's team)."""
        super().__init__("; ".join(self.shown.values()))

    def told(self, player_id: str) -> str:
        """The refusal as ``player_id`` may read it: their own reason whole, the other's
        as it may be shown to them."""
        return "; ".join(
            self.culprits[p] if p == player_id else self.shown[p] for p in self.culprits
        )


@dataclass(frozen=True, slots=True)
class Unplayable:
    """Why a seat cannot bring its deck: to the player (naming the cards) and to others."""

    reason: str
    shown: str


async def execute(ctx: Context, plan: StartPlan) -> list[Card]:
    """Create the plan's match or draft; returns the bot's cards (none without a bot).

    Raises ``Refused`` (a player cannot play: the start fails) or ``Unavailable`` (a
    service did not answer: the start stays pending and is retried).
    """
    humans = plan.humans
    culprits = await _obstacles(ctx, plan)
    if culprits:
        raise Refused(culprits, _busy(plan, culprits))
    if plan.mode is Mode.BATTLE:
        await _battle(ctx, plan)
        return []
    if plan.draft_id:
        if ctx.ports.drafts is None:
            raise Refused({s.player_id: "the Draft queue is closed" for s in humans})
        players = [(s.player_id, s.name) for s in humans]
        await ctx.ports.drafts.create(plan.draft_id, plan.start_id, plan.ladder, players)
        return []
    hands = await asyncio.gather(*(_hand(ctx, plan, seat) for seat in plan.seats))
    refused = {
        s.player_id: h for s, h in zip(plan.seats, hands, strict=True) if isinstance(h, Unplayable)
    }
    if refused:
        await _release(ctx, plan)
        raise Refused(
            {p: u.reason for p, u in refused.items()}, {p: u.shown for p, u in refused.items()}
        )
    cards = [h for h in hands if not isinstance(h, Unplayable)]
    spec = MatchSpec(
        request_id=plan.start_id,
        match_id=plan.match_id,
        mode=plan.mode,
        rules=plan.rules,
        seats=(
            MatchSeat(
                plan.seats[0].player_id, plan.seats[0].name, cards[0], plan.seats[0].bot_level
            ),
            MatchSeat(
                plan.seats[1].player_id, plan.seats[1].name, cards[1], plan.seats[1].bot_level
            ),
        ),
        origin_mode=plan.origin_mode,
        ladder=plan.ladder,
        origin_id=plan.origin_id or plan.start_id,
        draw_pile=await _draw_pile(ctx, plan),
    )
    try:
        await ctx.ports.matches.create(spec)
    except (FailedPrecondition, InvalidArgument) as error:
        if await _already_created(ctx, plan):
            return _bot_cards(plan, cards)  # an earlier attempt made it: not a refusal
        # Most likely a player entered another match since the check above: name them
        # if so, else the refusal concerns the match as a whole.
        culprits = await _obstacles(ctx, plan)
        await _release(ctx, plan)
        if culprits:
            raise Refused(culprits, _busy(plan, culprits)) from error
        raise Refused({s.player_id: str(error) for s in humans}) from error
    return _bot_cards(plan, cards)


async def _battle(ctx: Context, plan: StartPlan) -> None:
    """A Battle pairing: the battle service creates the battle (its id is the plan's
    match id, so a retried start finds the battle it made)."""
    humans = plan.humans
    if ctx.ports.battles is None:
        raise Refused({s.player_id: "the Battle queue is closed" for s in humans})
    try:
        await ctx.ports.battles.create(plan.match_id, plan.seats)
    except (FailedPrecondition, InvalidArgument) as error:
        active = await asyncio.gather(
            *(ctx.ports.battles.active_battle(s.player_id) for s in humans)
        )
        if all(a == plan.match_id for a in active):
            return  # an earlier attempt made it: not a refusal
        culprits = {
            s.player_id: f"{s.name} is in another battle"
            for s, a in zip(humans, active, strict=True)
            if a is not None and a != plan.match_id
        }
        if culprits:
            raise Refused(culprits) from error
        raise Refused({s.player_id: str(error) for s in humans}, status=type(error)) from error


def _bot_cards(plan: StartPlan, cards: Sequence[tuple[Card, ...]]) -> list[Card]:
    return next((list(c) for s, c in zip(plan.seats, cards, strict=True) if s.is_bot), [])


async def _already_created(ctx: Context, plan: StartPlan) -> bool:
    """Whether every human of the plan is already seated in its match."""
    active = await asyncio.gather(
        *(ctx.ports.matches.active_match(s.player_id) for s in plan.humans)
    )
    return all(a == plan.match_id for a in active)


async def _obstacles(ctx: Context, plan: StartPlan) -> dict[str, str]:
    """Who of the plan's humans may not play now, and why, as each is told of their own
    case ("you are playing ..."; ``_busy`` is what the other reads). A finished draft is
    not an obligation that keeps its own match from starting."""
    obligations = plan.kind is not StartKind.DRAFT_MATCH
    humans = plan.humans
    left, problems = await asyncio.gather(
        left_after_waiting(ctx, plan),
        asyncio.gather(
            *(your_obstacle(ctx, s, plan.match_id, obligations=obligations) for s in humans)
        ),
    )
    return {**left, **{s.player_id: p for s, p in zip(humans, problems, strict=True) if p}}


def _busy(plan: StartPlan, culprits: Mapping[str, str]) -> dict[str, str]:
    """What the other player of a start may read of why these could not play: that
    they are busy, not the id of their match or battle (resources of other players
    leak nothing, gateway.proto)."""
    names = {s.player_id: s.name for s in plan.humans}
    return {p: f"{names.get(p, 'your opponent')} cannot play right now" for p in culprits}


async def _hand(ctx: Context, plan: StartPlan, seat: Seat) -> tuple[Card, ...] | Unplayable:
    """A seat's cards, or why the player cannot bring them: a bot's and a house hand
    (RULES.md 11) are drawn from the catalog, the same for a retried start. The reason
    names the deck's cards; what the other player is shown does not (RULES.md 3)."""
    if seat.cards:
        return seat.cards
    size = plan.rules.hand_size
    if seat.is_bot or plan.rules.house_hands:
        return await ctx.ports.bot_decks.draw(
            f"{plan.start_id}:{seat.player_id}", size, house=not seat.is_bot
        )
    if seat.deck is None:
        return Unplayable("you have no deck for this match", f"{seat.name} has no deck for it")
    try:
        return await ctx.ports.decks.resolve(
            DeckRequest(seat.player_id, seat.deck, plan.match_id, plan.rules.trades, size)
        )
    except (NotFound, FailedPrecondition, InvalidArgument) as error:
        # The owner reads their own reason (and the cards it names), the other the name.
        return Unplayable(f"your deck cannot play: {error}", f"{seat.name}'s deck cannot play now")


REALM_PILE = 10
"""RULES.md 17, Decision: a Realm Sudden Death draw pile holds ten catalog cards."""
REALM_PILE_DEAL = 13
"""The house deal the pile is taken from (its first ten): the collection deals house
hands of 5, 8 or 13 from the whole catalog, the same for the same request id."""


async def _draw_pile(ctx: Context, plan: StartPlan) -> tuple[Card, ...]:
    """The draw pile of a Realm Sudden Death match (none for any other), the same for
    a retried start."""
    rules = plan.rules
    if rules.realm is None or not rules.sudden_death:
        return ()
    dealt = await ctx.ports.bot_decks.draw(f"{plan.start_id}:realm-pile", REALM_PILE_DEAL, True)
    return dealt[:REALM_PILE]


async def _release(ctx: Context, plan: StartPlan) -> None:
    """A trading match that will not start must not keep the other player's deck locked."""
    if plan.rules.trades:
        await ctx.ports.decks.release(plan.match_id)


async def run_start(ctx: Context, start: StartRecord) -> str:
    """Execute a start under our lease and record how it went; returns the match id
    (the draft id for a Draft pairing). Raises FailedPrecondition when refused."""
    plan = start.plan
    try:
        bot_cards = await execute(ctx, plan)
    except Refused as refusal:
        told = refusal.told(_asker(plan))
        if plan.kind is StartKind.TABLE and plan.seats[0].player_id in refusal.culprits:
            told += "; the table is closed: look for another table"  # closed by fail_start
        if await ctx.store.fail_start(start, refusal.culprits, told, ctx.clock()):
            ctx.metrics.failed(plan, len(refusal.culprits))
            log.info("start refused", start_id=plan.start_id, kind=plan.kind, reason=told)
            await tell_settled(ctx, plan)
        raise refusal.status(told) from None
    if await ctx.store.finish_start(start, bot_cards, ctx.clock()):
        ctx.metrics.started(plan)
        log.info(
            "match started", start_id=plan.start_id, kind=plan.kind.value, mode=plan.mode.value,
            match_id=plan.match_id, draft_id=plan.draft_id,
            players=[s.player_id for s in plan.seats], rating_gap=plan.rating_gap,
        )  # fmt: skip
        await tell_settled(ctx, plan)
    return plan.draft_id or plan.match_id


def _asker(plan: StartPlan) -> str:
    """Who asked for the start, and reads its refusal (and its record, when the request
    is asked again): the guest of a table, the one human of a practice; nobody for a
    pairing, whose players each read their own reason on their ticket."""
    if plan.kind is StartKind.TABLE:
        return plan.seats[1].player_id
    if plan.kind in (StartKind.PRACTICE, StartKind.SWITCH) and plan.humans:
        return plan.humans[0].player_id
    return ""


async def run_started(ctx: Context, starts: Sequence[StartRecord]) -> None:
    """Run starts in the background (pairings): refusals are recorded, an unavailable
    service leaves the start to be retried when its lease runs out."""
    results = await asyncio.gather(*(run_start(ctx, s) for s in starts), return_exceptions=True)
    for start, result in zip(starts, results, strict=True):
        if isinstance(result, Unavailable):
            log.warning("start postponed", start_id=start.plan.start_id, error=str(result))
        elif isinstance(result, BaseException) and not isinstance(result, FailedPrecondition):
            log.error("start failed", start_id=start.plan.start_id, exc_info=result)


async def recover_due_start(ctx: Context) -> bool:
    """Take over one start whose lease expired and run it; True if there was one."""
    now = ctx.clock()
    start = await ctx.store.claim_due_start(now, ctx.lease_until(now))
    if start is None:
        return False
    ctx.metrics.recovered_starts.inc()
    log.info("start taken over", start_id=start.plan.start_id, kind=start.plan.kind.value)
    await run_started(ctx, [start])
    return True


SETTLING_SECONDS = 3.0
"""How long a retried request waits for its first try, still running, to settle."""


async def resume(ctx: Context, start_id: str) -> StartRecord:
    """Answer a retried request from its start: finished or failed as it was, run again
    if the replica that began it is gone, or, while its first try still runs, waited
    for (up to ``SETTLING_SECONDS``, then ABORTED: ask again)."""
    start = require_found(await ctx.store.start(start_id), f"no start {start_id}")
    give_up = asyncio.get_running_loop().time() + SETTLING_SECONDS
    while start.state is StartState.PENDING:
        now = ctx.clock()
        taken = await ctx.store.take_over(start_id, now, ctx.lease_until(now))
        if taken is not None:
            ctx.wakes.starts.due_at(ctx.lease_until(now))
            await run_start(ctx, taken)
            return start
        if asyncio.get_running_loop().time() > give_up:
            raise Conflict("your match is being started; ask again in a moment")
        await asyncio.sleep(0.05)
        start = await ctx.store.start(start_id) or start
    if start.state is StartState.FAILED:
        raise FailedPrecondition(start.error)
    return start


async def start_drafted_match(
    ctx: Context, draft_id: str, match_id: str, seats: Sequence[Seat], now: datetime
) -> None:
    """Both drafted decks are complete (DraftCompleted): create the Draft match.
    Idempotent on the draft id; the consumer calling this retries until it succeeds.
    Only drafts our pairings started get a match from us."""
    if not await ctx.store.paired_draft(draft_id):
        log.info("draft not paired here; ignored", draft_id=draft_id)
        return
    plan = StartPlan(
        start_id=f"draft-{draft_id}",
        kind=StartKind.DRAFT_MATCH,
        mode=Mode.DRAFT,
        rules=MODE_RULES[Mode.DRAFT],
        seats=(seats[0], seats[1]),
        match_id=match_id,
        ladder="draft",
        origin_id=draft_id,
    )
    try:
        await execute(ctx, plan)
    except Refused as refusal:
        # Nothing can fix this by retrying; the draft's deadlines decide its fate.
        log.error("draft match refused", draft_id=draft_id, reason=str(refusal))
        return
    log.info("draft match started", draft_id=draft_id, match_id=match_id)


async def open_start(ctx: Context, start: StartRecord, request: Request) -> bool:
    """Record a start a player asked for (practice, switch, join), which the caller runs
    now under its lease; False when its ticket or table was just taken."""
    now = ctx.clock()
    try:
        opened = await ctx.store.open_start(start, ctx.lease_until(now), request, now)
    except Engaged as error:
        raise engaged_error(error) from None
    except RequestSeen:
        raise Conflict("this request is already being handled; retry it") from None
    if opened:
        ctx.wakes.starts.due_at(ctx.lease_until(now))
    return opened
