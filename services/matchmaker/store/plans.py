"""The JSON form of a start plan, kept in ``match_starts.plan`` so that any replica
can finish a start another one began."""

from __future__ import annotations

import json
from typing import Any

from services.matchmaker import domain


def _deck_json(value: domain.DeckChoice | None) -> dict[str, Any] | None:
    return None if value is None else {"deck_id": value.deck_id, "random": value.random}


def _card_json(value: domain.Card) -> dict[str, Any]:
    return {
        "card_id": value.card_id,
        "origin": value.origin,
        "character_id": value.character_id,
        "name": value.name,
        "stars": value.stars,
        "element": value.element,
        "sides": list(value.sides),
        "printed": list(value.printed),
        "holo": value.holo,
        "holo_side": value.holo_side,
        "kind": value.kind,
        "alignment": value.alignment,
    }


def _card_from(data: dict[str, Any]) -> domain.Card:
    return domain.Card(**{**data, "sides": tuple(data["sides"]), "printed": tuple(data["printed"])})


def plan_json(plan: domain.StartPlan) -> str:
    """The plan as stored in ``match_starts.plan`` (any replica may finish the start)."""
    seats = [
        {
            "player_id": s.player_id,
            "name": s.name,
            "bot_level": s.bot_level.value if s.bot_level else None,
            "deck": _deck_json(s.deck),
            "ticket_id": s.ticket_id,
            "rating": s.rating,
            "waited": s.waited,
            "cards": [_card_json(c) for c in s.cards],
            "characters": list(s.characters),
            "battle_level": s.battle_level.value if s.battle_level else None,
        }
        for s in plan.seats
    ]
    r = plan.rules
    return json.dumps(
        {
            "start_id": plan.start_id,
            "kind": plan.kind.value,
            "mode": plan.mode.value,
            "rules": [r.visibility.value, r.same, r.plus, r.combo, r.elemental, r.same_wall,
                      r.trade.value, r.sudden_death, r.board, r.blocked, r.house_hands,
                      None if r.realm is None else r.realm.text],
            "seats": seats,
            "match_id": plan.match_id,
            "draft_id": plan.draft_id,
            "origin_mode": plan.origin_mode.value if plan.origin_mode else None,
            "ladder": plan.ladder,
            "origin_id": plan.origin_id,
            "table_id": plan.table_id,
        },
        separators=(",", ":"),
    )  # fmt: skip


def plan_from(text: str) -> domain.StartPlan:
    data = json.loads(text)
    visibility, *flags = data["rules"]
    if len(flags) > 5 and isinstance(flags[5], bool):  # written before trade rules
        flags[5] = domain.TradeRule.ONE if flags[5] else domain.TradeRule.NONE
    elif len(flags) > 5:
        flags[5] = domain.TradeRule(flags[5])
    if len(flags) > 10:  # Realm modules (issue 20); None for the standard family
        flags[10] = None if flags[10] is None else domain.RealmModules.parse(flags[10])
    seats = tuple(
        domain.Seat(
            player_id=s["player_id"],
            name=s["name"],
            bot_level=domain.BotLevel(s["bot_level"]) if s["bot_level"] else None,
            deck=domain.DeckChoice(**s["deck"]) if s["deck"] else None,
            ticket_id=s["ticket_id"],
            rating=s["rating"],
            waited=s["waited"],
            cards=tuple(_card_from(c) for c in s["cards"]),
            characters=tuple(s.get("characters", ())),  # plans older than practice battles
            battle_level=domain.BattleLevel(s["battle_level"]) if s.get("battle_level") else None,
        )
        for s in data["seats"]
    )
    return domain.StartPlan(
        start_id=data["start_id"],
        kind=domain.StartKind(data["kind"]),
        mode=domain.Mode(data["mode"]),
        rules=domain.RuleSet(domain.Visibility(visibility), *flags),
        seats=(seats[0], seats[1]),
        match_id=data["match_id"],
        draft_id=data["draft_id"],
        origin_mode=domain.Mode(data["origin_mode"]) if data["origin_mode"] else None,
        ladder=data["ladder"],
        origin_id=data["origin_id"],
        table_id=data["table_id"],
    )
