"""The rules and results of a match in words, as a person reads them: card values and
elements, the table's rules (visibility, placement rules and Realm modules, board,
house hands, Sudden Death, trade rule), the mode, why a card was captured and why a
match ended."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb

from client.expiry import expiry
from client.realm import is_realm, module_words, replacement_of, sudden_death_ending

ELEMENT_NAMES = {v: k.removeprefix("ELEMENT_").lower() for k, v in pb.Element.items()}

MAX_ROUNDS = 5
"""Sudden Death plays at most five rounds (RULES.md 12, Decision)."""

TRADE_NAMES = {
    pb.TRADE_RULE_ONE: "Trade One",
    pb.TRADE_RULE_DIRECT: "Trade Direct",
    pb.TRADE_RULE_DIFFERENCE: "Trade Difference",
    pb.TRADE_RULE_ALL: "Trade All",
}

CAUSE_NAMES = {
    pb.CAPTURE_CAUSE_SAME: "Same",
    pb.CAPTURE_CAUSE_PLUS: "Plus",
    pb.CAPTURE_CAUSE_COMBO: "Combo",
    pb.CAPTURE_CAUSE_BASIC: "higher side",
}
"""Why a card changed owner (RULES.md 4), as the last move's line says it."""

CAUSE_TAGS = {
    pb.CAPTURE_CAUSE_SAME: "SAME",
    pb.CAPTURE_CAUSE_PLUS: "PLUS",
    pb.CAPTURE_CAUSE_COMBO: "COMBO",
    pb.CAPTURE_CAUSE_BASIC: "TAKEN",
}
"""The same on the captured card's cell, in capitals; compact cells show the first letter."""

LADDER_NAMES = {pb.LADDER_RANKED: "Ranked", pb.LADDER_DRAFT: "Draft"}


def side(value: int) -> str:
    return "A" if value == 10 else str(value)


def sides(s: pb.Sides, spaced: bool = True) -> str:
    values = (s.top, s.right, s.bottom, s.left)
    return (" " if spaced else "").join(
        f"{k}{side(v)}" for k, v in zip("TRBL", values, strict=True)
    )


def element_name(value: pb.Element.ValueType) -> str:
    """'fire', ...; '-' for no element."""
    return ELEMENT_NAMES.get(value, "-") if value else "-"


def mode_name(mode: pb.Mode.ValueType) -> str:
    """'Ranked', 'Custom', ...; '' when unset."""
    return pb.Mode.Name(mode).removeprefix("MODE_").capitalize() if mode else ""


def board_line(rules: pb.Rules) -> str:
    """'5x5, 3 blocked' for any board but the standard one; '' for 3x3."""
    rows, cols = rules.board.rows or 3, rules.board.columns or 3
    # A table's rules say how many cells it blocks, a match's which ones it drew.
    blocked = len(rules.board.blocked_cells) or rules.board.blocked_count
    if (rows, cols) == (3, 3) and not blocked:
        return ""
    return f"{rows}x{cols}" + (f", {blocked} blocked" if blocked else "")


def placing_line(rules: pb.Rules, short: bool = False) -> str:
    """How cards are placed and seen: 'Three Open, Same, Plus, Combo' (at a Realm
    table also 'Realm' and its modules: '..., Combo, Realm, Lair, Cursed'; ``short``:
    '..., Combo, Realm: lair,cursed')."""
    visibility = pb.Visibility.Name(rules.visibility).removeprefix("VISIBILITY_")
    on = [f.title() for f in ("same", "plus", "combo", "elemental") if getattr(rules, f)]
    if rules.same_wall:
        on.append("Same Wall")
    on += module_words(rules, short)
    return ", ".join([visibility.replace("_", " ").title(), *on])


def table_line(rules: pb.Rules) -> str:
    """What the table plays on and for: '5x5, 3 blocked, Sudden Death, Trade Direct'."""
    on = [shaped] if (shaped := board_line(rules)) else []
    if rules.house_hands:
        on.append("house hands")
    if rules.sudden_death:
        on.append("Realm Sudden Death" if is_realm(rules) else "Sudden Death")
    on.append(TRADE_NAMES.get(rules.trade_rule, "No trade"))
    return ", ".join(on)


def rules_line(rules: pb.Rules) -> str:
    """The table's rules as a person reads them in the lobby: visibility, placement
    rules, board, house hands, Sudden Death and the trade rule."""
    return f"{placing_line(rules)}, {table_line(rules)}"


def match_rules_line(view: pb.MatchView) -> str:
    """The match screen's rules line: how cards are placed and seen, and the mode (a
    practice's with the mode whose rules it plays; whether it is rated):
    'Rules: Closed, Same, Plus, Combo (Ranked, rated)'. The board, Sudden Death and the
    trade rule go under the board (``table_line``)."""
    mode = mode_name(view.mode)
    if view.mode == pb.MODE_PRACTICE and view.origin_mode:
        mode += f", {mode_name(view.origin_mode)} rules"
    if view.ladder.ladder:
        mode += ", rated"
    mode = f" ({mode})" if mode else ""
    line = f"Rules: {placing_line(view.rules)}{mode}"
    if len(line) > TITLE_WIDTH:  # a Realm table's modules by their short names
        line = f"Rules: {placing_line(view.rules, short=True)}{mode}"
    return line if len(line) <= TITLE_WIDTH else line.removeprefix("Rules: ")


TITLE_WIDTH = 74
"""The longest title an 80-column match panel shows whole."""


def elemental_bonus(placed: pb.PlacedCard, mark: pb.Element.ValueType) -> int:
    """What a cell's element mark does to the card on it (RULES.md 4): +1 on every side
    when the elements match, -1 otherwise (another element or none); 0 unmarked."""
    if not mark:
        return 0
    return 1 if placed.card.character.element == mark else -1


def _name(view: pb.MatchView, seat: pb.Seat.ValueType, you: str = "you") -> str:
    if seat == view.my_seat:
        return you
    return next((p.player_name for p in view.players if p.seat == seat), "your opponent")


def end_reason(view: pb.MatchView) -> str:
    """Why the match ended, in words: 'the board is full', 'Bea forfeited', 'you
    missed two turns in a row', 'Bea stayed disconnected past the grace period' (or
    both players: the match abandoned, services/match/domain/ending.py)."""
    outcome = view.outcome
    who = _name(view, outcome.forfeiting_seat)
    if outcome.reason == pb.FINISH_REASON_BOARD_FULL:
        return "the board is full" + sudden_death_ending(view)
    if outcome.reason == pb.FINISH_REASON_FORFEIT:
        return f"{who} forfeited"
    if outcome.reason == pb.FINISH_REASON_TURN_TIMEOUT:
        return f"{who} missed two turns in a row"
    if outcome.reason == pb.FINISH_REASON_DISCONNECT:
        if outcome.forfeiting_seat == pb.SEAT_UNSPECIFIED:  # both away: abandoned
            return "both players stayed disconnected past the grace period"
        return f"{who} stayed disconnected past the grace period"
    return "the match ended"


def result_words(view: pb.MatchView) -> str:
    """'You win 6-4: the board is full.' (the viewer's score first); a match ended
    before its board was full says the score it stood at: 'You win at 5-5: Bea
    forfeited.' (found from outside: 'You win 8-8: ann forfeited.' read as a tie won)."""
    mine = next((p.score for p in view.players if p.seat == view.my_seat), 0)
    theirs = next((p.score for p in view.players if p.seat != view.my_seat), 0)
    outcome = view.outcome
    if outcome.WhichOneof("result") == "draw":
        result = "Draw"
    else:
        result = "You win" if outcome.winner_seat == view.my_seat else "You lose"
    at = "" if outcome.reason == pb.FINISH_REASON_BOARD_FULL else " at"
    return f"{result}{at} {mine}-{theirs}: {end_reason(view)}."


def move_words(view: pb.MatchView, last: pb.Placement) -> list[tuple[str, str]]:
    """A move of ``view``'s match as (text, kind) pieces, kind '' or a cause's tag for
    its style: 'Bea put Ifrit on 4: took 1, 3 (Same), 5 (Combo).'"""
    who = _name(view, last.seat, "You")
    auto = " (time ran out: the server placed it)" if last.auto_played else ""
    pieces = [(f"{who} put {last.card.character.name} on {last.cell}{auto}", "")]
    replaced = replacement_of(view, last) if is_realm(view.rules) else None
    if replaced is not None:  # Realm Sudden Death: placed for the removed card's owner
        whose = "you" if last.seat == view.my_seat else who
        said = f"Pile: {last.card.character.name} on {last.cell} for {whose}, "
        pieces = [(said + f"{replaced.removed.character.name} out", "")]
    if not last.captures:
        return [*pieces, (": no capture.", "")]
    # Captures of one cause in a row are named once, after the last of them: found in
    # review, a 4x4 Combo chain's "9 (Combo), 5 (Combo), ..." ran past 80 columns.
    pieces.append((": took ", ""))
    captures = last.captures
    for n, capture in enumerate(captures):
        pieces.append((", " if n else "", ""))
        closes = n + 1 == len(captures) or captures[n + 1].cause != capture.cause
        cause = f" ({CAUSE_NAMES.get(capture.cause, 'captured')})" if closes else ""
        pieces.append((f"{capture.cell}{cause}", CAUSE_TAGS.get(capture.cause, "")))
    return [*pieces, (".", "")]


def battle_join(table: pb.Table) -> str:
    """A Skirmish battle table (open, or a challenge) in words: when it expires and how
    to join it, the command last, to be copied whole (after it, '; expires at' put a
    semicolon on the table id)."""
    when = expiry(table, " (")
    when += ")" if when else ""
    return f"a Skirmish battle{when}: triad-client battle --join {table.table_id}"


def table_row(table: pb.Table) -> str:
    """A table in the lobby: its rules, then the decks (house hands are in the rules); a
    battle table, how to join it; when it expires, a challenge or not (found from
    outside: an ordinary table's expiry, sent all the same, was left out). The lobby
    lists a challenge only to the challenged."""
    host = table.host_name + (" (challenges you)" if table.challenged_player_name else "")
    ends = expiry(table)
    if table.settings.battle:
        return f"{table.table_id[:8]}  {host}: {battle_join(table)}"
    decks = "Random decks" if table.settings.random_deck else "players' decks"
    decks = "" if table.settings.rules.house_hands else f", {decks}"
    return f"{table.table_id[:8]}  {host}: {rules_line(table.settings.rules)}{decks}{ends}"
