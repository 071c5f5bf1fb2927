"""CPU players of Skirmish (BATTLE.md 6: practice against the CPU at the bot levels, and
the CPU that takes over a disconnected player).

- ``levels.py``: ``random``, ``greedy`` and ``search``, each deciding from a player's
  :class:`~services.battle.rules.views.BattleView` only; ``formation`` from the
  characters' front/back preferences.
- ``value.py``: what the players weigh (an action's expected value, a battle's score).
- ``arena.py``: a whole CPU battle from a seed, with its record.
"""
