"""The matchmaker: queues per mode, pairing by rating, populated and practice bots, the
custom-table lobby, Draft pairings (RULES.md 6 and 10); for Skirmish (BATTLE.md 6) the
Battle queue and battle tables, whose starts ask the battle service for the battle.

Every change (a ticket queued or cancelled, a pairing, a practice, a table) commits with
its events in one transaction; a match start is recorded with a lease first, so any
replica can finish it if the one that began it dies. The rooms, imports pointing
inward (edge -> handlers -> domain):

- ``config.py``: the settings, read once from the environment (TRIAD_...).
- ``domain/``: the rules of matchmaking, pure (no I/O, clock or randomness):
  ``modes`` (queues, ladders, rule sets: fixed, Roulette's draws, what custom tables
  and practice may combine, checked by the rules engine's
  ``services/rules/compatibility.py``), ``pairing`` (the widening rating window,
  pairing tickets, bot fill), ``seats`` (decks, cards, seats, bot names, start plans),
  ``tickets``, ``tables``.
- ``handlers.py``: what every use case is given (``Context``: repository, ports of the
  other services, clock, random source, configuration, metrics); ``handlers_free.py``,
  who may start a game now (RULES.md 5: checked before a claim and again once it holds
  the player); the use cases in ``handlers_queues.py`` (enqueue, cancel, queue status,
  practice), ``handlers_lobby.py`` (custom tables), ``handlers_find.py`` (Find Game),
  ``handlers_pairing.py`` (pairing rounds), ``handlers_starts.py`` (starting what those
  decided, taking over starts whose lease ran out, Draft matches) and
  ``handlers_status.py`` (what a ticket's status shows, and telling players of their
  tickets and tables after each change, through the ``Pushes`` port). No protobuf, SQL
  or NATS in any of them.
- ``schema.py``: every migration, and where the concurrency safety lives.
- ``store/``: the repository ports (``Repository``, ``Lobby``) and their PostgreSQL
  adapters (``base``: request keys, engaged players, the log; ``tickets``; ``starts``;
  ``lobby``; ``plans``: a start plan's JSON); ``memory`` and ``memory_lobby``: the
  same ports in memory, held to the same contract (``tests/test_store_contract*.py``).
- ``codec.py``: event bytes: the payloads the store appends and the DraftCompleted it
  consumes, with the schema version written and read back and an upcaster hook.
- ``consumers.py``: what the matchmaker consumes (DraftCompleted -> the Draft match).
- ``clients.py``: the other services as the ports see them: gRPC adapters of the match,
  collection and rating services, and in-repo stand-ins while those are not configured.
- ``mapping.py``: protobuf <-> domain values at the edges (server and clients).
- ``pushes.py``: the ``Pushes`` port on the players' NATS subjects (``queue_status``,
  ``table``).
- ``server.py``: the MatchmakerService servicer: request checks, handlers, mapping.
- ``metrics.py``: the service's Prometheus metrics.
- ``main.py``: the composition root and lifecycle (``triad-matchmaker``).

Tests beside it: ``tests/`` (domain, codec and handler tests in memory; the PostgreSQL
half of the contract and the two-replica load test need PostgreSQL).
"""
