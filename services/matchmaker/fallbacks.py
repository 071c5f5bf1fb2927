"""In-repo stand-ins for the collection and rating services, used while their
addresses (TRIAD_COLLECTION_ADDR, TRIAD_RATING_ADDR) are not configured.

They keep the matchmaker honest about what it does not know: every player rates 1500
(RULES.md 10's starting rating), nobody owes a trade or a draft, and a player's deck is
a legal stand-in drawn deterministically from the built-in characters (the same deck
id always gives the same cards). Nothing is locked, so nothing needs releasing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from random import Random

from services.matchmaker import bots
from services.matchmaker.domain import UNRATED, Card, DeckChoice


class StarterDecks:
    async def resolve(
        self, player_id: str, choice: DeckChoice, purpose_id: str, lock: bool
    ) -> tuple[Card, ...]:
        # Random draws per purpose (a new deck each match); a saved deck is stable.
        seed = f"{player_id}:{choice.deck_id or 'random:' + purpose_id}"
        return bots.draw_deck(Random(seed), f"starter-{player_id}", "owned_copy")

    async def release(self, match_id: str) -> None:
        return None

    async def check(self, player_id: str, choice: DeckChoice) -> None:
        return None  # every stand-in deck is legal


class FixedRatings:
    async def ratings(self, ladder: str, player_ids: Sequence[str]) -> dict[str, int]:
        return dict.fromkeys(player_ids, UNRATED)


class NoObligations:
    async def blocking(self, player_id: str, current_match_id: str = "") -> str | None:
        return None


class LocalBotDecks:
    async def draw(self, request_id: str) -> tuple[Card, ...]:
        # Seeded by the request id: a retry draws the same deck, as DrawBotDeck promises.
        tag = hashlib.sha256(request_id.encode()).hexdigest()[:12]
        return bots.draw_deck(Random(request_id), f"bot-{tag}", "bot")
