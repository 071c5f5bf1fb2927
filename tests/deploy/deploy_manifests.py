"""The Kubernetes manifests as kubectl renders them, and small lookups over them.

``render(overlay)`` runs ``kubectl kustomize deploy/k8s/overlays/<overlay>`` (kustomize
is built into kubectl) once per test session. A missing kubectl fails the tests that
need it, loudly: ``.ci/install-ops-tools`` installs it.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.platform.endpoints import DEFAULT_PORTS

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
OVERLAYS = ("dev", "prod")
NAMESPACE = "triad"


@dataclass(frozen=True, slots=True)
class Service:
    """One backend service as the manifests and the code name it."""

    name: str  # match
    grpc_service: str  # triad.v1.MatchService
    port: int
    metrics_port: int
    web_port: int | None = None
    """The gateway's gRPC-Web port for browsers (``gateway/web.py``)."""
    health_port: int | None = None
    """Where the probes ask when the gRPC port speaks TLS (the gateway's plain health
    port); None: the gRPC port."""

    @property
    def probe_port(self) -> int:
        return self.health_port or self.port

    entrypoint: str = ""
    """The console script, when not ``triad-<name>`` (``triad-battle`` is the battle
    engine's command line, so the battle service runs as ``triad-battle-service``)."""

    @property
    def app(self) -> str:
        return f"triad-{self.name}"

    @property
    def command(self) -> str:
        return self.entrypoint or self.app


def _service(name: str, grpc_service: str, **more: Any) -> Service:
    """A service at the code's default ports (``services/platform/endpoints.py``)."""
    ports = DEFAULT_PORTS[name]
    return Service(name, grpc_service, ports.grpc, ports.metrics, web_port=ports.web, **more)


GATEWAY_HEALTH_PORT = 50052
"""The manifests' plain health port for the gateway's probes (the code has no default:
``TRIAD_GATEWAY_HEALTH_PORT`` unset serves none)."""

SERVICES = (
    _service("gateway", "triad.v1.TriadGateway", health_port=GATEWAY_HEALTH_PORT),
    _service("match", "triad.v1.MatchService"),
    _service("matchmaker", "triad.v1.MatchmakerService"),
    _service("collection", "triad.v1.CollectionService"),
    _service("rating", "triad.v1.RatingService"),
    _service("battle", "triad.v1.BattleService", entrypoint="triad-battle-service"),
)


OPS_TOOLS_HINT = "run `make ops-tools` as root to install it, then the tests again"


def tool(name: str, hint: str, *, venv_first: bool = False, ops_tool: bool = False) -> str:
    """The path of a command-line tool, on PATH or in the venv.

    ``venv_first`` prefers the venv's copy, pinned in pyproject.toml (nats-server).
    A missing tool fails the test, except an ``ops_tool`` (promtool, kubectl): ``make
    test`` installs those when it runs as root (``make ops-tools``), and where it cannot
    the tests that need them are skipped with the command that enables them.
    """
    venv_bin = Path(sys.executable).parent / name
    in_venv = str(venv_bin) if venv_bin.exists() else None
    found = (in_venv or shutil.which(name)) if venv_first else (shutil.which(name) or in_venv)
    if found is None:
        if ops_tool:
            pytest.skip(f"{name} is not installed: {hint}")
        pytest.fail(f"{name} is not installed: {hint}", pytrace=False)
    return found


def kubectl() -> str:
    return tool("kubectl", OPS_TOOLS_HINT, venv_first=True, ops_tool=True)


@functools.cache
def render(overlay: str) -> tuple[dict[str, Any], ...]:
    """Every object of an overlay, as ``kubectl kustomize`` renders it."""
    done = subprocess.run(
        [kubectl(), "kustomize", str(K8S / "overlays" / overlay)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"kubectl kustomize overlays/{overlay} failed:\n{done.stderr}", pytrace=False)
    return tuple(doc for doc in yaml.safe_load_all(done.stdout) if doc)


def objects(overlay: str, kind: str) -> dict[str, dict[str, Any]]:
    """name -> object, for every object of ``kind`` in an overlay."""
    return {o["metadata"]["name"]: o for o in render(overlay) if o["kind"] == kind}


def config(overlay: str) -> dict[str, str]:
    """The data of the generated ConfigMap every service reads (triad-config-<hash>)."""
    maps = [
        o
        for o in render(overlay)
        if o["kind"] == "ConfigMap" and o["metadata"]["name"].startswith("triad-config-")
    ]
    assert len(maps) == 1, [m["metadata"]["name"] for m in maps]
    data: dict[str, str] = maps[0]["data"]
    return data


def pod_templates(overlay: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(workload name, pod template) for every Deployment and StatefulSet."""
    for kind in ("Deployment", "StatefulSet"):
        for name, obj in objects(overlay, kind).items():
            yield name, obj["spec"]["template"]


def containers(template: Mapping[str, Any]) -> list[dict[str, Any]]:
    spec = template["spec"]
    found: list[dict[str, Any]] = [*spec.get("initContainers", []), *spec["containers"]]
    return found


def selects(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Whether a label selector (matchLabels and matchExpressions) selects ``labels``."""
    for key, value in selector.get("matchLabels", {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions", []):
        key, operator, values = expression["key"], expression["operator"], expression.get("values")
        present = key in labels
        ok = {
            "In": present and labels.get(key) in (values or []),
            "NotIn": not present or labels.get(key) not in (values or []),
            "Exists": present,
            "DoesNotExist": not present,
        }[operator]
        if not ok:
            return False
    return True


def console_scripts() -> dict[str, str]:
    """[project.scripts] of pyproject.toml: command -> "module:function"."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        scripts: dict[str, str] = tomllib.load(f)["project"].get("scripts", {})
    return scripts
