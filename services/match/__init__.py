"""The match service: event-sourced matches, per-player views, timers.

A match is a stream of events (``match-<id>``); every command loads the state, decides
once (events and the state after them) and saves both at the expected version with its
timers, seats and request key in one transaction. The rooms, imports pointing inward
(edge -> handlers -> domain):

- ``config.py``: the settings, read once from the environment (TRIAD_...).
- ``domain/``: the match, pure (RULES.md 3 to 5): ``events`` (the facts), ``state``
  (``Match``, ``evolve``, ``fold``), ``decide`` (the commands, each a ``Decision``),
  ``rounds`` (Sudden Death's next round), ``realm`` (Realm tables, RULES.md 17: the
  Realm engine's placements, Lair, Realm Sudden Death), ``deadlines`` (which timers a
  state needs, ``DeadlineKind``), ``errors``.
- The rules themselves are ``services/rules/`` (board, captures, positions, solver, deck
  rules; pure), shared with the collection, the matchmaker and the wire vocabulary.
- ``views.py``: what one player may see of a match (hidden cards never leave here).
- ``handlers.py``: the use cases, no protobuf, SQL or NATS: create, place, forfeit,
  presence; typed results (``Started``). Every committed change is announced
  (``Context.announce``) after its commit, but for the placer's view when its reply
  carries it (``placer_view_in_reply``). ``handlers_timers.py``: firing due timers
  (turns, disconnects, bot moves), as the battle service's. ``handlers_reads.py``: the
  reads (a player's view, the active match, the operator's event pages, paged by
  ``services.platform.eventpages``).
- ``bots/``: bot players (novice to hard) choosing from their seat's view, in worker
  processes (``BotPool``); ``bots/realm.py`` plays Realm tables (Lair included).
- ``schema.py``: every migration: timers, request keys, active matches, presence,
  ``match_save_batch()``.
- ``store/``: the repository port (``port.py``: ``MatchRepository``, ``TimerClaim``,
  ``Write``) and its adapters: ``postgres.py`` (group commit, state cache) and
  ``memory.py`` (the same contract in memory, for handler tests).
- ``codec.py``: event bytes: ``triad.v1`` payloads, type names, the schema version
  read back from each stored event and the upcaster hook (``UPCASTERS``);
  ``codec_timers.py`` the payloads of the events timers and presence make (a missed
  turn, a seat away and back, a forfeit).
- ``consumers.py``: none: the match service consumes no events; its log is relayed to
  JetStream for the others (``services.platform.relay``).
- ``mapping.py``: protobuf <-> domain values at the gRPC edge (cards, seats, rules),
  ``mapping_realm.py`` its Realm part (family and modules, Realm moves and state);
  ``presenter.py`` turns a player's view into the ``MatchView`` message, and its
  ``SeatViews`` pushes each human seat its view of every announced version on
  ``triad.player.<id>.match_view`` (issue 18), reused by the mover's reply.
- ``server.py``: the MatchService servicer: request checks, handlers, mapping.
- ``metrics.py``: the service's Prometheus metrics.
- ``admin.py``: ``triad-admin match show``: a match's events and final board from its
  log (the tool itself, over every service, is ``services/admin.py``).
- ``main.py``: the composition root and lifecycle (``triad-match``).

Tests beside it: ``tests/`` (domain, codec, views and handler tests in memory; the
PostgreSQL half of the store contract, the group commit and the handlers on
PostgreSQL marked ``integration``).
"""
