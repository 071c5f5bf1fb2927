"""Bot identities and the small built-in card list the matchmaker falls back on.

The catalog belongs to the collection service (DrawBotDeck). Until its address is
configured, bots and stand-in player decks are drawn from the 24 characters below, so
the matchmaker runs and is testable on its own. Their sides follow a budget per star
rank (sum of the four sides: 1★ 13-15, 2★ 17-19, 3★ 21-23, 4★ 25-26, 5★ 28-29).
"""

from __future__ import annotations

from random import Random

from services.matchmaker.domain import BOT_LABEL, Card, legal_deck

# (id, name, stars, element, (top, right, bottom, left))
CHARACTERS: tuple[tuple[str, str, int, str, tuple[int, int, int, int]], ...] = (
    ("mm-01", "Moss Sprite", 1, "earth", (4, 3, 2, 5)),
    ("mm-02", "Tide Minnow", 1, "water", (2, 5, 4, 3)),
    ("mm-03", "Ember Newt", 1, "fire", (5, 2, 3, 4)),
    ("mm-04", "Frost Moth", 1, "ice", (3, 4, 5, 2)),
    ("mm-05", "Dust Hare", 1, "", (4, 4, 3, 3)),
    ("mm-06", "Reed Piper", 1, "wind", (3, 5, 3, 3)),
    ("mm-07", "Gloom Toad", 2, "poison", (5, 4, 5, 3)),
    ("mm-08", "Spark Finch", 2, "thunder", (3, 6, 4, 5)),
    ("mm-09", "Lantern Monk", 2, "holy", (6, 3, 5, 4)),
    ("mm-10", "Drift Heron", 2, "wind", (4, 5, 6, 3)),
    ("mm-11", "Clay Sentry", 2, "earth", (5, 5, 4, 4)),
    ("mm-12", "Brine Crab", 2, "water", (6, 4, 3, 6)),
    ("mm-13", "Cinder Lynx", 3, "fire", (7, 5, 4, 6)),
    ("mm-14", "Hail Warden", 3, "ice", (5, 7, 6, 4)),
    ("mm-15", "Storm Kestrel", 3, "thunder", (6, 4, 7, 5)),
    ("mm-16", "Thorn Witch", 3, "poison", (4, 6, 5, 7)),
    ("mm-17", "Vale Knight", 3, "", (6, 6, 5, 5)),
    ("mm-18", "Coral Oracle", 3, "water", (7, 4, 6, 5)),
    ("mm-19", "Gale Duelist", 4, "wind", (8, 6, 7, 4)),
    ("mm-20", "Basalt Golem", 4, "earth", (5, 8, 4, 8)),
    ("mm-21", "Dawn Paladin", 4, "holy", (7, 7, 6, 6)),
    ("mm-22", "Venom Regent", 4, "poison", (4, 7, 8, 7)),
    ("mm-23", "Aurora Wyrm", 5, "ice", (9, 6, 8, 6)),
    ("mm-24", "Sunforge Titan", 5, "fire", (6, 9, 6, 8)),
)

BOT_NAMES = (
    "Ashen Wren", "Brass Otter", "Cobalt Fox", "Dune Strider", "Echo Lark", "Fable Crow",
    "Glint Badger", "Hollow Stag", "Iris Vale", "Juniper Kite", "Kettle Drake", "Lumen Pike",
    "Marrow Jay", "Nimbus Cat", "Opal Heron", "Pepper Wolf", "Quill Sparrow", "Rust Marten",
    "Saffron Owl", "Tinder Hawk",
)  # fmt: skip


def bot_name(index: int) -> str:
    """The labelled display name of bot number ``index`` (drawn by the handler)."""
    return BOT_LABEL + BOT_NAMES[index % len(BOT_NAMES)]


def draw_deck(rng: Random, id_prefix: str, origin: str) -> tuple[Card, ...]:
    """A legal five-card deck (RULES.md 2) from the built-in characters.

    Shuffles the characters and keeps each one that still fits the star limits, so
    every legal combination can come out and the draw never fails.
    """
    order = list(CHARACTERS)
    rng.shuffle(order)
    chosen: list[tuple[str, str, int, str, tuple[int, int, int, int]]] = []
    for entry in order:
        stars = [c[2] for c in chosen] + [entry[2]]
        fives, fours = stars.count(5), stars.count(4)
        if fives <= 1 and fives + fours <= 2:
            chosen.append(entry)
        if len(chosen) == 5:
            break
    deck = tuple(
        Card(
            card_id=f"{id_prefix}-{index}-{character_id}",
            origin=origin,
            character_id=character_id,
            name=name,
            stars=stars,
            element=element,
            sides=sides,
            printed=sides,
        )
        for index, (character_id, name, stars, element, sides) in enumerate(chosen)
    )
    assert legal_deck([c.stars for c in deck], [c.character_id for c in deck])
    return deck
