"""Skirmish, the 3v3 battle game (``../shared/BATTLE.md``): its pure core and the battle
service, with the rooms every service has (imports pointing inward: edge -> handlers ->
domain).

A battle is a stream of events (``battle-<id>``) in the platform's event store, relayed
to JetStream like every log. Each command loads the battle, decides once (the events and
the state after them; the CPU seats' plans drawn by the handler and recorded), and saves
the events with the battle's timers, the players' active battle and the request key in
one transaction, then pushes each human seat its view (``triad.player.<id>.battle``).

- ``data/roster.json``: the characters, their skill cards, Specials and summons, with
  the content version a battle records: what new battles use. ``data/rosters/``: the
  earlier versions battles in progress may still need (``<content_version>.json``); each
  battle plays, and is shown, with the content it recorded.
- ``rules/``: the battle engine, pure (no I/O, clock or global random); its package
  docstring is the API's map. ``bots/``: the CPU players (``random``, ``greedy``,
  ``search``) deciding from their own view.
- ``config.py``: the settings, read once from the environment (TRIAD_BATTLE_...).
- ``domain/``: the battle aggregate, pure: ``events`` (created with the drawn teams and
  deck orders, formation set, plan set, plan committed, turn resolved with the resulting
  state and action log recorded so a replay never resolves again, seat taken over,
  finished),
  ``state`` (``BattleState``, ``evolve``, ``fold``), ``decide`` (the commands, each a
  ``Decision``), ``deadlines`` (which timer a state needs), ``errors``. A plan may be set
  (SetPlan, the event ``PlanSet``) before it is committed; at the selection deadline a
  seat that did not commit plays the plan it set.
- ``handlers.py``: the use cases, no protobuf, SQL or NATS: formation, set plan,
  commit, give up, views, the CPU seats' moves, and a page of a battle's stored events
  for operators (``battle_events``, paged by ``services.platform.eventpages``).
  ``handlers_create.py``: a new battle (a player with no session open as it starts is
  away from then). ``handlers_timers.py``: presence (30 s away: the CPU takes the seat
  over) and firing due timers (formation, selection, takeover).
- ``schema.py``: every migration: timers, request keys, active battles, presence.
- ``store/``: the repository port (``port.py``) and its adapters, ``postgres.py`` and
  ``memory.py``, held to one contract (``tests/test_store_contract.py``).
- ``codec.py``: event bytes: the ``triad.v1`` Skirmish payloads (``battle.proto``), the
  schema version read back and the upcaster hook.
- ``consumers.py``: none: the battle service consumes no events; presence comes from the
  gateway (``ReportPresence``, as the match service's does).
- ``mapping.py`` (protobuf values) and ``presenter.py`` (a seat's ``BattleView``, never
  the opponent's hand or plan; ``SeatViews`` pushes them).
- ``server.py``: the BattleService servicer (``GetBattleEvents`` for operators only:
  TRIAD_ADMIN_TOKEN, ``check_operator``). ``metrics.py``: its Prometheus metrics.
- ``admin.py``: ``triad-admin battle show``: a battle's events, then its turn, teams
  and outcome, rebuilt from the log alone (the tool itself is ``services/admin.py``).
- ``main.py``: the composition root and lifecycle (``triad-battle-service``; the engine's
  command line is ``triad-battle``, ``cli.py``).

Tests beside it: ``tests/`` (handlers in memory, the store contract on both adapters,
``triad-admin battle show``'s report).
"""
