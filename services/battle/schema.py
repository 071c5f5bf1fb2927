"""The battle service's tables, as migrations (schema ``battle`` by default), beside the
platform's event store and relay tables (the battles' events live in ``events``):

- ``battle_timers``: one row per timer a battle needs: its phase deadline (formation or
  selection, seat -1), replaced by every save, and each disconnected seat's takeover
  (set by a presence report, cleared by a reconnect or when it fires). ``timer_id`` is
  the claim key (``services.platform.claims``): any replica leases due rows with
  ``FOR UPDATE SKIP LOCKED``.
- ``requests``: idempotent request keys (``services.platform.requests``) and the battle
  each one acted on.
- ``active``: each player's battle in progress (one at most), and their seat.
- ``presence``: each player's latest gateway session and whether it is open.
- ``open_battles``: the battles not finished (a restarted service pushes their views).
"""

from __future__ import annotations

from services.platform.migrations import Migration

MIGRATIONS = (
    Migration(
        "battle",
        1,
        "timers, requests, active battles, presence",
        """
        CREATE TABLE battle_timers (
            timer_id text PRIMARY KEY,
            battle_id text NOT NULL,
            kind text NOT NULL,
            seat integer NOT NULL,
            due_at timestamptz NOT NULL
        );
        CREATE INDEX battle_timers_due ON battle_timers (due_at);
        CREATE INDEX battle_timers_battle ON battle_timers (battle_id);
        CREATE TABLE requests (
            scope text NOT NULL,
            request_id text NOT NULL,
            fingerprint text NOT NULL,
            battle_id text NOT NULL,
            PRIMARY KEY (scope, request_id)
        );
        CREATE TABLE active (
            player_id text PRIMARY KEY,
            battle_id text NOT NULL,
            seat integer NOT NULL
        );
        CREATE TABLE presence (
            player_id text PRIMARY KEY,
            session_id text NOT NULL,
            opened_at timestamptz NOT NULL,
            connected boolean NOT NULL
        );
        CREATE TABLE open_battles (
            battle_id text PRIMARY KEY,
            created_at timestamptz NOT NULL DEFAULT now()
        );
        """,
    ),
)
