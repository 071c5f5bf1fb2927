"""What an outside review of the Skirmish screens found, in a real browser
(web/e2e/battle_review.mjs): when each planned card acts (BATTLE.md 4.3's Decision: a
character's group is that of its first card set), the hand during the formation, a
summon's target and a Special's star in words, why a card cannot be played, Give up
within reach at a desk, readable field labels, and the end in the terminal's words. The
whole backend runs as processes; the helpers (and what is skipped where Chromium or npm
are missing) are tests/e2e/test_browser.py's.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from devtools.processes import ROOT
from devtools.stack import Stack
from tests.e2e.test_browser import RESULTS, backend, play

__all__ = ["backend"]  # the module's fixture: the whole backend, the client built

WHEN = {
    "swift": "acts first (swift)",
    "normal": "acts in the middle (normal)",
    "slow": "acts last (slow)",
}
NAMES = {"bastion": "Tor Bastion", "hollis": "Hollis Grave", "moss": "Moss Warden"}
CTS = {
    card["id"]: card["ct"]
    for character in json.loads((ROOT / "services/battle/data/roster.json").read_text())[
        "characters"
    ]
    for card in character["cards"]
}
"""Each card's CT in the battle's content (BATTLE.md 1)."""


def test_a_plan_says_when_each_card_acts_and_the_hand_says_what_it_cannot_play(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "planned", tmp_path / "browser-battle-planned.png")
    # The first turn with its plan set, beside the last screen in bench/results/.
    shutil.copyfile(
        tmp_path / "browser-battle-planned-turn.png", RESULTS / "browser-battle-planned-turn.png"
    )
    assert played["started"] == "0", played
    # The hand is shown while the formation is set (the view carries it), to plan by.
    hand = played["formationHand"]
    assert len(hand) == 5 and all(card["owner"] in NAMES for card in hand), hand
    # Every card says its CT (found from outside: only once it was cooling).
    for card in hand:
        ct = CTS[card["id"].split(":")[0]]
        assert (f"CT {ct}" in card["text"]) == bool(ct) and "CT 0" not in card["text"], card
    # A character's swift card set before its slow one: both act in the swift group
    # (BATTLE.md 4.3, Decision), and the plan list says so in the player's words.
    mixed = played["mixed"]
    assert mixed, played
    first, second = mixed["first"], mixed["second"]
    who = NAMES[first["owner"]]
    assert len(mixed["plan"]) == 2, mixed
    assert f"{who} {WHEN[first['group']]}" in mixed["plan"][0], mixed
    later = mixed["plan"][1]
    assert f"a {second['group']} card: {WHEN[first['group']]}, with {who}'s first card" in later, (
        mixed
    )
    assert WHEN[second["group"]] not in later, mixed
    # A card too dear for the Energy left says so, on the card and in its title.
    dear = played["dear"]
    assert dear and not dear["usable"], played
    why = f"needs {dear['cost']} Energy, {dear['left']} left"
    assert why in dear["text"] and why in dear["title"], dear
    # A summon aims at a square of the player's own field (BATTLE.md 1), not "square".
    summons = played["seen"]["summons"]
    assert summons and all("a square of your field" in who for who in summons), summons
    assert not any(re.search(r"· square ·", who) for who in summons), summons
    # The star is explained: a legend under the hand, and each star's title and label.
    legend = played["seen"]["legend"]
    assert "★ Special" in legend and "first card" in legend, legend
    for star in played["seen"]["specials"]:
        assert star["title"].startswith("Special") and star["label"].startswith("Special"), star
    # Given up: lost, said so, and the battle "finished" as the terminal says it.
    ended = played["ended"]
    assert ended and ended["result"] == "You gave up: you lost.", ended
    assert ended["status"].endswith("· finished"), ended


def test_give_up_stays_within_reach_at_a_desk_and_the_field_labels_read(
    backend: Stack, tmp_path: Path
) -> None:
    played = play(backend, "deskGiveUp", tmp_path / "browser-battle-desk.png")
    assert played["started"] == "0", played
    # Found from outside: the labels over the fields were 11 px, grey on beige.
    labels = played["labels"]
    assert len(labels) == 2 and all(label["size"] >= 13 for label in labels), labels
    # Found from outside: Give up (and its confirmation) moved down with the last turn's
    # log, below the fold of an 800 px window; now they stand where the page opens.
    seen = played["seen"]
    assert len(seen) >= 2 and any(s["log"] for s in seen), seen
    for s in seen:
        assert s["giveUp"] and s["giveUp"]["bottom"] <= s["giveUp"]["height"], seen
        # Found from outside: under a plan of three, Commit stood below a 720 px window.
        assert s["commit"] and s["commit"]["bottom"] <= s["commit"]["height"], seen
    assert any(s["plan"] >= 2 for s in seen), seen
    confirm = played["confirm"]
    assert confirm, played
    for button in confirm.values():
        assert button and button["bottom"] <= button["height"], confirm
