"""Every label a dashboard or an alert selects or groups by is one its metrics carry.

test_deploy_monitoring.py holds the metric names to the code; a label misspelt in a
panel exported from Grafana (``sum by (mdoe)``, ``{outcome="start"}``'s key) still
parses and silently draws one line or none. Labels are read from the code the way the
names are (tests/deploy/deploy_metrics.py); the scrape adds the target's own.
"""

from __future__ import annotations

import re

import pytest
import yaml

from tests.deploy.deploy_manifests import K8S
from tests.deploy.deploy_metrics import registered_labels
from tests.deploy.deploy_promql import dashboard_expressions, load_dashboards, metric_names
from tests.deploy.test_deploy_monitoring import EXTERNAL

MONITORING = K8S / "components" / "monitoring"
DASHBOARDS = MONITORING / "dashboards"
TARGET_LABELS = frozenset({"namespace", "pod", "job", "instance", "container", "endpoint"})
"""What the PodMonitor's scrape adds to every sample (the Prometheus Operator)."""

_SELECTOR = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^{}]*)\}")
_MATCHER = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)")
_CLAUSE = re.compile(r"\b(?:by|without|on|ignoring)\s*\(([^()]*)\)", re.IGNORECASE)


def expressions() -> list[tuple[str, str]]:
    found = [
        (e.where, e.expr)
        for name, dashboard in load_dashboards(DASHBOARDS).items()
        for e in dashboard_expressions(dashboard, name)
    ]
    rules = yaml.safe_load((MONITORING / "alerts.yaml").read_text())["spec"]["groups"]
    found += [(f"alert {r['alert']}", r["expr"]) for g in rules for r in g["rules"]]
    return found


EXTERNAL_LABELS: dict[str, frozenset[str]] = {
    "kube_pod_status_ready": frozenset({"namespace", "pod", "condition"}),
    "kube_pod_status_phase": frozenset({"namespace", "pod", "phase"}),
    "up": frozenset(),
    "kubelet_volume_stats_available_bytes": frozenset({"namespace", "persistentvolumeclaim"}),
    "kubelet_volume_stats_capacity_bytes": frozenset({"namespace", "persistentvolumeclaim"}),
    "jetstream_server_total_message_bytes": frozenset({"server_id", "server_name", "cluster"}),
    "jetstream_server_max_storage": frozenset({"server_id", "server_name", "cluster"}),
    "cnpg_collector_last_available_backup_timestamp": frozenset(),
    "cnpg_collector_last_failed_backup_timestamp": frozenset(),
    "cnpg_backends_total": frozenset({"datname", "usename", "application_name", "state"}),
    "cnpg_pg_settings_setting": frozenset({"name"}),
}
"""The labels of the other exporters' metrics the alerts read (kube-state-metrics, the
kubelet, the NATS exporter's jsz collector, CloudNativePG's instance exporter), as those
exporters document them."""

LABELS = {**registered_labels(), **EXTERNAL_LABELS}


@pytest.mark.parametrize(("where", "expr"), expressions())
def test_every_label_used_is_carried_by_the_metrics(where: str, expr: str) -> None:
    metrics = metric_names(expr)
    if not metrics <= set(LABELS):
        pytest.skip(f"{where}: another exporter's metrics ({sorted(metrics - set(LABELS))})")
    for metric, matchers in _SELECTOR.findall(expr):
        for label in _MATCHER.findall(matchers):
            assert label in LABELS[metric] | TARGET_LABELS, f"{where}: {metric} has no {label}"
    carried = set().union(*(LABELS[m] for m in metrics)) | TARGET_LABELS
    for clause in _CLAUSE.findall(expr):
        for label in (part.strip() for part in clause.split(",") if part.strip()):
            assert label in carried, f"{where}: no metric of {expr!r} carries {label}"


def test_every_external_metric_has_its_labels_written_down() -> None:
    assert set(EXTERNAL_LABELS) == set(EXTERNAL)
