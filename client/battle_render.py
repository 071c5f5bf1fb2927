"""The Skirmish screen (``triad-client battle``), drawn as plain lines that fit an 80x24
terminal: the turn and its deadline, both 3x3 fields facing each other under whose they
are (your front column on the right of yours, the opponent's on the left of theirs), HP,
Energy, your hand and plan, and the last turn's actions (``battle_log``), which take a
taller terminal's rows. A pure function of the view: ``screen(view, now, rows)``."""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime

from triad.v1 import common_pb2 as pb

from client.battle_log import log_block
from client.battle_names import fit, label, team_labels
from client.battle_plan import plan_lines

WIDTH = 79
ROWS = 24
CELL = 11
STATUS = {
    pb.BATTLE_STATUS_FORMATION: "formation",
    pb.BATTLE_STATUS_SELECTION: "selection",
    pb.BATTLE_STATUS_FINISHED: "finished",
}
WIPED = {
    True: "all their characters are down",
    False: "all your characters are down",
}
"""A wipeout, as each side reads it (``wiped``; found from outside: "every character of
the loser is down" left the player to work out which side that was)."""


SUDDEN_DEATH = 8
"""Turns 8 to 10 are Sudden Death (BATTLE.md 3): each recovers 6 Energy, the usual 4 and
2 more; the title says so (found from outside: turn 8 brought 6 Energy unexplained)."""


def seconds_left(view: pb.BattleView, now: datetime | None = None) -> int | None:
    if not view.HasField("deadline") or view.status == pb.BATTLE_STATUS_FINISHED:
        return None
    left = view.deadline.ToDatetime(tzinfo=UTC) - (now or datetime.now(UTC))
    return max(0, int(left.total_seconds()))


MARKS = (("shield", "+"), ("cover", "*"), ("burn", "~"))
"""A unit's statuses on the field, one sign each after its HP; ``status_line`` says them
in words."""


def _marks(unit: pb.BattleUnit) -> str:
    return "".join(sign for field, sign in MARKS if getattr(unit, field))


def _unit_text(unit: pb.BattleUnit, said: str) -> str:
    """Its label cut to leave room for its HP and every mark (a cell is ``CELL`` - 1),
    keeping the number that tells two of a kind apart."""
    tail = f" {unit.hp}{_marks(unit)}"
    return f"{fit(said, CELL - 1 - len(tail))}{tail}"


def _statuses(unit: pb.BattleUnit, said: str) -> str:
    marks = [f"shield {unit.shield}"] if unit.shield else []
    marks += [f"cover {unit.cover} turn{'s' if unit.cover != 1 else ''}"] if unit.cover else []
    if unit.burn:
        ends = f", {unit.burn_turns} turn end{'s' if unit.burn_turns != 1 else ''} left"
        marks.append(f"burn {unit.burn} a turn" + (ends if unit.burn_turns else ""))
    return f"{said} {', '.join(marks)}"


def status_line(view: pb.BattleView) -> str | None:
    """The field's marks in words (``+`` shield, ``*`` cover, ``~`` burn), yours then
    theirs; None when no unit has any."""
    parts = [
        f"{whose} {_statuses(u, team_labels(team).get(u.uid, label(u)))}"
        for whose, team in (("your", view.you), ("their", view.opponent))
        for u in team.units
        if u.HasField("square") and _marks(u)
    ]
    return "Marks: " + "; ".join(parts) if parts else None


def spd_line(view: pb.BattleView) -> str | None:
    """Every character on the fields by SPD, fastest first (with its changes: BATTLE.md
    4.3 orders a group's actions by it); None before the battle begins (the opponent's
    formation hidden). Found from outside: the terminal showed no SPD at all, so the
    order the cards would resolve in could not be read off the screen. None once the
    battle is over too: no card resolves any more (found from outside: the line stood
    under "You gave up.")."""
    if view.status in (pb.BATTLE_STATUS_FORMATION, pb.BATTLE_STATUS_FINISHED):
        return None
    theirs_first = view.opponent.committed and not view.you.committed
    standing = [  # (SPD, acts after the other side's units of its SPD, words)
        (
            u.spd,
            theirs == (not theirs_first),
            f"{whose}{label(u)} {u.spd}" + _for_turns(u.spd_turns),
        )
        for theirs, whose, team in ((False, "", view.you), (True, "their ", view.opponent))
        for u in team.units
        if not u.summon and u.HasField("square")
    ]
    standing.sort(key=lambda s: (-s[0], s[1]))
    line = "Spd: " + ", ".join(said for _, _, said in standing)
    tied = {spd for spd, later, _ in standing if later} & {
        spd for spd, later, _ in standing if not later
    }
    return line + (tie_note(view) if tied else "")


def tie_note(view: pb.BattleView) -> str:
    """What decides a tie in SPD across the teams (BATTLE.md 4.3: "the player who
    committed first"): found from outside, the line listed the player's unit first,
    and the CPU, which commits at once, acted first."""
    if view.you.committed != view.opponent.committed:
        if view.you.committed:
            return " (same SPD: yours act first as you committed first)"
        return " (same SPD: theirs act first as they committed first)"
    return " (same SPD: whoever commits first acts first)"


def _for_turns(turns: int) -> str:
    """How long a changed SPD holds (nothing for an unchanged one)."""
    return f" for {turns} turn{'s' if turns != 1 else ''}" if turns else ""


def reserved_line(view: pb.BattleView) -> str | None:
    """The summons waiting for a square taken when they were summoned (BATTLE.md 2),
    yours then theirs, each with its square; None when none waits."""
    parts = [  # a square's two numbers kept on one line when the line wraps (no-break space)
        f"{whose} {r.name} for {r.square.row}\u00a0{r.square.col}"
        for whose, team in (("your", view.you), ("their", view.opponent))
        for r in team.reservations
    ]
    return "Reserved: " + "; ".join(parts) if parts else None


def _grid(team: pb.BattleTeamView) -> dict[tuple[int, int], str]:
    labels = team_labels(team)
    return {
        (u.square.row, u.square.col): _unit_text(u, labels.get(u.uid, label(u)))
        for u in team.units
        if u.HasField("square")
    }


WHOSE = "   you".ljust(3 + 3 * CELL) + "| opponent"
"""Over the fields, whose each is (found from outside: nothing said which was which)."""


def fields(view: pb.BattleView) -> list[str]:
    """Both fields facing each other, your columns 2 1 0 | the opponent's 0 1 2, under
    whose they are."""
    mine, theirs = _grid(view.you), _grid(view.opponent)
    head = "   " + "".join(f"col {c}".ljust(CELL) for c in (2, 1, 0))
    head += "| " + "".join(f"col {c}".ljust(CELL) for c in (0, 1, 2))
    lines = [WHOSE, head]
    for row in range(3):
        left = "".join(mine.get((row, c), ".").ljust(CELL) for c in (2, 1, 0))
        right = "".join(theirs.get((row, c), ".").ljust(CELL) for c in (0, 1, 2))
        lines.append(f"r{row} {left}| {right}")
    return lines


def taken_over(team: pb.BattleTeamView) -> bool:
    """A player's seat the CPU plays now (they left: BATTLE.md 5), not a practice's CPU
    (named "CPU" from the start)."""
    return team.cpu and team.name not in ("", "CPU")


def _team_line(said: str, team: pb.BattleTeamView) -> str:
    # Down: 0 HP, off the field (an opponent's unit before turn 1 has no square either:
    # their formation is hidden until the battle begins).
    down = [u.name for u in team.units if not u.summon and not u.HasField("square") and not u.hp]
    line = f"{said} {team.name or '?'}: Energy {team.energy}, hand {team.hand_size}"
    if team.cpu:
        line += " (played by the CPU)" if taken_over(team) else " (CPU)"
    if team.committed:
        line += ", ready"
    if down:
        line += f", down: {', '.join(down)}"
    return line


def hand_lines(view: pb.BattleView) -> list[str]:
    """Each card with who plays it named as on the field (not by its roster id)."""
    owners = {u.ref: label(u) for u in view.you.units if not u.summon and u.name}
    lines = []
    for i, card in enumerate(view.you.hand):
        ct = f" CT {card.ct}" if card.ct else ""  # found from outside: unseen till used
        cooling = f" (on CT {_turns(card.cooling)})" if card.cooling else ""
        special = " SPECIAL" if card.special else ""
        line = (
            f"{i} {owners.get(card.owner, card.owner)}: {card.name} {card.cost}E{ct} "
            f"{card.range} {card.group}{cooling}{special} - {card.text}"
        )
        lines += textwrap.wrap(line, WIDTH, subsequent_indent="    ")  # not cut: flags last
    return lines


def _turns(n: int) -> str:
    return f"{n} more turn" if n == 1 else f"{n} more turns"


BY_WHOM = {
    ("give_up", True): "You won (your opponent gave up).",
    ("give_up", False): "You gave up: you lost.",
    ("disconnect", True): "You won (your opponent left and the CPU finished for them).",
    ("disconnect", False): "You lost (you left and the CPU finished for you).",
}
"""Ends one player brought about, said to each side in its own words."""


NOBODY_WON = "You lost: both players left, so nobody won."
NO_WINNER = -1
"""``BattleOutcome.winner_seat`` when both players left (BATTLE.md 5: each loses)."""


def result_line(view: pb.BattleView) -> str:
    if view.outcome.winner_seat == NO_WINNER:
        return NOBODY_WON
    won = view.outcome.winner_seat == view.seat
    if (said := BY_WHOM.get((view.outcome.reason, won))) is not None:
        return said
    if view.outcome.reason == "decision":
        why = decided(view)
    elif view.outcome.reason == "wipeout":
        why = wiped(view, won)
    else:
        why = view.outcome.reason
    return f"{'You won' if won else 'You lost'} ({why})."


def wiped(view: pb.BattleView, won: bool) -> str:
    """Whose characters are all down; both sides' when one card felled both teams
    (BATTLE.md 5: the team that played it wins)."""
    if all(_standing(team) == 0 for team in (view.you, view.opponent)):
        whose = "yours" if won else "theirs"
        return f"both teams fell to one card, {whose}: the side that played it wins"
    return WIPED[won]


def _standing(team: pb.BattleTeamView) -> int:
    return sum(1 for u in team.units if not u.summon and u.HasField("square"))


def decided(view: pb.BattleView) -> str:
    """Which of BATTLE.md 5's tie-breaks settled a decision, read from the final field:
    more characters standing, else more HP left, else the side whose action resolved
    last (also when Burn felled both teams at one turn end). Found from outside: a battle
    both sides passed through ended "You lost (after turn 10: survivors, then HP)",
    though both had three characters at full HP."""
    standing, hp = [], []
    for team in (view.you, view.opponent):
        characters = [u for u in team.units if not u.summon]
        standing.append(_standing(team))
        hp.append(sum(u.hp for u in characters))
    if standing[0] != standing[1]:
        return f"after turn 10: more characters standing, {standing[0]} to {standing[1]}"
    if hp[0] != hp[1]:
        return f"after turn 10: more HP left, {hp[0]} to {hp[1]}"
    if not standing[0]:
        return "both teams fell at once: the side whose action resolved last wins"
    return (
        f"after turn 10: level at {standing[0]} characters and {hp[0]} HP each, "
        "the side whose action resolved last wins"
    )


def screen(
    view: pb.BattleView, now: datetime | None = None, rows: int = ROWS, late: str = ""
) -> list[str]:
    """The whole screen but the prompt, at most ``rows - 2`` lines: a taller terminal's
    rows go to the last turn's actions (``log_block``, ``late`` first: a turn passed
    for want of a plan)."""
    left = seconds_left(view, now)
    title = f"Skirmish  turn {view.turn}/10  {STATUS.get(view.status, '?')}"
    if left is not None:
        title += f"  {left} s left"
    if view.turn >= SUDDEN_DEATH and view.status != pb.BATTLE_STATUS_FINISHED:
        title += "  Sudden Death (+2 Energy)"
    lines = [title[:WIDTH], _team_line("You", view.you)[:WIDTH]]
    lines.append(_team_line("Opponent", view.opponent)[:WIDTH])
    if view.opponent.HasField("takeover_time"):  # BATTLE.md 5: they left
        at = view.opponent.takeover_time.ToDatetime(tzinfo=UTC).strftime("%H:%M:%S")
        away = f"{view.opponent.name} is away: the CPU takes their seat at {at} UTC"
        lines += textwrap.wrap(away + " unless they come back.", WIDTH)
    elif taken_over(view.opponent) and view.status != pb.BATTLE_STATUS_FINISHED:
        gone = f"{view.opponent.name} left: the CPU plays their seat now (they lose this battle)."
        lines += textwrap.wrap(gone, WIDTH)
    lines += fields(view)
    if (marks := status_line(view)) is not None:
        lines += textwrap.wrap(marks, WIDTH, subsequent_indent="    ")
    if view.status == pb.BATTLE_STATUS_FINISHED:
        lines.append(result_line(view))
    else:
        lines += hand_lines(view) + plan_lines(view)
    # after the hand: on a crowded screen these go before a card the plan is typed from
    for said in (spd_line(view), reserved_line(view)):
        if said is not None:
            lines += textwrap.wrap(said, WIDTH, subsequent_indent="    ")
    return [*lines, *log_block(view, rows - 2 - len(lines), late)][: rows - 2]


def too_small(columns: int, rows: int) -> list[str] | None:
    """What a terminal smaller than the screen shows instead of it (the lines would
    wrap and scroll, each redraw a new smear), wrapped to its width; None when it fits."""
    if columns > WIDTH and rows >= ROWS:
        return None
    told = (
        f"This terminal is {columns}x{rows}: the battle needs at least {WIDTH + 1}x{ROWS} "
        "(columns x lines). Enlarge the window; q gives up."
    )
    return textwrap.wrap(told, max(columns - 1, 20))


TAKEN_OVER = (
    "The CPU plays your seat now (you were away 30 s): you lose this battle whatever "
    "happens, and may watch it end."
)
"""BATTLE.md 5: the player who left loses; back, they watch the rest, not play."""


def waiting(view: pb.BattleView) -> str:
    """What a line typed while it is not the player's move is told: the CPU plays their
    seat, or what they sent is in and what comes next (found from outside: a line typed
    once the formation was placed read "Your plan is in: waiting for the turn to
    resolve", and stayed on the screen into turn 1, where no plan was in)."""
    if view.you.cpu:
        return TAKEN_OVER
    if view.status == pb.BATTLE_STATUS_FORMATION:
        return "Your formation is in: turn 1 begins once your opponent has placed theirs."
    return "Your plan is in: waiting for the turn to resolve."


def prompt(view: pb.BattleView) -> str:
    if view.status == pb.BATTLE_STATUS_FORMATION:
        # The squares go to the characters in this order (found from outside: unsaid).
        names = ", ".join(label(u) for u in view.you.units if not u.summon)
        return f"squares r c for {names} (Enter: front column) > "
    return "plan (card [r c|row R|col C]; ...; Enter: pass; q gives up) > "
