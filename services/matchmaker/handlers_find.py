"""Find Game (RULES.md 14): join the oldest open public table the player can join with
their deck (or, without one, the oldest Random table), optionally filtered like the
lobby list; NOT_FOUND with a clear message when none fits."""

from __future__ import annotations

from dataclasses import replace

from services.matchmaker.domain import DeckChoice, Table, TableFilter, realm_deck_problem
from services.matchmaker.handlers import Context, Player
from services.matchmaker.handlers_free import check_free, engaged_error, host_left
from services.matchmaker.handlers_lobby import Joined, guest_start, seat_deck, table_named
from services.matchmaker.handlers_starts import open_start, resume, run_start
from services.matchmaker.store import Engaged, Request
from services.platform.errors import DomainError, FailedPrecondition, InvalidArgument, NotFound

FIND_ATTEMPTS = 5
"""Find Game: how many tables it tries when each was just taken by someone else."""
FIND_PASSED = 100
"""Find Game: how many open tables it looks at in all (those the deck does not fit)."""


async def _fits(
    ctx: Context,
    guest: Player,
    deck: DeckChoice | None,
    table: Table,
    sizes: dict[tuple[bool, int], bool],
) -> bool:
    """Find Game: whether the guest can sit down at ``table`` with what they bring: a
    saved deck only at the board of its size (RULES.md 11); at a Random table, a draw of
    that size from their free copies (a starter collection's ten characters draw no
    hand of 13). ``sizes`` keeps each (Random, size)'s answer."""
    choice = seat_deck(table.settings, None if table.settings.random_deck else deck)
    if choice is None:
        return True
    if choice.random and realm_deck_problem(table.settings.rules, True) is not None:
        return False  # RULES.md 17: a Realm table plays saved decks, not Random ones
    size = table.settings.rules.hand_size
    key = (choice.random, size)
    if key not in sizes:
        try:
            await ctx.ports.decks.check(guest.player_id, choice, size)
        except FailedPrecondition:
            sizes[key] = False
        else:
            sizes[key] = True
    return sizes[key]


async def _host_can_play(ctx: Context, table: Table) -> bool:
    """Find Game: whether the host's deck can still be played at ``table``: its saved
    deck, or at a Random table a draw from its free copies. Nothing is locked while the
    table is open, so the host may have sold, listed or deleted cards since; joining
    such a table would only be refused (and close it), so Find Game passes it over for
    the next oldest."""
    deck = seat_deck(table.settings, table.host_deck)
    if deck is None:
        return True
    try:
        await ctx.ports.decks.check(table.host_id, deck, table.settings.rules.hand_size)
    except (FailedPrecondition, NotFound):
        return False
    return True


async def find_game(
    ctx: Context, request_id: str, guest: Player, filters: TableFilter, deck: DeckChoice | None
) -> Joined:
    """Find Game (RULES.md 14): join the oldest open public table that passes the
    filters and that the guest does not host; its match starts at once. A Random table
    draws the guest's deck and house hands are dealt, so those fit anyone; a saved deck
    fits a board of its own hand size only (RULES.md 11: older tables on another board
    are passed over); without a deck (or with one that cannot play now) only Random
    tables and house hands fit. NOT_FOUND when none does."""
    filters = filters.applying()
    if filters.challenges_only:
        raise InvalidArgument(
            "Find Game joins public tables only: accept a challenge with JoinTable, "
            "or leave filter.challenges_only unset"
        )
    if deck is None and filters.random_deck is False and filters.house_hands is False:
        raise InvalidArgument(
            "without a deck only Random tables and house hands fit: send a deck, or leave "
            "filter.random_deck or filter.house_hands unset"
        )
    request = Request.of(guest.player_id, request_id, "find", _filter_key(filters), deck)
    if (first := await _first_answer(ctx, request)) is not None:
        return first
    try:
        return await _find(ctx, request, guest, filters, deck)
    except DomainError:
        # A retry sent while its first try ran is refused by what that try did (the
        # guest engaged, the table taken): if the first try got a table, that is the
        # answer, not "no table fits".
        if (first := await _first_answer(ctx, request)) is not None:
            return first
        raise


async def _first_answer(ctx: Context, request: Request) -> Joined | None:
    """What the first try of ``request`` joined, if it was recorded."""
    if (seen := await ctx.store.answered(request)) is None:
        return None
    plan = (await resume(ctx, seen)).plan
    return Joined(await table_named(ctx, plan.table_id), plan.match_id)


async def _find(
    ctx: Context, request: Request, guest: Player, filters: TableFilter, deck: DeckChoice | None
) -> Joined:
    held = await ctx.store.engagement(guest.player_id)
    if held is not None:
        raise engaged_error(Engaged(held))
    await check_free(ctx, guest)
    unplayable = ""  # why the saved deck brought cannot play now (house hands need none)
    if deck is not None and not deck.random:
        try:
            await ctx.ports.decks.check(guest.player_id, deck)  # NOT_FOUND before "no table"
        except FailedPrecondition as error:
            unplayable = str(error)
    if filters.battles and deck is not None:
        raise InvalidArgument("a battle table is played with characters, not a deck: send none")
    tried: set[str] = set()
    sizes: dict[tuple[bool, int], bool] = {}
    attempts = 0
    while attempts < FIND_ATTEMPTS and len(tried) < FIND_PASSED:
        table = await _oldest(ctx, guest, filters, deck, unplayable, tried)
        if table is None:
            break
        tried.add(table.table_id)
        if not await _fits(ctx, guest, deck, table, sizes):
            continue  # a board of another hand size: the next oldest
        if not await _host_can_play(ctx, table) or await host_left(ctx, table):
            continue  # the host's deck cannot play any more, or the host left: the next
        start = guest_start(table, guest, None if table.settings.random_deck else deck)
        if await open_start(ctx, start, request):
            match_id = await run_start(ctx, start)
            return Joined(await table_named(ctx, table.table_id), match_id)
        attempts += 1  # someone sat down first: the next oldest
    if unplayable:
        raise FailedPrecondition(unplayable)
    raise NotFound(_none_fits(filters, deck, False in sizes.values()))


async def _oldest(
    ctx: Context,
    guest: Player,
    filters: TableFilter,
    deck: DeckChoice | None,
    unplayable: str,
    tried: set[str],
) -> Table | None:
    """The oldest open table the guest could sit at with what they bring: any with a
    deck that can play; without one (or with one that cannot play now), Random tables
    and tables that deal house hands (RULES.md 11), whichever is older; battle tables
    need no deck."""
    if filters.battles or (deck is not None and not unplayable):
        return await ctx.lobby.oldest_table(guest.player_id, filters, ctx.clock(), tried)
    kinds = []
    if filters.random_deck is not False:
        kinds.append(replace(filters, random_deck=True))  # a draw from the free copies
    if filters.house_hands is not False:
        kinds.append(replace(filters, house_hands=True))
    found = [
        table
        for wanted in kinds
        if (table := await ctx.lobby.oldest_table(guest.player_id, wanted, ctx.clock(), tried))
        is not None
    ]
    return min(found, key=lambda t: (t.created_at, t.table_id), default=None)


def _filter_key(filters: TableFilter) -> tuple[object, ...]:
    """The filters in a stable order, for a request's fingerprint (a frozenset's order
    changes from one process to the next)."""
    return (
        sorted(v.value for v in filters.visibilities),
        filters.same,
        filters.plus,
        filters.combo,
        filters.elemental,
        filters.same_wall,
        filters.random_deck,
        sorted(filters.trades),
        filters.challenges_only,
        sorted(filters.boards),
        filters.house_hands,
        *(() if filters.realm is None else (("realm", filters.realm),)),
        *(() if filters.realm_modules is None else (("modules", filters.realm_modules.text),)),
        *(() if filters.sudden_death is None else (("sudden_death", filters.sudden_death),)),
        *(("battles",) if filters.battles else ()),
    )


def _none_fits(filters: TableFilter, deck: DeckChoice | None, sized: bool) -> str:
    if filters.battles:  # a battle table takes no deck: the Triad advice is beside the point
        return (
            "no open battle table to join right now: open one yourself with CreateTable "
            "(settings.battle), or try Find Game again soon"
        )
    asked = filters != TableFilter() or deck is None
    which = "no open table fits your filters" if asked else "no open table to join right now"
    if sized and deck is None:  # found from outside: 'fits your deck (...) (without a
        # deck, ...)' to a player who brought none, in two parentheses running on
        which = (
            "no open table fits what you can bring: without a deck only Random tables and "
            "house hands fit, and a Random table draws 5, 8 or 13 different characters "
            "from your free copies"
        )
    elif sized:
        which = (
            "no open table fits your deck (a saved deck plays on the board of its size; "
            "a Random table draws 5, 8 or 13 different characters from your free copies)"
        )
    elif deck is None:
        which += " (without a deck, only Random tables and house hands fit)"
    return f"{which}: open one yourself with CreateTable, or try Find Game again soon"
