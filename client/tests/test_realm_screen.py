"""A Realm table's match screen in 80x24 (RULES.md 17), as found by an outside review:
which modifiers decided each comparison of the last move, each card's hex in the hands
and on the board at a Cursed table, the Legendary mark, only the modules the table
plays; and (any table) a long capture list and the end's line wrapped, not cut."""

from __future__ import annotations

from triad.v1 import common_pb2 as pb

from client.realm import comparison_words, realm_line
from client.tests.test_render import drawn, fits
from client.tests.views import view

KINDS = (
    pb.CREATURE_TYPE_CONSTRUCT,
    pb.CREATURE_TYPE_DRAGON,
    pb.CREATURE_TYPE_UNDEAD,
    pb.CREATURE_TYPE_FEY,
    pb.CREATURE_TYPE_GIANT,
)
HEXES = {
    pb.CREATURE_TYPE_CONSTRUCT: pb.HEX_WARD,
    pb.CREATURE_TYPE_DRAGON: pb.HEX_EMBER,
    pb.CREATURE_TYPE_UNDEAD: pb.HEX_ROT,
    pb.CREATURE_TYPE_FEY: pb.HEX_SILENCE,
    pb.CREATURE_TYPE_GIANT: pb.HEX_BIND,
}
ALL = pb.RealmModules(
    type_advantage=True, alignment_clash=True, lair=True, resistance=True, cursed=True
)


def realm_view(size: int = 3, modules: pb.RealmModules = ALL) -> pb.MatchView:
    """Ann's turn at a Realm table with ``modules``: her hand (a Legendary Dragon
    second), the opponent's (a Legendary Undead first), four cards down (3x3; three on
    4x4), the Ward on 3 spent, and a last move whose two comparisons took modifiers."""
    placed = (
        {1: pb.SEAT_B, 3: pb.SEAT_A, 4: pb.SEAT_A, 5: pb.SEAT_B}
        if size == 3
        else {5: pb.SEAT_A, 6: pb.SEAT_B, 9: pb.SEAT_B}
    )
    rules = pb.Rules(visibility=pb.VISIBILITY_ALL_OPEN, same=True, plus=True, combo=True)
    shown = view(size, size, hand=5 if size == 3 else 8, placed=placed, rules=rules)
    shown.rules.family = pb.RULES_FAMILY_REALM
    shown.rules.realm.CopyFrom(modules)
    hands = [c.card.character for c in shown.my_hand]
    theirs = [s.revealed.character for s in shown.opponent_hand]
    for n, character in enumerate(hands + theirs):
        character.creature_type = KINDS[(n + (2 if n >= len(hands) else 0)) % 5]
        character.alignment.law = pb.ALIGNMENT_LAW_LAWFUL
        character.alignment.moral = pb.ALIGNMENT_MORAL_EVIL
    hands[1].legendary = theirs[0].legendary = True
    realm = shown.realm
    realm.cells.extend(pb.RealmCellState() for _ in range(size * size))
    for cell in shown.board:
        if cell.WhichOneof("content") == "card":
            kind = KINDS[cell.index % 5]
            cell.card.card.character.creature_type = kind
            realm.cells[cell.index].hex = HEXES[kind] if modules.cursed else pb.HEX_UNSPECIFIED
    realm.cells[5].hex_spent = modules.cursed  # a Ward (5 % 5: a Construct)
    realm.seats.add(seat=pb.SEAT_A, lair_spent=True)
    realm.seats.add(seat=pb.SEAT_B)
    last = realm.last_move
    last.lair = True
    typed = last.comparisons.add(attacker_cell=4, defender_cell=1, attack=11, defence=4)
    typed.attack_modifiers.add(kind=pb.REALM_MODIFIER_KIND_TYPE_ADVANTAGE, amount=1)
    typed.attack_modifiers.add(kind=pb.REALM_MODIFIER_KIND_ALIGNMENT_CLASH, amount=1)
    bound = last.comparisons.add(attacker_cell=4, defender_cell=5, attack=6, defence=-1)
    bound.attack_modifiers.add(kind=pb.REALM_MODIFIER_KIND_LAIR, amount=1)
    bound.defence_modifiers.add(kind=pb.REALM_MODIFIER_KIND_BIND, amount=-7)
    bound.defence_modifiers.add(kind=pb.REALM_MODIFIER_KIND_ROT, amount=-1)
    return shown


def test_each_comparison_names_the_modifiers_that_decided_it() -> None:
    """Found from outside: '7>4 6v6', '6>5 11v4': only the final numbers, never which
    modifier made them (RULES.md 17 of Clash: 'views show it')."""
    typed, bound = realm_view().realm.last_move.comparisons
    assert comparison_words(typed) == "4>1 11v4 (9 +1 type +1 clash v 4)"
    assert comparison_words(bound) == "4>5 6v-1 (5 +1 lair v 7 -7 bind -1 rot)"
    assert comparison_words(typed, compact=True) == "4>1 11v4 (+1type+1clash)"
    assert comparison_words(bound, compact=True) == "4>5 6v-1 (+1lair v -7bind-1rot)"
    defended = pb.RealmComparison(attacker_cell=0, defender_cell=1, attack=5, defence=7)
    defended.defence_modifiers.add(kind=pb.REALM_MODIFIER_KIND_GUARD, amount=1)
    assert comparison_words(defended, compact=True) == "0>1 5v7 (v +1guard)"
    # A move stored before modifiers were recorded (or none applied): the values alone.
    assert (
        comparison_words(pb.RealmComparison(attacker_cell=2, defender_cell=5, attack=6, defence=6))
        == "2>5 6v6"
    )
    screen = drawn(realm_view())
    fits(screen)
    said = " ".join(line.strip("│ ") for line in screen)
    assert "last: Lair" in said and "4>1 11v4 (9 +1 type +1 clash v 4)" in said, "\n".join(screen)
    assert "4>5 6v-1 (5 +1 lair v 7 -7 bind -1 rot)" in said, "\n".join(screen)
    great = drawn(realm_view(4))  # compact cells: the compact form
    fits(great)
    assert "4>1 11v4 (+1type+1clash); 4>5 6v-1 (+1lair v -7bind-1rot)" in "\n".join(great)


def test_hexes_show_in_both_hands_and_on_board_cells_at_a_cursed_table() -> None:
    """Found from outside: 'Con LE T6 R1 B2 L7', the hex each type carries under Cursed
    never named, nor whether a Ward or Ember was spent."""
    lines = drawn(realm_view())
    fits(lines)
    screen = "\n".join(lines)
    for hexed in ("Con LE W ", "Dra LE ★ E ", "Und LE R ", "Fey LE S ", "Gia LE B "):
        assert hexed in screen, screen  # Ann's hand: the hex by its letter, as on 4x4
    assert "Und LE ★ R " in screen, screen  # the opponent's
    assert " 9 silence " in screen and " 7 ember " in screen, "under the card's name"
    assert "(ward)" in screen, "the Ward on 5 is spent"
    great = "\n".join(drawn(realm_view(4)))
    assert "Con LE W " in great and "Dra LE ★ E " in great, great
    assert "(W)" in great and "│3 E 9│" not in great, great
    plain = "\n".join(drawn(realm_view(modules=pb.RealmModules(lair=True))))
    assert "ember" not in plain and "ward" not in plain and "Dra LE ★ " in plain, plain


def test_a_cursed_3x3_hand_leaves_its_own_card_names_readable() -> None:
    """Found from outside: 'Ys… Fey CN silence T7R9B3L7', a player's own hand cut to
    two letters a name beside the hex words, while the opponent's (unnumbered) read."""
    hand = [c.card.character.name for c in realm_view().my_hand]
    screen = "\n".join(drawn(realm_view()))
    for name in hand:
        assert f"] {name[:6]}" in screen, screen


def test_the_state_line_names_only_the_modules_the_table_plays() -> None:
    """Found from outside: 'Lair spent: nobody | Resistance spent: nobody' at a table
    without either module."""
    line = realm_line(realm_view(modules=pb.RealmModules(cursed=True)))
    assert "Lair spent" not in line and "Resistance spent" not in line, line
    line = realm_line(realm_view(modules=pb.RealmModules(resistance=True)))
    assert "Resistance spent: nobody" in line and "Lair spent" not in line, line


def test_a_long_capture_list_and_the_end_line_wrap_within_80x24() -> None:
    """Found from outside: 'took 10 (higher side), 6, 9, 2, 5, 8,…' and the end's line
    cut at the frame."""
    owners = dict.fromkeys((0, 1, 2, 4, 5, 6, 8, 9, 10, 13, 14), pb.SEAT_A)
    shown = view(4, 4, hand=8, placed=owners, names=("annabelle-the-bold", "[BOT] Bartholomew"))
    last = shown.last_placement
    last.seat = pb.SEAT_A
    last.card.CopyFrom(shown.my_hand[0].card)
    last.captures.add(cell=10, cause=pb.CAPTURE_CAUSE_BASIC)
    for cell in (6, 9, 2, 5, 8, 1, 0, 4):
        last.captures.add(cell=cell, cause=pb.CAPTURE_CAUSE_COMBO)
    lines = drawn(shown)
    fits(lines)
    said = " ".join(line.strip("│ ") for line in lines)
    assert (
        "You put Quistis Trepe on 14: took 10 (higher side), 6, 9, 2, 5, 8, 1, 0, 4 (Combo)."
        in said
    ), "\n".join(lines)
    shown.status = pb.MATCH_STATUS_FINISHED
    shown.outcome.reason = pb.FINISH_REASON_DISCONNECT
    shown.outcome.forfeiting_seat = pb.SEAT_B
    shown.outcome.winner_seat = pb.SEAT_A
    lines = drawn(shown, typing="")
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80, "\n".join(lines)
    said = " ".join(line.strip("│ ") for line in lines)
    ended = "You win at 8-5: [BOT] Bartholomew stayed disconnected past the grace period."
    assert ended in said, "\n".join(lines)


def test_the_prompt_offers_lair_until_the_players_lair_is_spent() -> None:
    """Found from outside: 'Type card and cell [lair]' after the Lair was declared."""
    shown = realm_view()  # Ann (seat A) has spent hers
    assert "Type card and cell (0" in "\n".join(drawn(shown))
    shown.realm.seats[0].lair_spent = False
    assert "Type card and cell [lair] (0" in "\n".join(drawn(shown))
