"""The network policies allow exactly the real call paths, no more and no fewer.

From the rendered NetworkPolicies the test derives every (from, to, port) a packet may
travel: the caller's policies must allow it out and the callee's must allow it in.
That graph is compared, both ways, with the one DESIGN.md and proto/ describe.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.deploy.deploy_manifests import (
    K8S,
    NAMESPACE,
    OVERLAYS,
    SERVICES,
    objects,
    pod_templates,
    selects,
)


@dataclass(frozen=True)
class Endpoint:
    """Something that sends or receives: one of our workloads, or a peer outside."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    namespace: str | None = NAMESPACE  # None: outside the cluster (an IP address)
    ports: frozenset[int] = frozenset()

    @property
    def ours(self) -> bool:
        return self.namespace == NAMESPACE


OUTSIDE = (
    Endpoint("internet", namespace=None, ports=frozenset({443, 6443})),
    Endpoint("kube-apiserver", namespace=None, ports=frozenset({443, 6443})),
    Endpoint("kube-dns", {"k8s-app": "kube-dns"}, "kube-system", frozenset({53})),
    Endpoint("prometheus", {"app.kubernetes.io/name": "prometheus"}, "monitoring"),
    Endpoint("cnpg-operator", {"app.kubernetes.io/name": "cloudnative-pg"}, "cnpg-system"),
)
# CloudNativePG's instance pods: made by the operator, so not in the rendered objects.
POSTGRES = Endpoint(
    "triad-db",
    {"cnpg.io/cluster": "triad-db", "cnpg.io/podRole": "instance"},
    ports=frozenset({5432, 8000, 9187}),
)

# DESIGN.md and the proto comments: who calls whom over gRPC.
CALLS = {
    "gateway": ("match", "matchmaker", "collection", "rating", "battle"),
    "matchmaker": ("match", "collection", "rating", "battle"),
}


def expected(ours: list[Endpoint]) -> set[tuple[str, str, int]]:
    port = {f"triad-{s.name}": s.port for s in SERVICES}
    metrics = {f"triad-{s.name}": s.metrics_port for s in SERVICES} | {
        "triad-nats": 7777,
        "triad-db": 9187,
    }
    apps = [f"triad-{s.name}" for s in SERVICES]
    # Players, from anywhere: every peer outside the namespace may reach the gateway, on
    # its gRPC port and its gRPC-Web port for browsers.
    paths = {(e.name, "triad-gateway", p) for e in OUTSIDE for p in (50051, 8443)}
    paths |= {
        (f"triad-{a}", f"triad-{b}", port[f"triad-{b}"]) for a, bs in CALLS.items() for b in bs
    }
    # Every service: those with an event log publish and consume it; the gateway
    # subscribes its sessions' player subjects and shares logouts between replicas
    # (found from outside: the policies kept it from NATS, so no push reached a player).
    paths |= {(app, "triad-nats", 4222) for app in apps}
    paths |= {(app, "triad-db", 5432) for app in apps}
    paths |= {("triad-nats", "triad-nats", 6222)}
    paths |= {(src, "triad-db", p) for src in ("triad-db", "cnpg-operator") for p in (5432, 8000)}
    # The API server's address is not known in advance: any address on its ports.
    paths |= {("triad-db", dst, p) for dst in ("kube-apiserver", "internet") for p in (443, 6443)}
    paths |= {("prometheus", name, port) for name, port in metrics.items()}
    paths |= {(e.name, "kube-dns", 53) for e in ours}
    return paths


def endpoints(overlay: str) -> list[Endpoint]:
    ours = [
        Endpoint(
            name,
            template["metadata"]["labels"],
            ports=frozenset(
                p["containerPort"]
                for c in template["spec"]["containers"]
                for p in c.get("ports", [])
            ),
        )
        for name, template in pod_templates(overlay)
    ]
    return [*ours, POSTGRES]


def peer_matches(peer: Mapping[str, Any], endpoint: Endpoint) -> bool:
    if "ipBlock" in peer:
        return endpoint.namespace is None
    if endpoint.namespace is None:
        return False
    if "namespaceSelector" in peer:
        namespace_labels = {"kubernetes.io/metadata.name": endpoint.namespace}
        if not selects(peer["namespaceSelector"], namespace_labels):
            return False
    elif not endpoint.ours:
        return False
    return selects(peer.get("podSelector", {}), endpoint.labels)


def rule_allows(rule: Mapping[str, Any], peers_key: str, other: Endpoint, port: int) -> bool:
    peers = rule.get(peers_key)
    if peers is not None and not any(peer_matches(p, other) for p in peers):
        return False
    ports = rule.get("ports")
    return ports is None or any(p.get("port") == port for p in ports)


def allowed(policies: list[dict[str, Any]], src: Endpoint, dst: Endpoint, port: int) -> bool:
    def direction(pod: Endpoint, kind: str, key: str, peers_key: str, other: Endpoint) -> bool:
        chosen = [
            p["spec"]
            for p in policies
            if kind in p["spec"].get("policyTypes", [])
            and selects(p["spec"]["podSelector"], pod.labels)
        ]
        if not chosen:
            return True  # no policy isolates this pod in this direction
        return any(rule_allows(r, peers_key, other, port) for s in chosen for r in s.get(key, []))

    out = not src.ours or direction(src, "Egress", "egress", "to", dst)
    into = not dst.ours or direction(dst, "Ingress", "ingress", "from", src)
    return out and into


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_policies_allow_exactly_the_call_graph(overlay: str) -> None:
    policies = list(objects(overlay, "NetworkPolicy").values())
    ours = endpoints(overlay)
    everyone = [*ours, *OUTSIDE]
    graph = {
        (src.name, dst.name, port)
        for src in everyone
        for dst in everyone
        if src.ours or dst.ours
        for port in dst.ports
        if allowed(policies, src, dst, port)
    }
    want = expected(ours)
    assert not graph - want, f"allowed but not a call path: {sorted(graph - want)}"
    assert not want - graph, f"a call path the policies block: {sorted(want - graph)}"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_everything_else_is_denied(overlay: str) -> None:
    deny = objects(overlay, "NetworkPolicy")["default-deny"]["spec"]
    assert deny == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}


def readme_paths(ours: list[Endpoint]) -> set[tuple[str, str, int]]:
    """The (from, to, port) paths the table in deploy/k8s/README.md ("Security") lists.

    A row names its peers as the operator reads them; a row of as many destinations as
    ports pairs them in order (``match, ..., battle | 50061-50065``)."""
    apps = [f"triad-{s.name}" for s in SERVICES]
    metrics = {f"triad-{s.name}": s.metrics_port for s in SERVICES} | {
        "triad-nats": 7777,
        "triad-db": 9187,
    }
    names = {
        "anywhere": [e.name for e in OUTSIDE],
        "every service": apps,
        "every pod": [e.name for e in ours],
        "NATS": ["triad-nats"],
        "PostgreSQL": ["triad-db"],
        "PostgreSQL (`triad-db`)": ["triad-db"],
        "CloudNativePG operator": ["cnpg-operator"],
        "Kubernetes API (any address)": ["kube-apiserver", "internet"],
        "Prometheus (namespace monitoring)": ["prometheus"],
        "kube-dns": ["kube-dns"],
    } | {s.name: [f"triad-{s.name}"] for s in SERVICES}

    def peers(cell: str) -> list[str]:
        if cell in names:
            return names[cell]
        return [n for part in cell.split(", ") for n in names[part]]

    text = (K8S / "README.md").read_text()
    table = text.split("| from | to | port |", 1)[1].split("\n\n", 1)[0]
    paths = set()
    for line in table.strip().splitlines()[1:]:
        src, dst, port = (c.strip() for c in line.strip().strip("|").split("|"))
        targets = peers(dst)
        if port == "its metrics port":
            paths |= {(a, b, metrics[b]) for a in peers(src) for b in targets}
            continue
        ports: list[int] = []
        for low, high in re.findall(r"(\d+)(?:-(\d+))?", port):
            ports += range(int(low), int(high or low) + 1)
        named = dst.split(", ")
        pairs = (
            [(b, p) for name, p in zip(named, ports, strict=True) for b in peers(name)]
            if len(named) == len(ports) > 1
            else [(b, p) for b in targets for p in ports]
        )
        paths |= {(a, b, p) for a in peers(src) for b, p in pairs}
    return paths


def test_the_readme_table_lists_exactly_what_the_policies_allow() -> None:
    """An operator reads the paths in deploy/k8s/README.md, not in the policies (found
    from outside: the table left out the gateway's gRPC-Web port for browsers)."""
    ours = endpoints("prod")
    listed, want = readme_paths(ours), expected(ours)
    assert not want - listed, f"allowed, not in the README's table: {sorted(want - listed)}"
    assert not listed - want, f"in the README's table, not allowed: {sorted(listed - want)}"
