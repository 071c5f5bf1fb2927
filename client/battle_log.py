"""The last turn's actions on the Skirmish screen (BATTLE.md 6: every resolved action
is shown with its effects): each action in words, as many as the terminal's rows hold
under the rest of the screen (``log_block``), the whole turn a page at a time when they
do not (``log_page``: the screen's ``log`` command), and a turn the player passed because
its time ran out (``ran_out``)."""

from __future__ import annotations

import re
import textwrap

from triad.v1 import common_pb2 as pb

from client.battle_names import card_words, team_labels

WIDTH = 79
LOG_COMMAND = "log"
"""What the player types to read the whole last turn."""
CUT = "Last turn (its last "
"""How the log area begins when the turn's actions did not all fit."""

CHANGES = {
    "damage": "{unit} takes {amount} damage",
    "absorbed": "{unit}'s shield absorbs {amount}",
    "heal": "{unit} heals {amount}",
    "shield": "{unit} gains a {amount} shield",
    "burn": "{unit} burns for {amount} a turn",
    "cover": "{unit} takes the hits aimed at its allies",
    "spd": "{unit} Spd {amount:+d}",
    "energy": "{unit} gains {amount} Energy",
    "energy_steal": "{unit} loses {amount} Energy",
    "summon": "{unit} appears",
    "defeated": "{unit} is defeated",
}
"""An effect (``BattleEffect.change``) in words; a change this client does not know is
shown by its name."""

_RESERVED = re.compile(r"(\d+)\.([\w.]+)@(\d),(\d)")


def effect_words(effect: pb.BattleEffect, names: dict[str, str]) -> str:
    """One effect of a log entry, in words."""
    if effect.change == "reserved" and (spot := _RESERVED.fullmatch(effect.unit)):
        _, summon, row, col = spot.groups()
        return f"a {card_words(summon)} is reserved for square {row} {col}"
    unit = names.get(effect.unit) or gone_unit(effect.unit, names)
    said = CHANGES.get(effect.change)
    if said is not None:
        return said.format(unit=unit, amount=effect.amount)
    return f"{unit} {effect.change}" + (f" {effect.amount}" if effect.amount else "")


_UID = re.compile(r"(\d+)\.([\w.]+)")


def gone_unit(uid: str, names: dict[str, str]) -> str:
    """A unit no longer on the fields (a summon defeated leaves them; the turn's log still
    names it), by its uid "<seat>.<ref>": yours or theirs, its ref's words."""
    if not (parts := _UID.fullmatch(uid)):
        return uid
    seat, ref = parts.groups()
    whose = "your" if names.get(f"team {seat}") == "your team" else "their"
    return f"{whose} {card_words(ref)}"


SEEN_CARDS: dict[str, str] = {}
"""The names of the cards seen in the player's hand in this run, by id: the log names
cards by id, and a card played has left the hand by the time its action is shown
(found from outside: Barkskin read "Bark", Raise Wraith "Raise", as the browser, which
keeps them, did not). The opponent's, never seen, are said from their ids."""

NOTES = (("covered by ", False), ("reserved by ", True))
"""The notes that name a unit (the server names a character by its full name), and
whether that unit is of the acting team: a Cover unit takes a hit aimed at its allies,
so it stands on the other side; a reserved summon's summoner on its own."""


def note_words(entry: pb.BattleLogEntry, view: pb.BattleView, names: dict[str, str]) -> str:
    """An entry's note with the unit it names as the fields name it, yours or theirs
    (found from outside: "(covered by Pax Ironleaf)" with a Pax on both sides)."""
    for said, acting in NOTES:
        if not entry.note.startswith(said):
            continue
        named = entry.note.removeprefix(said)
        if named in names:  # a uid (a summon)
            return said + names[named]
        mine = (entry.seat == view.seat) == acting
        team = view.you if mine else view.opponent
        found = next((u.uid for u in team.units if u.name == named), None)
        if found is not None:
            return said + names[found]
        return f"{said}{'your' if mine else 'their'} {named}"
    return entry.note


def unit_names(view: pb.BattleView) -> dict[str, str]:
    """Every unit on the fields by uid, as the log names it: yours by its label, theirs
    "their" and its label (the same first name may stand on both), and both teams."""
    names = dict(team_labels(view.you))
    names |= {uid: f"their {said}" for uid, said in team_labels(view.opponent).items()}
    names |= {f"team {view.seat}": "your team", f"team {1 - view.seat}": "their team"}
    return names


def log_lines(view: pb.BattleView) -> list[str]:
    """The last turn's actions, units named as on the fields (yours or theirs: the
    same first name may stand on both), cards by their names, effects in words."""
    names = unit_names(view)
    teams = {view.seat: "you", 1 - view.seat: "they"}
    SEEN_CARDS.update((c.id, c.name) for c in view.you.hand)
    cards = SEEN_CARDS
    lines = []
    for entry in view.log:
        named = entry.card_name or cards.get(entry.card) or card_words(entry.card)
        what = named if entry.card else entry.step
        effects = ", ".join(effect_words(e, names) for e in entry.effects)
        who = names.get(entry.actor) or gone_unit(entry.actor, names)
        who = who or teams.get(entry.seat, f"team {entry.seat}")
        if entry.step == "unlock":
            line = unlocked(who, what, entry.seat == view.seat)
        else:
            line = f"{who} {what}"
            line += f": {entry.fizzled}" if entry.fizzled else f" -> {effects or 'nothing'}"
            note = note_words(entry, view, names)
            line += f" ({note})" if note else ""  # a retarget, a Cover
        # wrapped, not cut: an action's last effects are often what it did
        lines += textwrap.wrap(line, WIDTH, subsequent_indent="  ")
    return lines


def unlocked(who: str, card: str, mine: bool) -> str:
    """A Special unlocked at the turn end: it went to the hand, it was not played. The
    opponent's is not named (the server leaves its card out: their hand is hidden)."""
    if mine:
        return f"{who}'s {card} is now in your hand"
    return f"{who}'s Special is now in their hand"


def log_block(view: pb.BattleView, room: int, late: str = "") -> list[str]:
    """The log area in ``room`` lines at most: "Last turn:", ``late`` (the turn passed
    for want of a plan), then the turn's actions, the last ones when not all fit (from
    an action's start), saying how to read them all (found from outside: a turn's first
    actions, the swift ones, were cut even in a 100x30 terminal)."""
    log, told = log_lines(view), textwrap.wrap(late, WIDTH, subsequent_indent="  ")
    if (not log and not told) or room < 1 + len(told) + (1 if log else 0):
        return []
    room -= 1 + len(told)
    shown = log[-room:] if room else []
    while len(shown) < len(log) and shown and shown[0].startswith(" "):
        shown = shown[1:]  # the tail of an action whose head is cut: from the next
    head = "Last turn:"
    if len(shown) < len(log):
        head = f"{CUT}{len(shown)} of {len(log)} lines; type {LOG_COMMAND} for all):"
    return [head, *told, *shown]


def log_page(view: pb.BattleView, rows: int, start: int) -> tuple[list[str], int | None]:
    """The ``log`` command's page of the whole last turn from line ``start``, in ``rows``
    lines with its prompt (and one to spare, as the screen), ending with an action, and
    where the next page starts (None: this is the last)."""
    log = log_lines(view) or ["(nothing was played)"]
    end = min(len(log), start + max(1, rows - 3))
    while end < len(log) and log[end].startswith(" ") and end > start + 1:
        end -= 1  # a page ends where an action does: none is split across two
    shown = log[start:end]
    more = end if end < len(log) else None
    head = f"The last turn in full, lines {start + 1}-{end} of {len(log)}:"
    return [head, *shown], more


def page_prompt(more: int | None) -> str:
    return "Enter: more of the last turn > " if more is not None else "Enter: back to the battle > "


def ran_out(before: pb.BattleView, after: pb.BattleView) -> str:
    """What the log area says when ``after`` followed ``before`` because the player's
    time ran out (BATTLE.md 4.2: no commit in 60 s acts with the cards set so far; the
    formation's 30 s place the front column): their seat neither committed in ``before``
    nor played by the CPU, and the turn (or the formation) over in ``after``. "" when it
    did not (found from outside: a turn passed by the timer said nothing of it)."""
    if before.battle_id != after.battle_id or before.you.committed or before.you.cpu:
        return ""
    if after.you.cpu or after.outcome.reason in ("give_up", "disconnect"):
        return ""
    moved = after.turn != before.turn or after.status == pb.BATTLE_STATUS_FINISHED
    if before.status == pb.BATTLE_STATUS_SELECTION and moved:
        if before.set_actions:
            return "Time ran out: the plan you had set played (it was not committed)."
        return "Time ran out: you passed (no plan was committed)."
    if before.status == pb.BATTLE_STATUS_FORMATION and after.status != before.status:
        return "Time ran out: your characters stand in the front column, rows 0 1 2."
    return ""
