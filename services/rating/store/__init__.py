"""The rating repository: the ports are the handlers' (``Ladders``, ``Reader``, in
``handlers.py``); their adapters are ``postgres.py`` (``PostgresLadders`` in the
consumer's transaction, ``RatingReader`` on the pool) and ``memory.py``
(``MemoryRatings``), one contract (``tests/test_store_contract.py``)."""

from services.rating.store.memory import MemoryRatings
from services.rating.store.postgres import PostgresLadders, RatingReader

__all__ = ["MemoryRatings", "PostgresLadders", "RatingReader"]
