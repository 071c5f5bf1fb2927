"""The collection service: catalog, owned copies, decks, coins, boosters, drafts, Trade One,
the Auction House.

The house, as in every service (imports point inward: server -> handlers -> domain):

- ``config.py``: settings, read once. ``main.py``: the composition root.
- ``domain/``: the rules, pure (no I/O, clock or global random): ``catalog``,
  ``events`` (the facts of the ``player-``, ``trade-`` and ``draft-`` streams),
  ``wealth`` (copies, coins, match rewards), ``decks`` (decks, the Random deck,
  locks), ``boosters`` and ``seeds`` (verifiable draws, ``FAIRNESS.md``), ``trade``
  (Trade One), ``draft`` and ``draft_session`` (drafts), ``auction`` and
  ``events_auction`` (the Auction House, RULES.md 15).
- ``handlers.py`` and ``handlers_<subject>.py`` (``decks``, ``economy``, ``trades``,
  ``drafts``, ``auction``): one short function per use case, load -> decide -> append; typed
  results and read models in ``results.py``.
- ``schema.py``: every migration of the collection's schema.
- ``store/``: the repository, ``Repository``: over PostgreSQL (``Store.run``: one
  command, one transaction, idempotent by request id; ``unit.py`` its unit of work,
  ``reads*.py`` the queries, ``projection.py`` the tables the events keep), and in
  memory for handler tests (``memory*.py``, held to the same tests).
- ``consumers.py``: the durable consumer settling finished matches.
- ``server/``: the gRPC edge, by subject; ``mapping.py`` (values and request fields
  <-> protobuf) and ``presenter.py`` (per-player views: a draft never shows the
  opponent's cards) build its messages.
- ``data/``: the shipped catalog. ``FAIRNESS.md``: how booster draws are verified.
- ``codec.py``: event bytes, with the schema version read back and upcasters.
- ``metrics.py``: the service's Prometheus metrics.

Tests beside it: ``tests/`` (domain, codec and presenter tests; handler tests on both
stores, the PostgreSQL half marked ``integration``).
"""
