"""Per-player protobuf views of the collection's values and read models, for the edge.

A player's view of a draft never holds the opponent's cards, nor their own unrevealed
ones (only a ``HiddenCard`` placeholder, which carries nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from triad.v1 import common_pb2 as pb

from services.collection.domain import boosters
from services.collection.domain.catalog import Character
from services.collection.domain.draft import slot_odds as draft_slot_odds
from services.collection.domain.draft_session import Draft, Status
from services.collection.domain.events import OwnedCopy
from services.collection.domain.seeds import ActiveSeed
from services.collection.domain.trade import Trade
from services.collection.mapping import draft_card, holder, ladder, owned_copy
from services.collection.results import (
    Balance,
    CopyLock,
    DeckRecord,
    Obligation,
    ObligationKind,
    SeedRecord,
)
from services.rules import DeckRule, Violation
from services.rules.deck import DECK_SIZE
from services.wire import TRADE_RULES, timestamp

DECK_RULES: dict[DeckRule, pb.DeckRule.ValueType] = {
    DeckRule.SIZE: pb.DECK_RULE_FIVE_CARDS,
    DeckRule.DISTINCT_COPIES: pb.DECK_RULE_DISTINCT_COPIES,
    DeckRule.DISTINCT_CHARACTERS: pb.DECK_RULE_DISTINCT_CHARACTERS,
    DeckRule.STARS: pb.DECK_RULE_UNSPECIFIED,
    DeckRule.FIVE_STAR_LIMIT: pb.DECK_RULE_MAX_ONE_FIVE_STAR,
    DeckRule.FOUR_AND_FIVE_STAR_LIMIT: pb.DECK_RULE_MAX_TWO_FOUR_STAR_OR_MORE,
    DeckRule.NOT_OWNED: pb.DECK_RULE_OWNED,
    DeckRule.LOCKED: pb.DECK_RULE_NOT_LOCKED,
}
OBLIGATION_KINDS = {
    ObligationKind.PENDING_TRADE: pb.OBLIGATION_KIND_PENDING_TRADE,
    ObligationKind.OPEN_DRAFT: pb.OBLIGATION_KIND_OPEN_DRAFT,
}
DRAFT_STATUS = {
    Status.PICKING: pb.DRAFT_STATUS_PICKING,
    Status.COMPLETED: pb.DRAFT_STATUS_COMPLETED,
    Status.FORFEITED: pb.DRAFT_STATUS_FORFEITED,
}


def violations(found: Sequence[Violation]) -> list[pb.DeckViolation]:
    return [
        pb.DeckViolation(rule=DECK_RULES[v.rule], card_ids=v.copy_ids, message=v.message)
        for v in found
    ]


def balance(value: Balance) -> pb.Balance:
    return pb.Balance(coins=value.coins, update_time=timestamp(value.at))


def entry(copy: OwnedCopy, lock: CopyLock | None) -> pb.CollectionEntry:
    if lock is None:
        return pb.CollectionEntry(copy=owned_copy(copy))
    return pb.CollectionEntry(
        copy=owned_copy(copy),
        lock=pb.CopyLock(holder=holder(lock.holder), lock_time=timestamp(lock.locked_at)),
    )


def deck(
    record: DeckRecord, copies: Mapping[str, OwnedCopy], broken: Sequence[Violation]
) -> pb.Deck:
    return pb.Deck(
        deck_id=record.deck_id,
        name=record.name,
        copy_ids=record.copy_ids,
        copies=[owned_copy(copies[i]) for i in record.copy_ids if i in copies],
        violations=violations(broken),
        create_time=timestamp(record.created_at),
        update_time=timestamp(record.updated_at),
    )


def commitment(seed: ActiveSeed | SeedRecord) -> pb.SeedCommitment:
    """What a player sees of a seed before it is revealed: its hash, never the seed."""
    return pb.SeedCommitment(
        seed_id=seed.seed_id,
        server_seed_hash=seed.seed_hash,
        client_seed=seed.client_seed,
        next_counter=seed.draw_count,
        commit_time=timestamp(seed.committed_at),
    )


def server_seed(seed: SeedRecord) -> pb.ServerSeed:
    return pb.ServerSeed(
        seed_id=seed.seed_id,
        server_seed_hash=seed.seed_hash,
        server_seed=seed.server_seed,
        commit_time=timestamp(seed.committed_at),
        reveal_time=timestamp(seed.revealed_at),
        draw_count=seed.draw_count,
    )


def obligation(value: Obligation) -> pb.Obligation:
    return pb.Obligation(kind=OBLIGATION_KINDS[value.kind], id=value.id, message=value.message)


def slot_odds(index: int, weights: Sequence[tuple[int, int]]) -> pb.BoosterSlotOdds:
    """One slot's chance of each star rank, from each rank's weight."""
    total = sum(w for _, w in weights)
    return pb.BoosterSlotOdds(
        slot_index=index,
        star_odds=[pb.StarOdds(stars=s, weight=w, probability=w / total) for s, w in weights],
    )


def draft_odds(catalog: Sequence[Character]) -> list[pb.BoosterSlotOdds]:
    """A Draft booster's slots (RULES.md 8): each rank's share of the characters allowed."""
    return [slot_odds(i, weights) for i, weights in enumerate(draft_slot_odds(catalog))]


def odds() -> pb.BoosterOdds:
    slots = [slot_odds(index, slot.weights) for index, slot in enumerate(boosters.SLOTS)]
    return pb.BoosterOdds(
        price_coins=boosters.BOOSTER_PRICE,
        cards_per_booster=boosters.CARDS_PER_BOOSTER,
        slots=slots,
        holo_probability=boosters.HOLO_PER_10000 / 10_000,
        pity=pb.PityRule(
            booster_count=boosters.PITY.booster_count,
            min_stars=boosters.PITY.min_stars,
            description=boosters.PITY.description,
        ),
        algorithm=boosters.ALGORITHM,
    )


def trade(state: Trade, player_id: str) -> pb.Trade:
    if state.completed:
        status = pb.TRADE_STATUS_COMPLETED
    elif state.chosen:
        status = pb.TRADE_STATUS_CHOSEN
    else:
        status = pb.TRADE_STATUS_AWAITING_CHOICE
    winner = player_id == state.winner.player_id
    return pb.Trade(
        trade_id=state.trade_id,
        match_id=state.match_id,
        status=status,
        my_role=pb.TRADE_ROLE_CHOOSER if winner else pb.TRADE_ROLE_GIVER,
        winner_name=state.winner.name,
        loser_name=state.loser.name,
        offered_copies=[owned_copy(c) for c in state.offered],
        choice_deadline_time=timestamp(state.deadline),
        chosen_copy_id=state.chosen[0] if state.chosen else "",
        auto_picked=state.auto_picked,
        open_time=timestamp(state.opened_at),
        complete_time=timestamp(state.completed_at),
        trade_rule=TRADE_RULES[state.rule],
        take_count=state.count,
        chosen_copy_ids=state.chosen,
    )


def draft(state: Draft, player_id: str) -> pb.DraftView:
    """The draft as one participant may see it: their own revealed cards only."""
    me = state.seat_index(player_id)
    seat = state.seats[me]
    other = state.seats[1 - me]
    boosters_view = []
    for b in range(len(seat.pool) // 5):
        slots = []
        for s in range(5):
            card = seat.pool[b * 5 + s]
            slot = pb.DraftSlot(card_index=s, picked=card.id in seat.picks)
            if card.id in seat.revealed:
                slot.revealed.CopyFrom(draft_card(card))
            else:
                slot.hidden.SetInParent()
            slots.append(slot)
        boosters_view.append(pb.DraftBooster(booster_index=b, slots=slots))
    return pb.DraftView(
        draft_id=state.draft_id,
        status=DRAFT_STATUS[state.status],
        ladder=ladder(state.ladder, state.season),
        boosters=boosters_view,
        picked_card_ids=seat.picks,
        picks_required=DECK_SIZE,
        pick_deadline_time=timestamp(state.pick_deadline),
        # Only while the player has picks to make: a complete deck cannot be forfeited.
        inactivity_deadline_time=(
            timestamp(seat.inactive_at)
            if state.status is Status.PICKING and not seat.done
            else None
        ),
        opponent_name=other.player.name,
        opponent_pick_count=len(other.picks),
        match_id=state.match_id,
        version=state.version,
        forfeiting_player_names=[
            s.player.name for s in state.seats if s.player.player_id in state.forfeiting
        ],
        winner_player_name=next(
            (s.player.name for s in state.seats if s.player.player_id == state.winner), ""
        ),
    )
