"""What a player may see: a draft view never carries the opponent's cards, nor the
player's own cards before they are revealed; a trade shows each party its role."""

from __future__ import annotations

from datetime import timedelta
from random import Random

from triad.v1 import common_pb2 as pb

from services.collection import presenter
from services.collection.domain import draft_session as session
from services.collection.domain import trade
from services.collection.domain.draft import draw_pool, legal_completions
from services.collection.domain.events import PlayerRef
from services.collection.tests.builders import CATALOG, T0, legal_copies

ANN = PlayerRef("ann", "Ann")
BEA = PlayerRef("bea", "Bea")


def test_a_draft_view_holds_only_the_players_revealed_cards() -> None:
    rng = Random(2)
    pools = (draw_pool(list(CATALOG), rng), draw_pool(list(CATALOG), rng))
    state = session.create(None, "d1", "draft", 0, "p", (ANN, BEA), pools, T0).state
    now = T0 + timedelta(seconds=3)
    state = session.reveal(state, "d1", "ann", 1, [0, 4], now).state
    view = presenter.draft(state, "ann")
    raw = view.SerializeToString()
    mine = state.seats[0].pool
    for card in state.seats[1].pool:
        assert card.id.encode() not in raw
    shown = [s for b in view.boosters for s in b.slots if s.WhichOneof("card") == "revealed"]
    assert [s.revealed.card_id for s in shown] == [mine[5].id, mine[9].id]
    for card in mine:
        if card.id not in state.seats[0].revealed:
            assert card.id.encode() not in raw
    hidden = [s for b in view.boosters for s in b.slots if s.WhichOneof("card") == "hidden"]
    assert len(hidden) == 13 and all(s.hidden.ByteSize() == 0 for s in hidden)
    assert view.opponent_name == "Bea" and view.opponent_pick_count == 0


def test_a_trade_shows_the_winner_as_chooser_and_the_loser_as_giver() -> None:
    opened = trade.open_trade("m1", ANN, BEA, legal_copies(owner="bea"), T0)
    state = trade.evolve(None, opened, T0)
    assert presenter.trade(state, "ann").my_role == pb.TRADE_ROLE_CHOOSER
    as_loser = presenter.trade(state, "bea")
    assert as_loser.my_role == pb.TRADE_ROLE_GIVER
    assert as_loser.status == pb.TRADE_STATUS_AWAITING_CHOICE and len(as_loser.offered_copies) == 5


def test_the_published_odds_are_the_weights_the_draw_uses() -> None:
    odds = presenter.odds()
    assert odds.algorithm == "hmac-sha256-v1" and odds.holo_probability == 0.05
    assert [round(sum(s.probability for s in slot.star_odds), 9) for slot in odds.slots] == [1] * 5
    assert odds.pity.booster_count == 10 and odds.pity.min_stars == 4


def test_a_player_whose_deck_is_picked_is_shown_no_forfeit_deadline() -> None:
    """Found from outside: a player who had picked their five kept being shown an
    inactivity deadline, then one in the past, though nothing is left for them to do
    and they never forfeit; the opponent still picking keeps theirs."""
    rng = Random(3)
    pools = (draw_pool(list(CATALOG), rng), draw_pool(list(CATALOG), rng))
    state = session.create(None, "d1", "draft", 0, "p", (ANN, BEA), pools, T0).state
    now = T0 + timedelta(seconds=1)
    for booster in range(3):  # every card revealed first, as a player does
        state = session.reveal(state, "d1", "ann", booster, [], now).state
    for card in legal_completions((), state.seats[0].pool)[0]:
        state = session.pick(state, "d1", "ann", card.id, now).state
    assert state.seats[0].done and state.status is session.Status.PICKING
    assert not presenter.draft(state, "ann").HasField("inactivity_deadline_time")
    assert presenter.draft(state, "bea").HasField("inactivity_deadline_time")
    assert presenter.draft(state, "ann").HasField("pick_deadline_time")  # the draft's own end
