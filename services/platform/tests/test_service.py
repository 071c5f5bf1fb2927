"""The end of every main(): settings read once, a clear exit on a bad one, background
work stopped with the process."""

from __future__ import annotations

import asyncio

import pytest
from prometheus_client import CollectorRegistry

from services.platform import grpcserver
from services.platform.grpcserver import Lifecycle
from services.platform.metrics import MetricsServer, new_registry, start_metrics_server
from services.platform.service import SETTINGS_EXIT_STATUS, Background, run_service, serve
from services.platform.settings import ServiceSettings, Settings, SettingsError


def test_a_bad_setting_ends_the_process_with_one_line_and_nothing_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ran: list[object] = []

    def read() -> object:
        raise SettingsError("TRIAD_MATCH_PORT must be a port number 0..65535, got 'x'")

    async def run(settings: object) -> None:
        ran.append(settings)

    assert run_service("match", read, run) == SETTINGS_EXIT_STATUS
    assert ran == []
    assert capsys.readouterr().err == (
        "triad-match: TRIAD_MATCH_PORT must be a port number 0..65535, got 'x'\n"
    )


def test_good_settings_are_read_once_and_handed_to_run() -> None:
    reads: list[int] = []
    ran: list[int] = []

    def read() -> int:
        reads.append(1)
        return 42

    async def run(settings: int) -> None:
        ran.append(settings)

    assert run_service("match", read, run) == 0
    assert (reads, ran) == ([1], [42])


async def test_background_work_runs_until_the_lifecycle_ends_then_is_awaited() -> None:
    steps: list[int] = []
    ended = asyncio.Event()

    async def step() -> bool:
        steps.append(1)
        return False

    async def watcher(stop: asyncio.Event) -> None:
        await stop.wait()
        ended.set()

    async with Lifecycle(signals=()) as life:
        work = Background.of(life)
        work.every(0.001, step, copies=2)
        work.start(watcher(work.stop))
        while len(steps) < 4:
            await asyncio.sleep(0.001)
        assert not work.stop.is_set()
    assert work.stop.is_set() and ended.is_set()


async def test_metrics_are_served_on_the_interface_grpc_listens_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``make run`` keeps every service on 127.0.0.1 and prints its metrics there: a
    /metrics open on every interface would show the game's figures to the network."""
    bound: list[str] = []

    def spy(registry: CollectorRegistry, port: int = 0, host: str = "0.0.0.0") -> MetricsServer:
        bound.append(host)
        return start_metrics_server(registry, port, host)

    monkeypatch.setattr(grpcserver, "start_metrics_server", spy)
    settings = ServiceSettings(
        database_url="postgresql://triad@127.0.0.1/triad",
        nats_url=None,
        host="127.0.0.1",
        port=0,
        metrics_port=0,
        database_pool_size=1,
        retention_days=7.0,
        shared=Settings(),
    )

    async def stop_at_once(_server: object) -> None:
        life.request_stop()

    async with Lifecycle(signals=()) as life:
        await serve(life, settings, new_registry(), lambda _s: None, [], also=stop_at_once)
    assert bound == ["127.0.0.1"]
