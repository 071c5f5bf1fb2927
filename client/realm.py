"""Realm tables in the client (RULES.md 17): how a card's creature type, alignment and
Legendary mark read, the Realm modules of a table, the Realm state under the board
(spent Lair and Resistance, hexes, pending Rot, the pile's size, the last move's
comparisons) and a move with Lair ("0 5 lair")."""

from __future__ import annotations

from collections.abc import Sequence

from triad.v1 import common_pb2 as pb

from client.connection import CommandError
from services.rules.realm import HEX_OF_TYPE, CreatureType

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


def realm_attributes(
    character: pb.Character, short: bool = False, cursed: bool = False, letter: bool = False
) -> str:
    """A character's Realm attributes: 'dragon, chaotic evil, legendary' (``short``:
    'Dra CE ★', the browser's Legendary mark: found from outside, an 'L' read as Lawful
    or the left side); with its hex at a Cursed table: 'Dra CE ★ ember' (``letter``:
    'Dra CE ★ E', as compact board cells show it); '-' when the server sent none."""
    if not character.creature_type:
        return "-"
    kind = pb.CreatureType.Name(character.creature_type).removeprefix("CREATURE_TYPE_").lower()
    law = pb.AlignmentLaw.Name(character.alignment.law).removeprefix("ALIGNMENT_LAW_").lower()
    moral = pb.AlignmentMoral.Name(character.alignment.moral)
    moral = moral.removeprefix("ALIGNMENT_MORAL_").lower()
    hexed = [type_hex(character.creature_type)] if cursed else []
    hexed = [h[:1].upper() for h in hexed] if letter else hexed
    if short:
        words = [kind[:3].title(), (law[:1] + moral[:1]).upper()]
        return " ".join(words + [LEGENDARY] * character.legendary + hexed)
    return ", ".join([kind, f"{law} {moral}"] + ["legendary"] * character.legendary + hexed)


LEGENDARY = "★"
"""The Legendary mark, as the browser shows it (the client's stars are ★ too)."""


def type_hex(kind: pb.CreatureType.ValueType) -> str:
    """The hex a creature type carries under Cursed (RULES.md 17), in a word: 'ward'.
    From the rules' own table (a hand card's view carries no hex; a board cell's does)."""
    name = pb.CreatureType.Name(kind).removeprefix("CREATURE_TYPE_").lower()
    return HEX_OF_TYPE[CreatureType(name)].value


def cell_hex(view: pb.MatchView, index: int, compact: bool = False) -> str:
    """The hex of the card on a board cell at a Cursed table, as the view tells it:
    'ward', '(ward)' once spent (compact: its first letter, 'W' or '(W)'); '' for none."""
    cells = view.realm.cells
    if index >= len(cells) or not cells[index].hex:
        return ""
    word = pb.Hex.Name(cells[index].hex).removeprefix("HEX_").lower()
    word = word[:1].upper() if compact else word
    return f"({word})" if cells[index].hex_spent else word


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
    """How Sudden Death ended a full board ('' when it changed nothing): '; Sudden Death
    drew 2 cards from the pile', and for a draw, that it drew them all (RULES.md 17: then
    the draw stands); a draw after rounds of Sudden Death, that the last tied too
    (RULES.md 12). Short enough for the status line of an 80-column terminal."""
    drawn = len(view.realm.replacements)
    rounds = len(view.earlier_rounds)
    if view.outcome.WhichOneof("result") == "draw" and rounds and not drawn:
        # RULES.md 12: the last round tied as well (found from outside: "Draw 13-13: the
        # board is full" did not say why no round followed).
        return f"; round {rounds + 1} tied too: the draw stands"
    if not drawn:
        return ""
    if view.outcome.WhichOneof("result") == "draw":
        return f"; Sudden Death drew all {drawn}: the draw stands"
    return f"; Sudden Death drew {drawn} card{'s' if drawn > 1 else ''} from the pile"


MODIFIER_WORDS = {
    pb.REALM_MODIFIER_KIND_TYPE_ADVANTAGE: "type",
    pb.REALM_MODIFIER_KIND_GUARD: "guard",
    pb.REALM_MODIFIER_KIND_LAIR: "lair",
    pb.REALM_MODIFIER_KIND_EMBER: "ember",
    pb.REALM_MODIFIER_KIND_ROT: "rot",
    pb.REALM_MODIFIER_KIND_BIND: "bind",
    pb.REALM_MODIFIER_KIND_ALIGNMENT_CLASH: "clash",
}
"""A Realm modifier in a comparison, in a short word (RULES.md 17, "Modifiers")."""


def _side_said(value: int, modifiers: Sequence[pb.RealmModifier], compact: bool) -> str:
    """One side of a comparison from its printed value: '9 +1 type +1 clash' (compact:
    '+1type+1clash', the printed value left out); the printed value alone without
    modifiers (compact: '')."""
    printed = value - sum(m.amount for m in modifiers)
    said = [
        f"{m.amount:+d}{'' if compact else ' '}{MODIFIER_WORDS.get(m.kind, '?')}" for m in modifiers
    ]
    if compact:
        return "".join(said)
    return " ".join([str(printed), *said])


def comparison_words(c: pb.RealmComparison, compact: bool = False) -> str:
    """'6>5 11v4 (9 +1 type +1 clash v 4)': the cells, the modified values, and which
    modifiers made them, each side from its printed value (compact: '6>5 11v4
    (+1type+1clash)'); the values alone when no modifier applied, or from a server
    before modifiers were recorded."""
    said = f"{c.attacker_cell}>{c.defender_cell} {c.attack}v{c.defence}"
    if not c.attack_modifiers and not c.defence_modifiers:
        return said
    attack = _side_said(c.attack, c.attack_modifiers, compact)
    defence = _side_said(c.defence, c.defence_modifiers, compact)
    if compact:  # a side without modifiers is left out: '(+1lair)', '(v -1rot)'
        return f"{said} ({attack}{' v ' + defence if defence else ''})".replace("( v", "(v")
    return f"{said} ({attack} v {defence})"


Part = tuple[str, str]
"""A piece of the Realm state's text and what joins it to the piece before it on a line."""


def realm_parts(view: pb.MatchView, tie: str = "", compact: bool = False) -> list[Part]:
    """The Realm state under the board, in pieces: who has spent Lair and Resistance
    (only the modules the table plays), pending Rot, hexes spent, the draw pile's size,
    the last move's comparisons (each one a piece, with its modifiers) and saves."""
    realm = view.realm
    parts: list[Part] = []
    for power in ("lair", "resistance"):
        if not getattr(view.rules.realm, power):  # found from outside: 'nobody' at tables
            continue  # without the module
        spent = [_seat_word(view, s.seat) for s in realm.seats if getattr(s, f"{power}_spent")]
        parts.append((SEPARATOR, f"{power.title()} spent: {', '.join(spent) or 'nobody'}"))
    rot = [f"{i}:-{c.pending_rot}" for i, c in enumerate(realm.cells) if c.pending_rot]
    if rot:
        parts.append((SEPARATOR, "Rot " + " ".join(rot)))
    spent_hexes = [str(i) for i, c in enumerate(realm.cells) if c.hex_spent]
    if spent_hexes:
        parts.append((SEPARATOR, "hex spent on " + ",".join(spent_hexes)))
    if view.rules.sudden_death:
        parts.append((SEPARATOR, f"pile {realm.draw_pile_left}"))
    last = realm.last_move
    compared = [comparison_words(c, compact) for c in last.comparisons]
    if last.lair:
        compared.insert(0, "Lair")
    saved = [
        f"{s.cell} saved by {pb.Protection.Name(s.by).removeprefix('PROTECTION_').lower()}"
        for s in last.saved
    ]
    for n, piece in enumerate(compared + saved):
        parts.append((SEPARATOR, "last: " + piece) if n == 0 else ("; ", piece))
    # Realm Sudden Death: the move that tied the full board (``tie``, in words) and the
    # replacements before the last (the last is the move shown): found from outside,
    # only the last of five was told, and a small terminal's one move line lost the tie.
    if tie:
        parts.append((SEPARATOR, f"tied by: {tie}"))
    for replaced in realm.replacements[:-1]:
        removed, drawn = replaced.removed.character.name, replaced.drawn.character.name
        parts.append((SEPARATOR, f"pile on {replaced.cell}: {removed} out, {drawn} in"))
    return parts


def realm_line(view: pb.MatchView, tie: str = "") -> str:
    """The Realm state under the board on one line (``realm_parts``)."""
    return "".join(
        (joiner if n else "") + piece for n, (joiner, piece) in enumerate(realm_parts(view, tie))
    )


SEPARATOR = " | "


def realm_lines(view: pb.MatchView, width: int, tie: str = "", compact: bool = False) -> list[str]:
    """The Realm state in lines of at most ``width`` columns, broken between its pieces
    (found from outside: wrapped by the frame, '| last: ...' began the second line and a
    part could be cut in two; a last move's comparisons each a piece, since their
    modifiers made the part longer than a line); a piece longer than a line is left to
    the frame. ``compact``: the comparisons' modifiers in their compact form."""
    lines: list[str] = []
    for joiner, piece in realm_parts(view, tie, compact):
        if lines and len(lines[-1]) + len(joiner) + len(piece) <= width:
            lines[-1] += joiner + piece
        else:
            lines.append(piece)
    return lines


def parse_move(words: list[str], lair_allowed: bool) -> tuple[str, int, bool] | str:
    """(card, cell, lair) from 'CARD CELL' or 'CARD CELL lair'; else what to type."""
    lair = len(words) == 3 and words[2].lower() in LAIR_WORDS
    if lair and not lair_allowed:
        return "This table has no Lair: type a card and a cell."
    if len(words) != 2 + lair or not words[1].isdigit():
        return ""
    return words[0], int(words[1]), lair
