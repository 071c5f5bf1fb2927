"""The gateway benchmarks' baseline: the bare gRPC echo (devtools/echo.py) over
TLS with the gateway's development certificate, in a process of its own, driven by the
same kind of client as the gateway.

Why TLS: the gateway serves only TLS, so an echo in plaintext would charge the gateway
for encryption that any TLS server pays. The plaintext echo is measured too, beside it.

    python -m bench.echo_tls --port P --cert CERT --key KEY   # serves until SIGTERM
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import grpc

from bench.service import CpuMeter, LoadResult, Step, channel, closed_loop, healthy, process
from devtools.echo import SERVICE, EchoClient, register_echo
from services.platform.grpcserver import Lifecycle, ServerConfig, build_server
from services.platform.logging import configure_logging
from services.platform.metrics import RpcMetrics, new_registry

PAYLOAD = b"x" * 64


async def _serve(port: int, cert: Path | None, key: Path | None) -> None:
    credentials = None
    if cert is not None and key is not None:
        credentials = grpc.ssl_server_credentials([(key.read_bytes(), cert.read_bytes())])
    async with Lifecycle() as life:
        server = await life.start_server(
            build_server(
                ServerConfig(host="127.0.0.1", port=port, stop_grace_seconds=2.0),
                register_echo,
                [SERVICE],
                metrics=RpcMetrics.register(new_registry()),
                credentials=credentials,
            )
        )
        await life.wait(server)


@contextlib.contextmanager
def echo_server(
    port: int, log: Path, cert: Path | None = None, key: Path | None = None
) -> Iterator[str]:
    """An echo process on ``port`` (TLS when a certificate is given); its address."""
    args = ["-m", "bench.echo_tls", "--port", str(port)]
    if cert is not None and key is not None:
        args += ["--cert", str(cert), "--key", str(key)]
    with process(args, {}, log):
        yield f"127.0.0.1:{port}"


async def echo_load(
    address: str,
    root_cert: bytes | None,
    concurrency: int,
    seconds: float,
    warmup: float,
    channels: int = 1,
    meter: CpuMeter | None = None,
) -> LoadResult:
    """Closed-loop echo calls from ``concurrency`` workers spread over ``channels``."""
    await healthy(address, root_cert)
    chans = [channel(address, root_cert) for _ in range(channels)]
    try:
        clients = [EchoClient(c) for c in chans]

        async def make(index: int, latencies: list[float]) -> Step:
            client = clients[index % len(clients)]

            async def step() -> int:
                began = time.perf_counter()
                await client.echo(PAYLOAD)
                latencies.append(time.perf_counter() - began)
                return 1

            return step

        return await closed_loop(make, concurrency, seconds, warmup, meter)
    finally:
        for chan in chans:
            await chan.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.echo_tls", description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--cert", type=Path)
    parser.add_argument("--key", type=Path)
    args = parser.parse_args(argv)
    configure_logging("echo", "WARNING")
    asyncio.run(_serve(args.port, args.cert, args.key))
    return 0


if __name__ == "__main__":
    sys.exit(main())
