"""A TCP proxy a test can freeze: the bytes stop in both directions while both sockets
stay open, which is what a half-open connection looks like to the server (a phone
that lost its network without a FIN)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct


class FreezableProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.flowing = asyncio.Event()
        self.flowing.set()
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []
        self._pumps: list[asyncio.Task[None]] = []

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"127.0.0.1:{port}"

    def freeze(self) -> None:
        self.flowing.clear()

    async def drop(self) -> None:
        """Close every proxied connection at once (the network comes back, the old
        connection is reset)."""
        for writer in self._writers:
            with contextlib.suppress(Exception):
                writer.transport.abort()
        for pump in self._pumps:
            pump.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)
        if self._server is not None:
            self._server.close()

    async def reset(self) -> None:
        """Reset every proxied connection: each socket closes with a TCP RST (SO_LINGER
        0), as when a NAT or a network drops a connection, instead of a clean FIN."""
        for writer in self._writers:
            sock = writer.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        await self.drop()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self._writers += [writer, up_writer]
        self._pumps += [
            asyncio.create_task(self._pump(reader, up_writer)),
            asyncio.create_task(self._pump(up_reader, writer)),
        ]

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            while data := await reader.read(65536):
                await self.flowing.wait()
                writer.write(data)
                await writer.drain()
