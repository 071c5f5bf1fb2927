"""Realm tables in the client (RULES.md 17): how a card's creature type, alignment and
Legendary mark read, the Realm modules of a table, the Realm state under the board
(spent Lair and Resistance, hexes, pending Rot, the pile's size, the last move's
comparisons) and a move with Lair ("0 5 lair")."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb

from client.connection import CommandError

MODULES = {
    "type_advantage": "Type Advantage",
    "alignment_clash": "Alignment Clash",
    "lair": "Lair",
    "resistance": "Resistance",
    "cursed": "Cursed",
}
"""The RealmModules fields, as a player reads them."""
LAIR_WORDS = ("lair", "l")
OPTIONS = {
    "types": "type_advantage",
    "clash": "alignment_clash",
    "lair": "lair",
    "resistance": "resistance",
    "cursed": "cursed",
}
"""The module names ``--realm`` and ``--realm-modules`` take -> RealmModules fields."""


def chosen_modules(text: str) -> pb.RealmModules:
    """The modules a command line names: 'all', or names from ``OPTIONS`` separated by
    commas; 'none' or nothing: Same/Plus/Combo only (found from outside: `--realm none`,
    as the help words it, was refused 'unknown Realm modules')."""
    named = set(filter(None, text.split(","))) - {"none"}
    on = set(OPTIONS) if text == "all" else named
    if unknown := on - set(OPTIONS):
        raise CommandError(f"unknown Realm modules {sorted(unknown)}: use {', '.join(OPTIONS)}")
    return pb.RealmModules(**{OPTIONS[m]: True for m in on})


def realm_attributes(character: pb.Character, short: bool = False) -> str:
    """A character's Realm attributes: 'dragon, chaotic evil, legendary' (``short``:
    'Dra CE L'); '-' when the server sent none."""
    if not character.creature_type:
        return "-"
    kind = pb.CreatureType.Name(character.creature_type).removeprefix("CREATURE_TYPE_").lower()
    law = pb.AlignmentLaw.Name(character.alignment.law).removeprefix("ALIGNMENT_LAW_").lower()
    moral = pb.AlignmentMoral.Name(character.alignment.moral)
    moral = moral.removeprefix("ALIGNMENT_MORAL_").lower()
    if short:
        words = [kind[:3].title(), (law[:1] + moral[:1]).upper()]
        return " ".join(words + ["L"] * character.legendary)
    return ", ".join([kind, f"{law} {moral}"] + ["legendary"] * character.legendary)


def is_realm(rules: pb.Rules) -> bool:
    return rules.family == pb.RULES_FAMILY_REALM


SHORT_MODULES = dict(zip(MODULES, ("types", "clash", "lair", "resistance", "cursed"), strict=True))
"""The modules by the names ``host --realm`` takes, for a title too long otherwise."""


def module_words(rules: pb.Rules, short: bool = False) -> list[str]:
    """'Realm' and the modules on, for the rules line; nothing at a standard table.
    ``short``: 'Realm: all modules' or 'Realm: lair,cursed'."""
    if not is_realm(rules):
        return []
    on = [field for field in MODULES if getattr(rules.realm, field)]
    if not short:
        return ["Realm", *(MODULES[field] for field in on)]
    if len(on) == len(MODULES):
        return ["Realm: all modules"]
    return ["Realm: " + ",".join(SHORT_MODULES[field] for field in on)] if on else ["Realm"]


def _seat_word(view: pb.MatchView, seat: int) -> str:
    return "you" if seat == view.my_seat else "them"


def replacement_of(view: pb.MatchView, placement: pb.Placement) -> pb.RealmReplacement | None:
    """The Realm Sudden Death replacement ``placement`` is, if it is one."""
    for replaced in view.realm.replacements:
        if (replaced.cell, replaced.drawn.card_id) == (placement.cell, placement.card.card_id):
            return replaced
    return None


def sudden_death_ending(view: pb.MatchView) -> str:
    """How Realm Sudden Death ended a full board ('' when it replaced nothing): '; Sudden
    Death drew 2 cards from the pile', and for a draw, that it drew them all (RULES.md 17:
    then the draw stands). Short enough for the status line of an 80-column terminal."""
    drawn = len(view.realm.replacements)
    if not drawn:
        return ""
    if view.outcome.WhichOneof("result") == "draw":
        return f"; Sudden Death drew all {drawn}: the draw stands"
    return f"; Sudden Death drew {drawn} card{'s' if drawn > 1 else ''} from the pile"


def realm_line(view: pb.MatchView, tie: str = "") -> str:
    """The Realm state under the board: who has spent Lair and Resistance, pending Rot,
    hexes spent, the draw pile's size and the last move's comparisons and saves."""
    realm = view.realm
    parts = []
    for power in ("lair", "resistance"):
        spent = [_seat_word(view, s.seat) for s in realm.seats if getattr(s, f"{power}_spent")]
        parts.append(f"{power.title()} spent: {', '.join(spent) or 'nobody'}")
    rot = [f"{i}:-{c.pending_rot}" for i, c in enumerate(realm.cells) if c.pending_rot]
    if rot:
        parts.append("Rot " + " ".join(rot))
    spent_hexes = [str(i) for i, c in enumerate(realm.cells) if c.hex_spent]
    if spent_hexes:
        parts.append("hex spent on " + ",".join(spent_hexes))
    if view.rules.sudden_death:
        parts.append(f"pile {realm.draw_pile_left}")
    last = realm.last_move
    compared = [
        f"{c.attacker_cell}>{c.defender_cell} {c.attack}v{c.defence}" for c in last.comparisons
    ]
    if last.lair:
        compared.insert(0, "Lair")
    saved = [
        f"{s.cell} saved by {pb.Protection.Name(s.by).removeprefix('PROTECTION_').lower()}"
        for s in last.saved
    ]
    if compared or saved:
        parts.append("last: " + "; ".join(compared + saved))
    # Realm Sudden Death: the move that tied the full board (``tie``, in words) and the
    # replacements before the last (the last is the move shown): found from outside,
    # only the last of five was told, and a small terminal's one move line lost the tie.
    if tie:
        parts.append(f"tied by: {tie}")
    for replaced in realm.replacements[:-1]:
        removed, drawn = replaced.removed.character.name, replaced.drawn.character.name
        parts.append(f"pile on {replaced.cell}: {removed} out, {drawn} in")
    return SEPARATOR.join(parts)


SEPARATOR = " | "


def realm_lines(view: pb.MatchView, width: int, tie: str = "") -> list[str]:
    """``realm_line`` in lines of at most ``width`` columns, broken between its parts
    (found from outside: wrapped by the frame, '| last: ...' began the second line and a
    part could be cut in two); a part longer than a line is left to the frame."""
    lines: list[str] = []
    for part in realm_line(view, tie).split(SEPARATOR):
        if lines and len(lines[-1]) + len(SEPARATOR) + len(part) <= width:
            lines[-1] += SEPARATOR + part
        else:
            lines.append(part)
    return lines


def parse_move(words: list[str], lair_allowed: bool) -> tuple[str, int, bool] | str:
    """(card, cell, lair) from 'CARD CELL' or 'CARD CELL lair'; else what to type."""
    lair = len(words) == 3 and words[2].lower() in LAIR_WORDS
    if lair and not lair_allowed:
        return "This table has no Lair: type a card and a cell."
    if len(words) != 2 + lair or not words[1].isdigit():
        return ""
    return words[0], int(words[1]), lair
