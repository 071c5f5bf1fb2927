"""The rating service: Season 0 Elo ladders for Ranked and Draft, leaderboards.

Ratings change only by consuming events (a finished match, a draft forfeited before its
match); the gRPC API only reads. The rooms, imports pointing inward (edge -> handlers
-> domain):

- ``config.py``: the settings, read once from the environment (TRIAD_...).
- ``domain.py``: the ladders' rules (RULES.md 10), pure: Elo, K, rounding, which games
  count (``why_unrated``), standings, ranks; ``FinishedGame`` and ``ResultKey``.
- ``handlers.py``: the use cases, no protobuf, SQL or NATS: ``rate_match`` (once per
  match or draft), ``announce`` (each change to its player, after the commit) and the
  reads; the ports they need (``Ladders``, ``Reader``, ``Wakeups``, ``ChangePushes``).
- ``read_models.py``: what the reads return: standings, placings, the top of a ladder,
  logged changes.
- ``schema.py``: every migration: tables, lock order, the two server-side functions.
- ``store/``: the adapters of the ports: ``postgres.py`` (``PostgresLadders`` in the
  consumer's transaction, ``RatingReader`` on the pool) and ``memory.py``, the same
  ports in memory, held to the same contract (``tests/test_store_contract.py``), so
  handler tests need no database.
- ``codec.py``: event bytes in: an envelope (type, schema version, upcasters) read as
  a ``FinishedGame``.
- ``consumers.py``: the durable JetStream consumers (MatchFinished, DraftForfeited),
  each event's mark and its rating in one transaction, then each player's
  ``rating_change`` push.
- ``mapping.py``: protobuf <-> domain at the edges (ladder keys, ratings, changes; the
  ``ChangePushes`` adapter on the platform's player pushes).
- ``server.py``: the RatingService servicer: request checks, handlers, mapping.
- ``metrics.py``: the service's Prometheus metrics.
- ``main.py``: the composition root and lifecycle (``triad-rating``).

Tests beside it: ``tests/`` (unit and handler tests in memory; the PostgreSQL half of
the contract and the JetStream consumer marked ``integration``).
"""
