"""Bots at Realm tables (RULES.md 17): every level plays whole matches on 3x3 and the
4x4 Great Cloth with every module on, from its seat's own view (hidden cards and the
draw pile are not in it), declaring Lair when it pays."""

from __future__ import annotations

from random import Random

import pytest

from services.match import bots, domain
from services.match.bots import Budget
from services.match.bots.realm import realm_knowledge
from services.match.domain.events import MatchCard, MatchRules, Mode, SeatPlayer
from services.match.tests.builders import T0, later
from services.match.views import match_view
from services.rules import Rules, Seat, Visibility
from services.rules.realm import CreatureType, RealmRules

EVERY = RealmRules(
    same=True,
    plus=True,
    combo=True,
    type_advantage=True,
    clash=True,
    lair=True,
    resistance=True,
    cursed=True,
)
NODES = Budget(seconds=None, nodes=4_000)
KINDS = tuple(CreatureType)


def _card(rng: Random, card_id: str) -> MatchCard:
    sides = (rng.randint(1, 8), rng.randint(1, 8), rng.randint(1, 8), rng.randint(1, 8))
    stars = rng.randint(1, 5)
    kind = rng.choice(KINDS)
    return MatchCard(card_id, f"chr-{card_id}", card_id, stars, None, sides, sides, kind=kind)


def bot_match(
    size: int, levels: tuple[str, str], visibility: Visibility, seed: int = 1
) -> domain.Match:
    rng = Random(seed)
    count = 5 if size == 3 else 8
    hands = (
        tuple(_card(rng, f"a{i}") for i in range(count)),
        tuple(_card(rng, f"b{i}") for i in range(count)),
    )
    pile = tuple(_card(rng, f"pile{i}") for i in range(10))
    setup = MatchRules(
        Mode.PRACTICE,
        Rules(same=True, plus=True, combo=True),
        visibility,
        size,
        size,
        sudden_death=True,
        realm=EVERY,
    )
    players = (
        SeatPlayer("bot-a", "[BOT] A", True, levels[0]),
        SeatPlayer("bot-b", "[BOT] B", True, levels[1]),
    )
    shown = (
        (frozenset(), frozenset())
        if visibility is Visibility.CLOSED
        else tuple(frozenset(c.card_id for c in h) for h in hands)
    )
    draws = domain.StartDraws(Seat.A, (None,) * (size * size), shown)  # type: ignore[arg-type]
    return domain.create(
        None, "rb", setup, players, hands, draws, T0, 60, 120, draw_pile=pile
    ).state


@pytest.mark.parametrize("size", [3, 4])
@pytest.mark.parametrize(
    "levels", [("novice", "easy"), ("normal", "hard")], ids=["novice-easy", "normal-hard"]
)
def test_every_level_plays_a_realm_match_to_its_end(size: int, levels: tuple[str, str]) -> None:
    match = bot_match(size, levels, Visibility.CLOSED)
    rng = Random(3)
    lairs = 0
    while match.in_progress:
        seat = match.position.to_move
        bot = match.player(seat)
        view = match_view(match, bot.player_id)
        chosen = bots.move(view, rng, NODES)
        assert chosen.card_id in {c.id for c in match.position.hand(seat)}
        lairs += chosen.lair
        match = domain.place(
            match, bot.player_id, chosen.card_id, chosen.cell, later(1), lair=chosen.lair
        ).state
    assert match.finished is not None
    assert lairs <= 2, "Lair once per match per player"


def test_the_knowledge_holds_no_hidden_card_nor_the_draw_pile() -> None:
    match = bot_match(3, ("hard", "hard"), Visibility.CLOSED)
    seat = realm_knowledge(match_view(match, "bot-a"))
    assert seat.opponent_hidden == 5 and seat.opponent_known == ()
    ids = {c.id for c in seat.hand} | {e[0].id for e in seat.board if e is not None}
    assert ids == {f"a{i}" for i in range(5)}


def test_an_easy_bot_declares_lair_when_it_takes_a_card() -> None:
    five = (5, 5, 5, 5)
    fey = CreatureType.FEY

    def card(card_id: str) -> MatchCard:
        return MatchCard(card_id, "chr", card_id, 1, None, five, five, kind=fey)

    hands = (tuple(card(f"a{i}") for i in range(5)), tuple(card(f"b{i}") for i in range(5)))
    setup = MatchRules(Mode.PRACTICE, Rules(), Visibility.ALL_OPEN, realm=RealmRules(lair=True))
    players = (SeatPlayer("p-a", "Ann"), SeatPlayer("bot-b", "[BOT] B", True, "easy"))
    shown = (frozenset(c.card_id for c in hands[0]), frozenset(c.card_id for c in hands[1]))
    match = domain.create(
        None, "lb", setup, players, hands, domain.StartDraws(Seat.A, (None,) * 9, shown),
        T0, 60, 120,
    ).state  # fmt: skip
    match = domain.place(match, "p-a", "a0", 4, later(1)).state
    chosen = bots.move(match_view(match, "bot-b"), Random(1), NODES)
    assert chosen.lair and chosen.cell in (1, 3, 5, 7)


def test_hard_beats_novice_at_realm_tables_more_often_than_not() -> None:
    """A strength check with node budgets (reproducible): hard wins most of a dozen
    games against novice, seats alternating."""
    wins = {"hard": 0, "novice": 0}
    for seed in range(12):
        levels = ("hard", "novice") if seed % 2 else ("novice", "hard")
        match, rng = bot_match(3, levels, Visibility.CLOSED, seed), Random(seed)
        while match.in_progress:
            bot = match.player(match.position.to_move)
            chosen = bots.move(match_view(match, bot.player_id), rng, Budget(None, 3_000))
            match = domain.place(
                match, bot.player_id, chosen.card_id, chosen.cell, later(1), lair=chosen.lair
            ).state
        assert match.finished is not None
        if match.finished.winner is not None:
            wins[levels[match.finished.winner]] += 1
    assert wins["hard"] > 2 * wins["novice"], wins
