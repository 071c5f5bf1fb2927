"""Realm Triad (RULES.md section 17): the second rules family, beside the standard one.

It shares the standard engine's geometry (:class:`Geometry`, boards of any size with
blocked cells) and board (:class:`Board`: a :class:`RealmCard` is a :class:`Card`), and
its causes (:class:`Cause`); it resolves placements with its own rules, one small
function per rule in :mod:`.resolve`. The per-match state the modules need (Ward and
Ember spent, pending Rot, Resistance and Lair spent) is a :class:`RealmState` passed in
and handed back, never kept here.

Interpretations (where section 17 leaves room, this is what the engine does):

- *Modules off do nothing*: a Lair declared while the Lair module is off, pending Rot or
  ``hex_spent`` while Cursed is off, spent Resistance while Resistance is off are
  ignored (and left as they were), as the rulebook says of every modifier ("each only
  when its module is on").
- *Stacking*: every modifier that applies adds up, unclamped (a Dragon's top with
  Lair and Ember against a Giant reads printed + 3); Alignment Clash comes last.
  A Construct's bottom gains its +1 whenever it defends, whatever the attacker.
- *Combo queue*: the cards captured in steps 1-2 start it together in ascending cell
  order (special and basic merged), then the chain's captures in the order taken.
- *Bind* replaces the defending side's printed value by 0; the other modifiers (Rot)
  still apply to it, so a Bound side may read below 0. Bind never touches attacks.
- *Alignment Clash* adds +1 once to the higher value when either word clashes (both
  clashing is still +1). It changes no capture; :class:`Comparison` records show it, with
  every other modifier each side took (:class:`Modifier`).
- *Ember* counts a comparison as taken part in whether or not it captures, and the +1
  holds for every comparison of that placement (attacking and defending); a card
  captured by Same or Plus takes part only if it then attacks in Combo. The placed
  card's own Ember is used only if it attacks in basic (it never defends).
- *Rot*: pending Rot is read as it stood when the placement began; every card it bit
  is cleared when the placement ends, and only then does a placed Rot card mark the
  neighbours that are enemy at that moment (so a card whose Rot was just used can be
  marked again at once). Pending Rot stays with the card when it changes owner.
- *Ward* spends on the first capture attempt of any cause (Same, Plus, basic, Combo);
  *Resistance* belongs to the owner of the card being captured.
- *Lair* is refused (:class:`LairSpent`) when the player's Lair is already spent; the
  state records it spent after the placement that declares it.
- *Same Wall and Elemental* are not Realm modules: a Realm vector may name them, true
  or false, and they do nothing; its ``cells`` marks are checked as in any vector
  (a malformed one is an error) and do nothing either.
- *Realm Sudden Death*: :meth:`RealmBoard.replace_weakest` removes the card with the
  lowest printed total (ties: lowest cell), clears that cell's hex and Rot state, and
  places the drawn card for the removed card's owner without Lair; the match decides
  when to repeat and when the pile is empty.
"""

from services.rules.realm.board import RealmBoard, weakest_cell
from services.rules.realm.cards import (
    HEX_OF_TYPE,
    NEUTRAL,
    Alignment,
    CreatureType,
    Hex,
    Law,
    Moral,
    RealmCard,
    alignment_words,
    parse_alignment,
)
from services.rules.realm.outcome import (
    Comparison,
    LairSpent,
    Modifier,
    ModifierKind,
    Protection,
    RealmPlacement,
    RealmRules,
    RealmState,
    Saved,
)
from services.rules.realm.resolve import resolve

__all__ = [
    "HEX_OF_TYPE",
    "NEUTRAL",
    "Alignment",
    "Comparison",
    "CreatureType",
    "Hex",
    "LairSpent",
    "Law",
    "Modifier",
    "ModifierKind",
    "Moral",
    "Protection",
    "RealmBoard",
    "RealmCard",
    "RealmPlacement",
    "RealmRules",
    "RealmState",
    "Saved",
    "alignment_words",
    "parse_alignment",
    "resolve",
    "weakest_cell",
]
