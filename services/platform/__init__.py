"""What every service shares and nothing game-specific. Runtime only: the development
tools (launcher, embedded servers, echo server, dev certificate, test plugin) are in
``devtools/``, and nothing here imports ``gateway`` or a service.

The end of every ``main()`` and the process around it:

- ``service``: ``run_service`` (logs, settings read once, ``asyncio.run``),
  ``Background`` (work beside the server, stopped before the pool closes), ``serve``;
- ``grpcserver``: the gRPC server (health, reflection, limits) and ``Lifecycle``;
- ``settings``: the environment read once (``ServiceSettings``, ``basics``);
  ``endpoints``: every process's default ports, in one table;
- ``logging``, ``metrics``, ``database`` (the pool), ``channels`` (internal gRPC
  channels), ``migrations``.

The edge of every servicer:

- ``interceptors``: the one place errors become statuses (``STATUS_BY_ERROR``),
  request ids, RPC metrics; ``errors``: the typed errors a caller can cause;
- ``edge``: ``require``, ``bind``, ``require_bound``, ``require_enum`` (``enums``: enum
  tables both ways), ``check_operator``;
- ``requests``: idempotent request keys (``Request``, ``answered``, ``remember``), and
  ``requests_memory`` the same in memory for the in-memory stores;
- ``downstream``: calls to another service, its refusals back as typed errors;
- ``pages``: keyset page tokens (a page ends at its last item's time and key), and a
  forged one refused as INVALID_ARGUMENT before it reaches a query;
- ``codec``: event bytes with their schema version read back, and upcasters.

Events and work:

- ``eventstore`` (PostgreSQL, gap-free global order; ``eventstore_schema`` its
  migrations and append channels) and ``memstore`` (in memory, the same contract);
  ``groupcommit``: many commands' writes in one commit; ``keyedlocks``: commands on one
  stream take turns in a process;
- ``relay``: the event log as outbox, relayed to JetStream (``relay_schema`` its
  checkpoints, ``relay_metrics`` its gauges and counters); ``bus``: NATS and the event
  stream; ``pushes``: each player's updates on their own subject, for whichever gateway
  holds their session; ``consumer``: idempotent consumers (``consumer_schema`` their
  migrations, ``consumer_admin``: replaying one); ``eventpages``: a stream's stored
  events for operators, a page at a time (``GetMatchEvents``, ``GetBattleEvents``);
- ``notifier``: PostgreSQL LISTEN/NOTIFY wake-ups; ``background``: polling loops
  (``every``) and the relay's process; ``claims``: claiming due work (timers,
  deadlines, leases) with SKIP LOCKED; ``presence``: which session report wins, and a
  player's missed match or battle, told once on their return; ``retention``: pruning
  request keys and finished bookkeeping (``Background.prune``).
"""
