"""The battle repository: the port (``port.py``) and its adapters, ``postgres.py`` and
``memory.py`` (one contract, ``tests/test_store_contract.py``)."""

from services.battle.store.memory import MemoryBattles
from services.battle.store.port import Active, BattleRepository, DueTimer, Write
from services.battle.store.postgres import PostgresBattles

__all__ = ["Active", "BattleRepository", "DueTimer", "MemoryBattles", "PostgresBattles", "Write"]
