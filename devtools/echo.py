"""A bare gRPC echo service: the benchmarks' baseline for what the bootstrap itself costs.

No proto: a generic handler with no (de)serializers moves raw bytes, so a benchmark
against it measures the transport, our interceptors and the event loop, and nothing
of protobuf or of the game.

    python -m devtools.echo --port 0

prints the bound port alone on the first line of stdout (logs follow as JSON lines),
then serves until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

import grpc

from services.platform.grpcserver import GrpcServer, ServerConfig, serve
from services.platform.logging import configure_logging

SERVICE = "triad.bench.Echo"
METHOD = "Echo"
FULL_METHOD = f"/{SERVICE}/{METHOD}"


async def _echo(request: bytes, _context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
    return request


def register_echo(server: grpc.aio.Server) -> None:
    handler: grpc.RpcMethodHandler[bytes, bytes] = grpc.unary_unary_rpc_method_handler(
        _echo, request_deserializer=None, response_serializer=None
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE, {METHOD: handler}),)
    )


class EchoClient:
    """Calls the echo service with raw bytes; make one per channel and reuse it."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        # Built once: creating the multicallable per call would be part of what we measure.
        self._call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
            FULL_METHOD, request_serializer=None, response_deserializer=None
        )

    async def echo(self, payload: bytes, *, timeout: float = 5.0) -> bytes:
        response: bytes = await self._call(payload, timeout=timeout)
        return response


def _print_port(server: GrpcServer) -> None:
    print(server.port, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.echo", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind; 0 picks a free one")
    parser.add_argument("--metrics-port", type=int, default=None, help="serve /metrics here")
    parser.add_argument("--log-level", default="INFO")
    args = parser.parse_args(argv)

    configure_logging("echo", args.log_level)
    asyncio.run(
        serve(
            ServerConfig(host=args.host, port=args.port, stop_grace_seconds=2.0),
            register_echo,
            [SERVICE],
            metrics_port=args.metrics_port,
            on_serving=_print_port,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
