"""The cross-service tests; each service's unit and handler tests live beside its code
(``services/<name>/tests/``, ``gateway/tests/``, ``devtools/tests/``,
``bench/tests/``) and run in
``make unit`` with no server.

- ``integration/``: one or a few services as real processes on real PostgreSQL and
  NATS, driven over their gRPC APIs (the match service SIGKILLed between moves, the
  collection's fairness procedure followed from outside, the gateway forwarding).
- ``e2e/``: the whole backend (``devtools/stack.py``), played only through the TLS
  gateway or ``triad-client``, as players and operators do: whole matches, hostile
  input, hidden information, races, refusals, the operators' consumer tool.
- ``deploy/``: ``deploy/k8s`` and the ``Dockerfile`` checked offline (kustomize,
  schemas, network policies, alerts and dashboards against the code's metrics).
- ``chaos/``: ``make chaos``, five minutes of load while every process is killed in
  turn, then the invariants.
- ``test_contract.py``: the gRPC contract in ``proto/`` keeps its promises (no server;
  part of ``make unit``).

Every test under ``integration/``, ``e2e/`` and ``chaos/`` is marked ``integration``
(``conftest.py``), as is any test anywhere that asks for a server
(``devtools/testing.py``).
"""
