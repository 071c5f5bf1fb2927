"""Bot seats' decisions, from the bot's own redacted view only (RULES.md 3: bots obey
the same view). This is the novice level, a random legal placement; the stronger
levels plug in here (issue 8)."""

from __future__ import annotations

from random import Random

from services.match.views import MatchView


def choose(view: MatchView, rng: Random) -> tuple[str, int]:
    """(card_id, cell) for the bot whose view this is. The view holds no hidden card."""
    empty = [cell.index for cell in view.board if cell.card is None and not cell.blocked]
    card = rng.choice(view.hand)
    return card.card_id, rng.choice(empty)
