"""Free ports for test and ``make run`` servers (devtools/processes.py)."""

from __future__ import annotations

from devtools.processes import LISTEN_PORTS, free_port


def test_a_port_is_handed_out_once_though_nothing_bound_it_yet() -> None:
    """Each probe socket closes before its server binds, so without memory two draws
    could name the same port; 2,000 draws in a row are all different."""
    ports = [free_port() for _ in range(2_000)]
    assert len(set(ports)) == len(ports)
    assert all(port in LISTEN_PORTS for port in ports)
