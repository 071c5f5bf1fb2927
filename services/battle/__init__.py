"""Skirmish, the 3v3 battle game (``../shared/BATTLE.md``): so far its pure core only.

The rooms that exist today (the service's own rooms, ``domain/``, ``handlers.py``,
``store/`` and the rest of the house shape, come with the battle service):

- ``data/roster.json``: the characters, their skill cards, Specials and summons, with
  the content version a battle records.
- ``rules/``: the battle engine, pure (no I/O, clock or global random): content
  loading, state, plans, turn resolution, per-player views, JSON codec and the
  ``triad-battle`` command; its package docstring is the API's map.
- ``bots/``: CPU players (``random``, ``greedy``, ``search``) deciding from their own
  view, and the arena that plays CPU battles.
"""
