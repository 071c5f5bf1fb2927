"""The search's placement resolver (RULES.md 4) over the mutable flat lists of
:mod:`negamax`: which cells a placement flips, in the rulebook's order (the special set
of Same, Same Wall and Plus, judged before any owner changes, then basic captures, then
the Combo chain from the special set). :func:`resolve.resolve` is the reference, which
also says why each card changes owner; the tests check this one against it.

This is the innermost loop of the search, hence its shape: ``near`` reads the neighbours
of a cell once for every card tried there and says when nothing there can flip (no
enemy card touches it, the case of most cells); ``capture`` then judges one card, with
the cheap cases first (one neighbour; Same and Plus ruled out without building
anything) and the special set worked out in full only when it may apply.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from services.rules.cards import Sides
from services.rules.geometry import Contact
from services.rules.resolve import Rules, combo_chain

Near = list[tuple[int, int, int]]
"""The neighbours of an empty cell that matter: (cell, the side of a card placed here
that faces it, its facing value)."""

NO_FLIPS: list[int] = []
"""Shared by every placement that flips nothing: never mutated."""


class Flips(NamedTuple):
    near: Callable[[int, int], Near | None]
    """``near(c, q)``: the neighbours of the empty cell ``c`` that a placement there is
    judged against, or None when it cannot flip anything (no card of ``q`` touches it)."""
    capture: Callable[[Near, Sides, int, int], list[int]]
    """``capture(near(c, 1 - p), sides, aces, p)``: place a card with adjusted ``sides``
    and ``aces`` aces facing a wall (counted by Same Wall) for ``p`` on ``c``; flip the
    captured cells in the owners and return them (in no particular order). The placed
    card itself is left to the caller."""


def compile_flips(
    contacts: Sequence[tuple[Contact, ...]],
    rules: Rules,
    at: list[Sides | None],
    own: list[int],
) -> Flips:
    """The resolver over ``at`` (adjusted sides per cell, None when empty) and ``own``
    (owner per cell, -1 when empty), which the search mutates in place."""
    same, plus, combo = rules.same, rules.plus, rules.combo

    def near_enemies(c: int, q: int) -> Near | None:
        # Without Same and Plus only the enemy cards a placement could take matter.
        found: Near | None = None
        for n, mine, theirs in contacts[c]:
            if own[n] == q:
                other = at[n]
                assert other is not None
                if found is None:
                    found = [(n, mine, other[theirs])]
                else:
                    found.append((n, mine, other[theirs]))
        return found

    def capture_basic(touching: Near, sides: Sides, aces: int, p: int) -> list[int]:
        flipped = NO_FLIPS
        for n, mine, theirs in touching:
            if sides[mine] > theirs:
                own[n] = p
                if flipped is NO_FLIPS:
                    flipped = [n]
                else:
                    flipped.append(n)
        return flipped

    if not (same or plus):  # no special set, so no Combo either
        return Flips(near_enemies, capture_basic)

    def near_all(c: int, q: int) -> Near | None:
        # Same and Plus count friendly neighbours too, but flip only enemy ones.
        found: Near | None = None
        enemy = False
        for n, mine, theirs in contacts[c]:
            other = at[n]
            if other is not None:
                if own[n] == q:
                    enemy = True
                if found is None:
                    found = [(n, mine, other[theirs])]
                else:
                    found.append((n, mine, other[theirs]))
        return found if enemy else None

    def special_set(touching: Near, sides: Sides, aces: int, q: int) -> list[int] | None:
        """The enemy cards Same, Same Wall and Plus take, judged before any owner
        changes; None when there are none."""
        special: list[int] = []
        if same:
            matches = [n for n, mine, theirs in touching if sides[mine] == theirs]
            if len(matches) + aces >= 2:
                special = [n for n in matches if own[n] == q]
        if plus:
            sums = [sides[mine] + theirs for _, mine, theirs in touching]
            for (n, _, _), total in zip(touching, sums, strict=True):
                if own[n] == q and sums.count(total) > 1 and n not in special:
                    special.append(n)
        return special or None

    def capture(touching: Near, sides: Sides, aces: int, p: int) -> list[int]:
        q = 1 - p
        special: list[int] | None
        count = len(touching)
        if count == 1:
            # One neighbour, an enemy (near_all says so): no Plus (it needs two), and
            # Same only with a Same Wall ace for the second match.
            n, mine, theirs = touching[0]
            a = sides[mine]
            if a > theirs:
                own[n] = p
                return [n]
            if a != theirs or not (same and aces):
                return NO_FLIPS
            special = [n]
        elif count == 2:
            # The next commonest case, unrolled: done here unless Same or Plus applies.
            (n0, m0, t0), (n1, m1, t1) = touching
            a0, a1 = sides[m0], sides[m1]
            if (same and aces + (a0 == t0) + (a1 == t1) >= 2) or (plus and a0 + t0 == a1 + t1):
                special = special_set(touching, sides, aces, q)
            else:
                special = None
            if special is None:  # basic captures only
                flipped = NO_FLIPS
                if a0 > t0 and own[n0] == q:
                    own[n0] = p
                    flipped = [n0]
                if a1 > t1 and own[n1] == q:
                    own[n1] = p
                    flipped = [n1] if flipped is NO_FLIPS else [n0, n1]
                return flipped
        else:
            # Same and Plus rarely apply: one pass says whether they can, building
            # nothing but the sums, before the special set is worked out.
            matched = aces
            sums: list[int] = []
            shared = False
            for _, mine, theirs in touching:
                a = sides[mine]
                if a == theirs:
                    matched += 1
                total = a + theirs
                if total in sums:
                    shared = True
                sums.append(total)
            if (same and matched >= 2) or (plus and shared):
                special = special_set(touching, sides, aces, q)
            else:
                special = None
            if special is None:  # basic captures only
                flipped = NO_FLIPS
                for n, mine, theirs in touching:
                    if sides[mine] > theirs and own[n] == q:
                        own[n] = p
                        if flipped is NO_FLIPS:
                            flipped = [n]
                        else:
                            flipped.append(n)
                return flipped
        for n in special:
            own[n] = p
        flipped = special[:]
        for n, mine, theirs in touching:
            if sides[mine] > theirs and own[n] == q:
                own[n] = p
                flipped.append(n)
        if combo:
            # The set the chain reaches does not depend on the order it is walked in
            # (captures only ever add attackers), so owners come out as the rulebook's.
            flipped.extend(combo_chain(contacts, at, own, special, p, q))
        return flipped

    return Flips(near_all, capture)
