"""The custom-table lobby's use cases (RULES.md 6 and 14): open a table (perhaps as a
challenge to one player), list and look at tables, join one (which starts its match),
decline a challenge, close one, expire idle ones (Find Game: ``handlers_find.py``).
The host, and the challenged player of a challenge, are told of each change of the
table once it committed (``handlers_status.py``; a join through the start it runs)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta
from uuid import uuid4

from services.matchmaker.domain import (
    DeckChoice,
    Mode,
    Seat,
    StartKind,
    StartPlan,
    Table,
    TableFilter,
    TableSettings,
    TableState,
    check_custom_rules,
    dealt_deck_problem,
    realm_deck_problem,
)
from services.matchmaker.handlers import Context, Player, match_id_for
from services.matchmaker.handlers_free import (
    active_battle,
    check_free,
    check_unheld,
    checked_unless_answered,
    engaged_error,
    still_free,
)
from services.matchmaker.handlers_starts import open_start, resume, run_start
from services.matchmaker.handlers_status import tell_table
from services.matchmaker.store import (
    Engaged,
    Hold,
    Request,
    RequestSeen,
    StartRecord,
    StartState,
    TableQuery,
)
from services.platform import pages
from services.platform.errors import (
    FailedPrecondition,
    InvalidArgument,
    PermissionDenied,
    require_found,
    short_id,
)
from services.platform.pages import key_token, key_token_back

DEFAULT_PAGE, MAX_PAGE = 50, 200
MAX_NAME = 64


@dataclass(frozen=True, slots=True)
class TablePage:
    """One page of the lobby, and the token of the next ("" on the last)."""

    tables: list[Table]
    next_page_token: str


@dataclass(frozen=True, slots=True)
class Joined:
    """A table a guest sat down at, and the match that started."""

    table: Table
    match_id: str


async def create_table(
    ctx: Context,
    request_id: str,
    host: Player,
    settings: TableSettings,
    deck: DeckChoice | None,
    challenged: Player | None = None,
) -> Table:
    """Open a table; with ``challenged``, a challenge only that player may join, told to
    them at once. ``challenged.player_id`` is empty when only the name is known (the
    challenge is then neither checked nor pushed)."""
    if settings.battle:
        _check_battle_table(ctx, deck)
    check_custom_rules(settings.rules)
    drawn = settings.random_deck or (deck is not None and deck.random)
    if (problem := realm_deck_problem(settings.rules, drawn)) is not None:
        raise InvalidArgument(problem)
    if problem := dealt_deck_problem(settings.rules, deck is not None or settings.random_deck):
        raise InvalidArgument(problem)
    if settings.random_deck and deck is not None:
        raise InvalidArgument("a Random table draws both decks: send no deck")
    if not deals(settings) and deck is None:
        raise InvalidArgument("a deck is required (or make the table Random)")
    name = challenged.name if challenged is not None else ""
    if challenged is not None and (
        challenged.player_id == host.player_id or name.casefold() == host.name.casefold()
    ):
        raise InvalidArgument("you cannot challenge yourself: name another player")
    if len(name) > MAX_NAME:
        raise InvalidArgument(f"challenged_player_name is longer than {MAX_NAME} characters")
    request = Request.of(host.player_id, request_id, "table", settings, deck, name)
    if (seen := await ctx.store.answered(request)) is not None:
        return await table_named(ctx, seen)
    checks = asyncio.gather(
        check_free(ctx, host),
        _check_challengeable(ctx, host, challenged),
        check_unheld(ctx, host, Hold.TABLE),
    )
    if (seen := await checked_unless_answered(ctx, request, checks)) is not None:
        return await table_named(ctx, seen)
    await _check_hand(ctx, host, deck, settings)
    now = ctx.clock()
    table = Table(
        table_id=str(uuid4()),
        host_id=host.player_id,
        host_name=host.name,
        settings=settings,
        created_at=now,
        expire_at=now + timedelta(seconds=ctx.config.table_ttl_seconds),
        host_deck=deck,
        challenged_name=name,
        challenged_id=challenged.player_id if challenged is not None else "",
    )
    try:
        await ctx.lobby.create_table(table, request)
    except RequestSeen:
        return await table_named(ctx, await ctx.store.answered(request) or table.table_id)
    except Engaged as error:
        raise engaged_error(error, already=Hold.TABLE) from None
    ctx.metrics.tables.labels("created").inc()
    await still_free(
        ctx,
        host,
        request,
        lambda withdrawal: close_table(ctx, withdrawal, host.player_id, table.table_id),
    )
    ctx.wakes.tables.due_at(table.expire_at)
    await tell_table(ctx, table)
    return table


async def _check_challengeable(ctx: Context, host: Player, challenged: Player | None) -> None:
    """Refuse to challenge a player who is playing a match or a battle (RULES.md 14):
    they could not accept. Whatever else keeps them busy (a trade, a draft) ends soon
    enough to accept before the table expires, and is theirs alone to know. Refuse a
    challenge that crosses theirs to the host: each would host an open table, and a
    host cannot sit down at another (neither could accept)."""
    if challenged is None or not challenged.player_id:
        return
    match, battle, theirs = await asyncio.gather(
        ctx.ports.matches.active_match(challenged.player_id),
        active_battle(ctx, challenged.player_id),
        ctx.lobby.hosted_table(challenged.player_id),
    )
    if match is not None or battle is not None:
        game = "a match" if match is not None else "a battle"
        raise FailedPrecondition(
            f"{challenged.name} is playing {game} right now: challenge them when it has ended"
        )
    if theirs is not None and theirs.challenges(host.player_id, host.name):
        raise FailedPrecondition(
            f"{challenged.name} has already challenged you (table {theirs.table_id}): "
            "accept or decline their challenge"
        )


async def table_named(ctx: Context, table_id: str) -> Table:
    return require_found(await ctx.lobby.table(table_id), f"no table {short_id(table_id)}")


async def list_tables(
    ctx: Context, viewer: Player, filters: TableFilter, page_size: int, page_token: str
) -> TablePage:
    """Open tables the viewer may join, newest first; and the next page's token."""
    refusal = "page_size must not be negative"
    size = pages.page_size(page_size, DEFAULT_PAGE, MAX_PAGE, refusal=refusal)
    after = key_token_back(page_token)
    tables = await ctx.lobby.list_tables(
        TableQuery(viewer.player_id, viewer.name, filters.applying(), ctx.clock(), size + 1, after)
    )
    if len(tables) <= size:
        return TablePage(tables, "")
    last = tables[size - 1]
    return TablePage(tables[:size], key_token(last.created_at, last.table_id))


async def get_table(ctx: Context, viewer: Player, table_id: str) -> Table:
    table = await table_named(ctx, table_id)
    if not table.visible_to(viewer.player_id, viewer.name):
        raise PermissionDenied("this table is a private challenge between other players")
    return table


async def join_table(
    ctx: Context, request_id: str, guest: Player, table_id: str, deck: DeckChoice | None
) -> Joined:
    """Sit down at an open table: its match starts at once. The table and match id."""
    table = await get_table(ctx, guest, table_id)
    request = Request.of(guest.player_id, request_id, "join", table_id, deck)
    if (seen := await ctx.store.answered(request)) is not None:
        match_id = (await resume(ctx, seen)).plan.match_id
        return Joined(await table_named(ctx, table_id), match_id)
    if table.host_id == guest.player_id:
        raise FailedPrecondition("this is your own table: wait for a guest, or close it")
    if table.state is not TableState.OPEN or table.expire_at <= ctx.clock():
        raise FailedPrecondition(not_open(table))
    if table.settings.rules.house_hands and deck is not None:
        raise InvalidArgument("this table deals house hands from the catalog: send no deck")
    if table.settings.random_deck and deck is not None:
        raise InvalidArgument("this is a Random table: the server draws your deck, send none")
    if table.settings.battle:
        _check_battle_table(ctx, deck)
    if not deals(table.settings) and deck is None:
        raise InvalidArgument("a deck is required at this table")
    drawn = deck is not None and deck.random
    if (problem := realm_deck_problem(table.settings.rules, drawn)) is not None:
        raise InvalidArgument(problem)
    await check_free(ctx, guest)
    await _check_hand(ctx, guest, deck, table.settings)
    start = guest_start(table, guest, deck)
    if not await open_start(ctx, start, request):
        raise FailedPrecondition(not_open(await table_named(ctx, table_id)))
    match_id = await run_start(ctx, start)
    return Joined(await table_named(ctx, table_id), match_id)


def not_open(table: Table) -> str:
    """Why a guest cannot sit at ``table``, in words naming its host (found from
    outside: "table 68c9fffd is not open any more", an id the lobby shows nowhere)."""
    why = {
        TableState.JOINING: "another player sat down first",
        TableState.STARTED: "another player sat down first",
        TableState.CLOSED: "its host closed it",
        TableState.DECLINED: "the challenged player declined it",
    }.get(table.state, "it expired")
    return f"{table.host_name}'s table is not open any more: {why}; look for tables again"


def deals(settings: TableSettings) -> bool:
    """Whether the table brings the hands: Random draws each player's deck from their
    copies, house hands deal from the catalog (RULES.md 6, 11); a battle needs none."""
    return settings.random_deck or settings.rules.house_hands or settings.battle


def seat_deck(settings: TableSettings, deck: DeckChoice | None) -> DeckChoice | None:
    """The deck a player sits down with that must be playable: the one brought, or a
    Random table's draw from the player's free copies; None where the table deals house
    hands or plays a battle (nothing of the player's to check, whatever they bring)."""
    if settings.rules.house_hands or settings.battle:
        return None
    if deck is not None:
        return deck
    return DeckChoice(random=True) if settings.random_deck else None


async def _check_hand(
    ctx: Context, player: Player, deck: DeckChoice | None, settings: TableSettings
) -> None:
    """A deck brought to a table is checked for the board's hand size (RULES.md 11: 5,
    8 or 13) when the table is opened or joined, not when its match starts; at a Random
    table, that the player's free copies hold a legal deck to draw (as a queue asks)."""
    choice = seat_deck(settings, deck)
    if choice is not None:
        await ctx.ports.decks.check(player.player_id, choice, settings.rules.hand_size)


def _check_battle_table(ctx: Context, deck: DeckChoice | None) -> None:
    """Skirmish (BATTLE.md 6): a custom battle brings characters, not decks."""
    if deck is not None:
        raise InvalidArgument("a battle table is played with characters, not a deck: send none")
    if ctx.ports.battles is None:
        raise FailedPrecondition(
            "custom battles are closed: the battle service is not configured (TRIAD_BATTLE_ADDR)"
        )


def guest_start(table: Table, guest: Player, deck: DeckChoice | None) -> StartRecord:
    """The start of ``table``'s match with ``guest`` sitting down (their deck, or one
    drawn for them)."""
    start_id = str(uuid4())
    random = DeckChoice(random=True)
    plan = StartPlan(
        start_id=start_id,
        kind=StartKind.TABLE,
        mode=Mode.BATTLE if table.settings.battle else Mode.CUSTOM,
        rules=table.settings.rules,
        seats=(
            Seat(table.host_id, table.host_name, deck=table.host_deck or random),
            Seat(guest.player_id, guest.name, deck=deck or random),
        ),
        match_id=match_id_for(start_id),
        origin_id=table.table_id,
        table_id=table.table_id,
    )
    return StartRecord(plan, StartState.PENDING, uuid4())


async def decline_challenge(ctx: Context, request_id: str, player: Player, table_id: str) -> Table:
    """The challenged player declines (RULES.md 14): the table closes and its host is
    told (status declined). Declining a declined challenge returns it unchanged."""
    request = Request.of(player.player_id, request_id, "decline", table_id)
    if (seen := await ctx.store.answered(request)) is not None:
        return await table_named(ctx, seen)
    found, declined = await ctx.lobby.decline_table(table_id, player.player_id, request)
    table = require_found(found, f"no table {short_id(table_id)}")
    if declined:
        ctx.metrics.tables.labels("declined").inc()
        await tell_table(ctx, table)
        return table
    ref = short_id(table_id)
    if not table.challenged_name:
        raise FailedPrecondition(f"table {ref} is a public table, not a challenge to decline")
    if not table.challenges(player.player_id, player.name):
        raise PermissionDenied("this challenge is addressed to another player")
    refusals = {
        TableState.OPEN: "this challenge was made by name alone and cannot be declined: "
        "let it expire",
        TableState.JOINING: "you accepted this challenge: its match is starting",
        TableState.STARTED: "you accepted this challenge: its match has started",
        TableState.CLOSED: f"{table.host_name} withdrew this challenge",
        TableState.EXPIRED: "this challenge expired",
    }
    if table.state is TableState.DECLINED:
        return table
    raise FailedPrecondition(refusals[table.state])


async def close_table(ctx: Context, request_id: str, player_id: str, table_id: str) -> Table:
    request = Request.of(player_id, request_id, "close", table_id)
    if (seen := await ctx.store.answered(request)) is not None:
        return await table_named(ctx, seen)
    found, closed = await ctx.lobby.close_table(table_id, player_id, request)
    table = require_found(found, f"no table {short_id(table_id)}")
    if table.host_id != player_id:
        raise PermissionDenied("only the host can close a table")
    if closed:
        ctx.metrics.tables.labels("closed").inc()
        await tell_table(ctx, table)
        return table
    if table.state is TableState.CLOSED:
        return table  # closing a closed table returns it unchanged
    if table.state is TableState.JOINING:
        raise FailedPrecondition("a guest just sat down and the match is starting")
    raise FailedPrecondition(f"table {short_id(table_id)} has already {table.state.value}")


async def expire_tables(ctx: Context) -> bool:
    """Expire idle tables (any replica); True if there were some."""
    expired = await ctx.lobby.expire_tables(ctx.clock())
    if expired:
        ctx.metrics.tables.labels("expired").inc(len(expired))
    for table in expired:
        await tell_table(ctx, table)
    return bool(expired)
