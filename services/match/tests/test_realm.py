"""Realm tables in the match domain (RULES.md 17): placements resolved by the Realm
engine with the Realm state kept in the match and rebuilt by folding, Lair declared
with a placement and refused when spent or absent, Realm Sudden Death replacing the
weakest card from the recorded draw pile until the tie breaks or the pile is empty."""

from __future__ import annotations

from dataclasses import replace

import pytest
from triad.v1 import common_pb2 as pb
from triad.v1 import events_pb2 as ev

from services.match import codec, domain, mapping_realm
from services.match.domain.errors import LairRefused
from services.match.domain.events import CardPlaced, MatchCard, MatchFinished, MatchRules, Mode
from services.match.presenter import view_message
from services.match.tests.builders import T0, after, later, players
from services.match.views import match_view
from services.platform.errors import InvalidArgument
from services.rules import Cause, Rules, Seat, Visibility
from services.rules.realm import CreatureType, RealmRules

FEY = CreatureType.FEY  # Silence: no effect without Combo; no type advantage
EVERYTHING = RealmRules(
    same=False, combo=True, type_advantage=True, clash=True, lair=True, resistance=True, cursed=True
)


def realm_card(
    card_id: str, sides: tuple[int, int, int, int] = (5, 5, 5, 5), kind: CreatureType = FEY
) -> MatchCard:
    return MatchCard(card_id, f"chr-{card_id}", f"Card {card_id}", 1, None, sides, sides, kind=kind)


def realm_match(
    modules: RealmRules = EVERYTHING,
    sudden_death: bool = False,
    pile: tuple[MatchCard, ...] = (),
    visibility: Visibility = Visibility.ALL_OPEN,
) -> domain.Match:
    setup = MatchRules(
        Mode.CUSTOM,
        Rules(same=modules.same, plus=modules.plus, combo=modules.combo),
        visibility,
        sudden_death=sudden_death,
        realm=modules,
    )
    hands = _hands(5)
    draws = _draws(hands, 9)
    if visibility is Visibility.CLOSED:
        draws = domain.StartDraws(Seat.A, draws.marks, (frozenset(), frozenset()))
    decision = domain.create(
        None, "r1", setup, players(), hands, draws, T0, 60, 120, draw_pile=pile
    )
    match = domain.fold(decision.events)
    assert match == decision.state
    return match


Hands = tuple[tuple[MatchCard, ...], tuple[MatchCard, ...]]


def _hands(count: int) -> Hands:
    return (
        tuple(realm_card(f"a{i}") for i in range(count)),
        tuple(realm_card(f"b{i}") for i in range(count)),
    )


def _draws(hands: Hands, size: int) -> domain.StartDraws:
    """Seat A first, no marks, both hands open."""
    shown = (frozenset(c.card_id for c in hands[0]), frozenset(c.card_id for c in hands[1]))
    return domain.StartDraws(Seat.A, (None,) * size, shown)


def play(match: domain.Match, cell: int, lair: bool = False) -> domain.Match:
    seat = match.position.to_move
    card_id = match.position.hand(seat)[0].id
    decision = domain.place(match, match.player(seat).player_id, card_id, cell, later(1), lair=lair)
    return after(match, decision)


def test_a_lair_placement_captures_with_plus_one_and_the_state_folds_back() -> None:
    match = play(realm_match(), 0)
    match = play(match, 1, lair=True)  # B's 5+1 against A's 5: basic capture
    last = match.last
    assert last is not None and last.realm is not None
    assert last.realm.lair and [(c.cell, c.cause) for c in last.captures] == [(0, Cause.BASIC)]
    assert [(c.attacker, c.defender, c.attack, c.defence) for c in last.realm.comparisons] == [
        (1, 0, 6, 5)
    ]
    assert match.realm is not None and match.realm.lair_spent == (False, True)
    assert match.position.board.owners[:2] == (Seat.B, Seat.B)
    match = play(match, 2, lair=True)  # A's Lair takes B's card on 1
    assert match.position.board.owners[:3] == (Seat.B, Seat.A, Seat.A)
    assert match.realm is not None and match.realm.lair_spent == (True, True)


def test_a_second_lair_and_a_lair_at_a_table_without_it_are_refused_and_change_nothing() -> None:
    match = play(play(realm_match(), 0), 1, lair=True)
    match = play(match, 2)
    seat = match.position.to_move
    card_id = match.position.hand(seat)[0].id
    with pytest.raises(LairRefused, match="spent"):
        domain.place(match, "p-b", card_id, 3, later(2), lair=True)
    no_lair = realm_match(RealmRules(cursed=True))
    with pytest.raises(LairRefused, match="no Lair"):
        domain.place(no_lair, "p-a", "a0", 0, later(2), lair=True)
    standard = domain.fold(
        domain.create(
            None,
            "s1",
            MatchRules(Mode.CUSTOM, Rules(), Visibility.ALL_OPEN),
            players(),
            (
                tuple(realm_card(f"a{i}") for i in range(5)),
                tuple(realm_card(f"b{i}") for i in range(5)),
            ),
            domain.StartDraws(
                Seat.A,
                (None,) * 9,
                (frozenset({f"a{i}" for i in range(5)}), frozenset({f"b{i}" for i in range(5)})),
            ),
            T0,
            60,
            120,
        ).events
    )
    with pytest.raises(LairRefused, match="no Lair"):
        domain.place(standard, "p-a", "a0", 0, later(2), lair=True)


def _fill(match: domain.Match) -> domain.Match:
    for cell in range(9):
        match = play(match, cell)
    return match


def test_realm_sudden_death_replaces_the_weakest_card_from_the_pile_until_the_tie_breaks() -> None:
    pile = (realm_card("p0", (9, 9, 9, 9)), *tuple(realm_card(f"p{i}") for i in range(1, 10)))
    match = _fill(realm_match(RealmRules(), sudden_death=True, pile=pile))
    assert match.finished is not None and match.finished.scores == (7, 3)
    replaced = [p for p in match.placements if p.realm is not None and p.realm.replaced]
    assert [(p.cell, p.seat, p.card_id, p.realm.replaced) for p in replaced] == [  # type: ignore[union-attr]
        (0, Seat.A, "p0", "a0")
    ]
    assert {c.cell for c in replaced[0].captures} == {1, 3}
    assert match.pile_drawn == 1 and match.position.board.cards[0].id == "p0"  # type: ignore[union-attr]


def test_both_views_show_the_placement_that_tied_and_each_replacement() -> None:
    """Found from outside: after Realm Sudden Death a view showed only the last
    replacement, so neither player saw the move that tied the full board (its captures)
    nor which card had left the game."""
    pile = (realm_card("p0", (9, 9, 9, 9)), *tuple(realm_card(f"p{i}") for i in range(1, 10)))
    match = _fill(realm_match(RealmRules(), sudden_death=True, pile=pile))
    for player in ("p-a", "p-b"):
        view = view_message(match_view(match, player), later(20))
        tying, replaced = view.realm.tying_placement, list(view.realm.replacements)
        assert (tying.turn_number, tying.cell, tying.card.card_id) == (9, 8, "a4")
        assert [(r.cell, r.removed.card_id, r.drawn.card_id, r.seat) for r in replaced] == [
            (0, "a0", "p0", pb.SEAT_A)
        ]
        assert replaced[0].removed.character.name == "Card a0"
        assert view.last_placement.card.card_id == "p0"
    # Before Realm Sudden Death neither is set.
    started = play(realm_match(RealmRules(), sudden_death=True, pile=pile), 4)
    view = view_message(match_view(started, "p-a"), later(2))
    assert not view.realm.HasField("tying_placement") and not view.realm.replacements


def test_every_replacement_is_shown_when_the_pile_runs_out() -> None:
    pile = tuple(realm_card(f"p{i}", (1, 1, 1, 1)) for i in range(10))
    match = _fill(realm_match(RealmRules(), sudden_death=True, pile=pile))
    view = view_message(match_view(match, "p-b"), later(20))
    assert len(view.realm.replacements) == 10 and view.realm.draw_pile_left == 0
    assert view.realm.tying_placement.turn_number == 9


def test_when_the_pile_runs_out_the_draw_stands() -> None:
    pile = tuple(realm_card(f"p{i}", (1, 1, 1, 1)) for i in range(10))
    match = _fill(realm_match(RealmRules(), sudden_death=True, pile=pile))
    assert match.finished is not None and match.finished.winner is None
    assert match.pile_drawn == 10 and match.finished.scores == (5, 5)


def test_the_log_alone_rebuilds_a_realm_match_with_its_replacements() -> None:
    pile = (realm_card("p0", (9, 9, 9, 9)), *tuple(realm_card(f"p{i}") for i in range(1, 10)))
    start = realm_match(EVERYTHING, sudden_death=True, pile=pile)
    events: list[object] = []
    match = start
    for cell in range(9):
        seat = match.position.to_move
        decision = domain.place(
            match, match.player(seat).player_id, match.position.hand(seat)[0].id, cell, later(1)
        )
        events.extend(decision.events)
        match = decision.state
    assert any(isinstance(e, CardPlaced) and e.realm and e.realm.replaced for e in events)
    assert isinstance(events[-1], MatchFinished)
    assert domain.fold(events, start) == match  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rows": 5, "cols": 5}, "3x3 or the 4x4 Great Cloth, not 5x5"),
        ({"rules": Rules(elemental=True)}, "Elemental"),
        ({"sudden_death": True}, "draw pile of 10"),
    ],
)
def test_a_realm_match_with_a_bad_setup_is_refused(change: dict[str, object], message: str) -> None:
    plain = MatchRules(Mode.CUSTOM, Rules(), Visibility.ALL_OPEN, realm=RealmRules())
    setup = replace(plain, **change)  # type: ignore[arg-type]
    size = setup.rows * setup.cols
    count = (size + 1) // 2
    hands = _hands(count)
    with pytest.raises(InvalidArgument, match=message):
        domain.create(None, "x", setup, players(), hands, _draws(hands, size), T0, 60, 120)


def test_an_untyped_card_cannot_sit_at_a_realm_table() -> None:
    setup = MatchRules(Mode.CUSTOM, Rules(), Visibility.ALL_OPEN, realm=RealmRules())
    plain = MatchCard("a0", "chr-x", "X", 1, None, (5, 5, 5, 5), (5, 5, 5, 5))
    typed = _hands(5)
    hands = ((plain, *typed[0][1:]), typed[1])
    with pytest.raises(InvalidArgument, match="creature type"):
        domain.create(None, "x", setup, players(), hands, _draws(hands, 9), T0, 60, 120)


def test_a_realm_view_shows_hexes_spent_powers_and_comparisons_but_no_hidden_card() -> None:
    pile = tuple(realm_card(f"pile{i}", kind=CreatureType.UNDEAD) for i in range(10))
    match = realm_match(EVERYTHING, True, pile, Visibility.CLOSED)
    match = play(play(match, 0), 1, lair=True)
    for player, seat in (("p-a", pb.SEAT_A), ("p-b", pb.SEAT_B)):
        message = view_message(match_view(match, player), later(2))
        realm = message.realm
        assert message.rules.family == pb.RULES_FAMILY_REALM and message.rules.realm.lair
        assert [c.hex for c in realm.cells[:3]] == [pb.HEX_SILENCE, pb.HEX_SILENCE, 0]
        assert [(s.lair_spent, s.resistance_spent) for s in realm.seats] == [
            (False, False),
            (True, False),
        ]
        assert realm.last_move.lair and realm.draw_pile_left == 10
        assert [
            (c.attacker_cell, c.defender_cell, c.attack, c.defence)
            for c in realm.last_move.comparisons
        ] == [(1, 0, 6, 5)]
        assert message.board[0].card.card.character.creature_type == pb.CREATURE_TYPE_FEY
        text = message.SerializeToString()
        assert b"pile" not in text, "the draw pile never reaches a view"
        other = "b" if seat == pb.SEAT_A else "a"
        hidden = [c.id for c in match.position.hand(Seat.B if other == "b" else Seat.A)]
        assert hidden and not any(i.encode() in text for i in hidden)


def _lair_match() -> domain.Match:
    """A's card on 0, then B's Lair on 1 takes it: 5 + 1 (Lair) against 5."""
    return play(play(realm_match(), 0), 1, lair=True)


def test_a_realm_view_shows_which_modifier_decided_each_comparison() -> None:
    """RULES.md 17 (Clash): 'views show it'; and with it every modifier a side took."""
    message = view_message(match_view(_lair_match(), "p-a"), later(2))
    [compared] = message.realm.last_move.comparisons
    assert (compared.attack, compared.defence) == (6, 5)
    assert [(m.kind, m.amount) for m in compared.attack_modifiers] == [
        (pb.REALM_MODIFIER_KIND_LAIR, 1)
    ]
    assert not compared.defence_modifiers


def test_a_placement_stored_before_modifiers_were_recorded_still_reads_and_shows() -> None:
    """An event written before comparisons carried their modifiers decodes with none:
    its view shows the modified values alone, as it always did."""
    match = _lair_match()
    event = match.last
    assert event is not None and event.realm is not None
    cards = {c.card_id: c for seat in match.seats for c in seat.hand}
    stored = codec.encode(event, cards)
    older = ev.CardPlaced.FromString(stored.data)
    for c in older.realm_move.comparisons:
        c.ClearField("attack_modifiers")
        c.ClearField("defence_modifiers")
    back = codec.decode(stored.type, stored.schema_version, older.SerializeToString(), T0, None)
    assert isinstance(back, CardPlaced) and back.realm is not None
    assert [tuple(c) for c in back.realm.comparisons] == [(1, 0, 6, 5, (), ())]
    assert back.realm.comparisons[0].attack_modifiers == ()
    view = mapping_realm.move(back.realm)
    assert [(c.attack, c.defence, len(c.attack_modifiers)) for c in view.comparisons] == [(6, 5, 0)]
