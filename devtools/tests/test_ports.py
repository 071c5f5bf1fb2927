"""Free ports for test and ``make run`` servers (devtools/processes.py)."""

from __future__ import annotations

import socket

import pytest

from devtools.processes import _HANDED_OUT, LISTEN_PORTS, free_port, worker_ports
from devtools.topology import listening


def test_a_port_is_handed_out_once_though_nothing_bound_it_yet() -> None:
    """Each probe socket closes before its server binds, so without memory two draws
    could name the same port; as many draws in a row as the memory still holds (it
    forgets once half of this worker's share of the range is handed out) are all
    different."""
    ports = [free_port() for _ in range(len(worker_ports()) // 2 - len(_HANDED_OUT))]
    assert len(ports) > 1_000
    assert len(set(ports)) == len(ports)
    assert all(port in LISTEN_PORTS for port in ports)


def test_two_pytest_workers_never_share_a_port_and_together_cover_the_range() -> None:
    """``make test`` runs several xdist workers, each remembering only the ports it handed
    out: their shares are disjoint, and outside xdist a process has the whole range."""
    shares = [
        set(
            worker_ports(
                environ={"PYTEST_XDIST_WORKER": f"gw{n}", "PYTEST_XDIST_WORKER_COUNT": "2"}
            )
        )
        for n in (0, 1)
    ]
    assert not shares[0] & shares[1]
    assert shares[0] | shares[1] == set(LISTEN_PORTS)
    assert worker_ports(environ={}) == LISTEN_PORTS
    three = {"PYTEST_XDIST_WORKER": "gw2", "PYTEST_XDIST_WORKER_COUNT": "3"}
    assert set(worker_ports(environ=three)) == set(LISTEN_PORTS[2::3])


def test_a_port_left_in_time_wait_by_a_stopped_server_is_free_for_make_run() -> None:
    """A stopped backend leaves its connections in TIME-WAIT for a minute; ``make run``
    started again at once must not take them for a server still up, while a server
    really listening is still seen."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC's listeners do
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    assert listening(port)
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = server.accept()
    accepted.close()  # the server's side closes first: its end waits in TIME-WAIT
    client.close()
    server.close()
    with socket.socket() as plain:  # what the probe without SO_REUSEADDR met
        try:
            plain.bind(("127.0.0.1", port))
        except OSError:
            pass
        else:
            pytest.skip("this kernel left no TIME-WAIT on the port; nothing to check")
    assert not listening(port)
