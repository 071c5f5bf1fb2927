"""Ratings as subcommands of ``triad-client``: ``rating``, ``history``, ``leaderboard``."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table
from rich.text import Text
from triad.v1 import common_pb2 as pb
from triad.v1 import gateway_pb2 as g

from client.connection import Caller, as_json, pages

LADDERS = {m.removeprefix("LADDER_").lower(): v for m, v in pb.Ladder.items() if v}


def ladder(args: argparse.Namespace) -> pb.LadderKey:
    return pb.LadderKey(ladder=LADDERS[args.ladder], season=args.season)


async def rating(client: Caller, args: argparse.Namespace, console: Console) -> int:
    mine = (
        await client.call(client.stub.GetRating, g.GetRatingRequest(ladder=ladder(args)))
    ).rating
    if args.json:
        print(as_json(mine))
        return 0
    rank = f"rank {mine.rank}" if mine.rank else "unranked"
    marker = " (provisional)" if mine.provisional else ""
    console.print(
        f"{args.ladder.capitalize()} season {args.season}: {mine.rating}{marker}, {rank}; "
        f"{_games(mine.games)}: {mine.wins} won, {mine.losses} lost, {mine.draws} drawn"
    )
    return 0


async def history(client: Caller, args: argparse.Namespace, console: Console) -> int:
    listed = await pages(
        lambda token: client.call(
            client.stub.ListRatingHistory,
            g.ListRatingHistoryRequest(ladder=ladder(args), page_size=200, page_token=token),
        )
    )
    changes = [c for page in listed for c in page.changes]
    if args.json:
        print(as_json(g.ListRatingHistoryResponse(changes=changes)))
        return 0
    if not changes:
        console.print(f"No rated games on the {args.ladder} ladder yet.")
        return 0
    table = Table(title=f"{args.ladder.capitalize()} rating history", title_justify="left")
    for heading in ("when", "opponent", "result", "change", "rating"):
        table.add_column(heading)
    for c in changes:
        result = {1.0: "win", 0.5: "draw", 0.0: "loss"}.get(c.actual_score, str(c.actual_score))
        when = c.change_time.ToDatetime().strftime("%Y-%m-%d %H:%M")
        table.add_row(
            when,
            f"{c.opponent_name} ({c.opponent_rating_before})",
            result,
            Text(f"{c.delta:+d}", style="green" if c.delta >= 0 else "red"),
            f"{c.rating_before} -> {c.rating_after}",
        )
    console.print(table)
    return 0


async def leaderboard(client: Caller, args: argparse.Namespace, console: Console) -> int:
    board = await client.call(
        client.stub.GetLeaderboard, g.GetLeaderboardRequest(ladder=ladder(args), top_n=args.top)
    )
    if args.json:
        print(as_json(board))
        return 0
    if not board.entries:
        console.print(f"Nobody has played a rated game on the {args.ladder} ladder yet.")
        return 0
    table = Table(
        title=f"{args.ladder.capitalize()} leaderboard ({board.ranked_player_count} players)",
        title_justify="left",
    )
    for heading in ("rank", "player", "rating", "games"):
        table.add_column(heading, justify="right" if heading != "player" else "left")
    me = board.my_entry.player_name if board.HasField("my_entry") else None
    for e in board.entries:
        style = "bold cyan" if e.player_name == me else ""
        marker = "?" if e.provisional else ""
        table.add_row(str(e.rank), e.player_name, f"{e.rating}{marker}", str(e.games), style=style)
    console.print(table)
    if me and all(e.player_name != me for e in board.entries):
        mine = board.my_entry
        console.print(f"You: rank {mine.rank}, {mine.rating}, {_games(mine.games)}")
    console.print(Text("? provisional (first 20 games)", style="dim"))
    return 0


def _games(count: int) -> str:
    return f"{count} game" if count == 1 else f"{count} games"
