"""The player's own plan on the Skirmish screen (BATTLE.md 6: a player sees their own
plan), and when each of their characters acts with it: BATTLE.md 4.3's Decision, a
character's group is that of its first set card this turn, its cards resolving in the
order set (found from outside: a swift card then a slow one for one character acted in
the swift group, and nothing on the screen said so)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from triad.v1 import common_pb2 as pb

from client.battle_names import card_words, team_labels

WIDTH = 79
GROUPS = ("swift", "normal", "slow")
"""The speed groups in the order they act (BATTLE.md 1: swift acts first, slow last)."""


def aim(target: pb.BattleTarget) -> str:
    """A target as the player types it: " 1 2", " row 1", " col 0" or nothing."""
    if target.HasField("row") and target.HasField("col"):
        return f" {target.row} {target.col}"
    if target.HasField("row"):
        return f" row {target.row}"
    return f" col {target.col}" if target.HasField("col") else ""


def plan_lines(view: pb.BattleView) -> list[str]:
    """The plan as typed, the one committed, else one set and not committed (it acts at
    the deadline), then when each character acts (``acting``). Found from outside: once
    committed, the screen said "ready" and no more."""
    plan, said = (view.plan, "Your plan") if view.plan else (view.set_actions, "Your plan set")
    if not plan:
        return []
    names = {card.id: card.name for card in view.you.hand}
    parts = [f"{names.get(a.card) or card_words(a.card)}{aim(a.target)}" for a in plan]
    lines = textwrap.wrap(f"{said}: {'; '.join(parts)}", WIDTH, subsequent_indent="    ")
    if (acts := acting(view, plan)) is not None:
        lines += textwrap.wrap(acts, WIDTH, subsequent_indent="    ")
    return lines


def acting(view: pb.BattleView, plan: Sequence[pb.BattleAction]) -> str | None:
    """Each character of the plan with the group it acts in, the groups in the order
    they act (within one, faster first, as BATTLE.md 4.3 orders them), its cards in the
    order set; a card of another group than its character's first says so. None when
    the hand no longer holds the plan's cards (their groups unknown)."""
    cards = {card.id: card for card in view.you.hand}
    if any(a.card not in cards for a in plan):
        return None
    labels = team_labels(view.you)
    units = {
        u.ref: (u.spd, order, labels.get(u.uid, u.ref)) for order, u in enumerate(view.you.units)
    }
    played: dict[str, list[pb.BattleCard]] = {}
    for action in plan:
        played.setdefault(action.character, []).append(cards[action.card])

    def order(character: str) -> tuple[int, int, int]:
        spd, placed, _ = units.get(character, (0, 0, ""))
        first = played[character][0].group
        return (GROUPS.index(first) if first in GROUPS else 1, -spd, placed)

    said, moved = [], False
    for character in sorted(played, key=order):
        group = played[character][0].group
        named = []
        for card in played[character]:
            other = card.group != group
            moved |= other
            named.append(f"{card.name} (a {card.group} card)" if other else card.name)
        who = units[character][2] if character in units else character
        said.append(f"{who} {group}: {', '.join(named)}")
    why = ". A character acts in the group of its first card" if moved else ""
    return f"Acts: {'; '.join(said)}{why}."
