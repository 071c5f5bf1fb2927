"""Free ports for test and ``make run`` servers (devtools/processes.py)."""

from __future__ import annotations

from devtools.processes import LISTEN_PORTS, free_port, worker_ports


def test_a_port_is_handed_out_once_though_nothing_bound_it_yet() -> None:
    """Each probe socket closes before its server binds, so without memory two draws
    could name the same port; 2,000 draws in a row are all different."""
    ports = [free_port() for _ in range(2_000)]
    assert len(set(ports)) == len(ports)
    assert all(port in LISTEN_PORTS for port in ports)


def test_two_pytest_workers_never_share_a_port_and_together_cover_the_range() -> None:
    """``make test`` runs two xdist workers, each remembering only the ports it handed
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
