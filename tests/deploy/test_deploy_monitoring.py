"""Dashboards and alerts, checked offline: promtool checks and unit-tests the alert rules,
parses every PromQL expression of every dashboard, and the metric names agree both ways
with what the code registers."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from tests.deploy.deploy_manifests import (
    K8S,
    OPS_TOOLS_HINT,
    OVERLAYS,
    objects,
    render,
    selects,
    tool,
)
from tests.deploy.deploy_metrics import (
    Family,
    family_key,
    literal_names,
    registered_families,
    series_names,
)
from tests.deploy.deploy_promql import dashboard_expressions, load_dashboards, metric_names

MONITORING = K8S / "components" / "monitoring"
DASHBOARDS = MONITORING / "dashboards"
README = K8S / "README.md"

# Metrics a dashboard or alert may use although no code registers them yet: the names
# the issues of services still being built are to register. A name stays here only
# until its code lands; test_planned_metrics_are_not_registered_yet fails then, and
# the entry is removed. Name -> (type, who registers it and what it counts).
PLANNED: dict[str, tuple[str, str]] = {}

# Metrics of other exporters that alerts use. Name -> where they come from.
EXTERNAL: dict[str, str] = {
    "kube_pod_status_ready": "kube-state-metrics (kube-prometheus-stack): TriadPodNotReady",
    "kube_pod_status_phase": (
        "kube-state-metrics: TriadPodNotReady (running pods only), TriadPodPending"
    ),
    "up": "Prometheus's own, per scraped target: TriadMetricsUnreachable",
    "kubelet_volume_stats_available_bytes": "the kubelet (kube-prometheus-stack scrapes it)",
    "kubelet_volume_stats_capacity_bytes": "the kubelet: TriadVolumeFilling",
    "jetstream_server_total_message_bytes": "the NATS exporter sidecar: TriadJetStreamStoreFilling",
    "jetstream_server_max_storage": "the NATS exporter sidecar: TriadJetStreamStoreFilling",
    "cnpg_collector_last_available_backup_timestamp": (
        "CloudNativePG's exporter on each PostgreSQL instance: TriadDatabaseBackupStale"
    ),
    "cnpg_collector_last_failed_backup_timestamp": (
        "CloudNativePG's exporter on each PostgreSQL instance: TriadDatabaseBackupFailing"
    ),
    "cnpg_backends_total": (
        "CloudNativePG's exporter (default queries, backends): TriadDatabaseConnectionsHigh"
    ),
    "cnpg_pg_settings_setting": (
        "CloudNativePG's exporter (default queries, pg_settings): TriadDatabaseConnectionsHigh"
    ),
}


def promtool() -> str:
    return tool("promtool", OPS_TOOLS_HINT, ops_tool=True)


def alert_rules() -> dict[str, Any]:
    rule: dict[str, Any] = yaml.safe_load((MONITORING / "alerts.yaml").read_text())
    return rule


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture(scope="module")
def rules_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The PrometheusRule's groups as a Prometheus rule file, beside the promtool tests."""
    directory = tmp_path_factory.mktemp("rules")
    (directory / "alerts.rules.yaml").write_text(yaml.safe_dump(alert_rules()["spec"]))
    (directory / "alerts-test.yaml").write_text((MONITORING / "alerts-test.yaml").read_text())
    return directory


def test_promtool_checks_the_alert_rules(rules_dir: Path) -> None:
    checked = run(promtool(), "check", "rules", "alerts.rules.yaml", cwd=rules_dir)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_promtool_unit_tests_of_the_alerts_pass(rules_dir: Path) -> None:
    tested = run(promtool(), "test", "rules", "alerts-test.yaml", cwd=rules_dir)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def alerts() -> list[dict[str, Any]]:
    return [r for g in alert_rules()["spec"]["groups"] for r in g["rules"] if "alert" in r]


def test_every_alert_is_unit_tested_and_has_a_runbook() -> None:
    tests = yaml.safe_load((MONITORING / "alerts-test.yaml").read_text())["tests"]
    tested = {case["alertname"] for t in tests for case in t.get("alert_rule_test", [])}
    fired = {
        case["alertname"]
        for t in tests
        for case in t.get("alert_rule_test", [])
        if case.get("exp_alerts")
    }
    headings = {
        re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
        for h in re.findall(r"^#+\s+(.+?)\s*$", README.read_text(), re.M)
    }
    required = {
        "TriadRpcErrorRate",
        "TriadRpcLatencyHigh",
        "TriadOutboxLag",
        "TriadConsumerLag",
        "TriadPendingTradeStuck",
        "TriadNoPairingProgress",
        "TriadPodNotReady",
        "TriadPodPending",
        "TriadDatabaseConnectionsHigh",
    }
    names = {rule["alert"] for rule in alerts()}
    assert required <= names
    for rule in alerts():
        name = rule["alert"]
        assert name in fired, f"{name}: no promtool test makes it fire"
        assert name in tested
        anchor = rule["annotations"]["runbook_url"].removeprefix("deploy/k8s/README.md#")
        assert anchor == name.lower() and anchor in headings, f"{name}: no runbook section"
        assert rule["labels"]["severity"] in {"warning", "critical"}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_runbook_url_opens_from_a_page(overlay: str) -> None:
    """Alertmanager's receivers (a Slack button, a PagerDuty link, a mail) and Grafana's
    alert list open runbook_url as it is: a relative path opens nowhere. Rendered, each
    is the address of this README that the overlay's runbooks.yaml gives, and the
    alert's anchor."""
    (rule,) = objects(overlay, "PrometheusRule").values()
    for group in rule["spec"]["groups"]:
        for alert in (r for r in group["rules"] if "alert" in r):
            url = urlsplit(alert["annotations"]["runbook_url"])
            assert url.scheme == "https" and url.netloc, f"{alert['alert']}: {url.geturl()}"
            assert url.path.endswith("/deploy/k8s/README.md"), url.geturl()
            assert url.fragment == alert["alert"].lower()


def test_runbook_commands_read_every_pod_and_the_current_primary() -> None:
    """In production every service runs several pods and CloudNativePG moves the primary
    on a failover: ``kubectl logs deploy/X`` alone reads one pod (``Found 3 pods, using
    pod/...``), so a grep misses what the others logged, and psql in ``triad-db-1``
    may be a replica, whose sessions are not the primary's (``pg_terminate_backend`` of
    a pid the relays logged then ends another process, or none)."""
    text = " ".join(README.read_text().split())
    commands = re.findall(r"`([^`]*kubectl [^`]*)`", text)
    logs = [c for c in commands if re.search(r" logs (deploy|deployment|statefulset)/", c)]
    psql = [c for c in commands if " exec " in c and "psql" in c]
    assert logs and psql
    for command in logs:
        assert "--all-pods" in command, command
    for command in psql:
        assert "$PRIMARY" in command or "currentPrimary" in command, command
    primary = "kubectl -n triad get cluster triad-db -o jsonpath='{.status.currentPrimary}'"
    assert f"PRIMARY=$({primary})" in text


def test_every_dashboard_expression_parses(tmp_path: Path) -> None:
    """promtool parses PromQL only in rule files: one recording rule per expression."""
    rules = []
    where = {}
    for name, dashboard in load_dashboards(DASHBOARDS).items():
        for i, expression in enumerate(dashboard_expressions(dashboard, name)):
            record = re.sub(r"\W", "_", f"dashboard:{Path(name).stem}:{i}")
            rules.append({"record": record, "expr": expression.expr})
            where[record] = expression
    assert len(rules) > 50
    path = tmp_path / "dashboards.rules.yaml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboards", "rules": rules}]}))
    checked = run(promtool(), "check", "rules", path.name, cwd=tmp_path)
    output = checked.stdout + checked.stderr
    for record, expression in where.items():
        output = output.replace(record, f"{record} ({expression.where}: {expression.expr})")
    assert checked.returncode == 0, output


def test_dashboards_are_well_formed_grafana_models() -> None:
    dashboards = load_dashboards(DASHBOARDS)
    assert set(dashboards) == {
        "overview.json",
        "matches.json",
        "battles.json",
        "matchmaking.json",
        "economy.json",
        "event-pipeline.json",
    }
    uids = [d["uid"] for d in dashboards.values()]
    assert len(set(uids)) == len(uids)
    for name, dashboard in dashboards.items():
        panels = dashboard["panels"]
        ids = [p["id"] for p in panels]
        assert len(set(ids)) == len(ids), name
        variables = {v["name"] for v in dashboard["templating"]["list"]}
        assert {"datasource", "namespace"} <= variables, name
        for panel in panels:
            assert panel["title"] and panel["gridPos"]["w"] <= 24, (name, panel["id"])
            for target in panel.get("targets", []):
                assert target["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
                assert 'namespace="$namespace"' in target["expr"], (name, panel["title"])


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_dashboards_and_rules_are_selected_by_grafana_and_prometheus(overlay: str) -> None:
    maps = objects(overlay, "ConfigMap")
    for file in load_dashboards(DASHBOARDS):
        config_map = maps[f"triad-dashboard-{Path(file).stem}"]
        assert config_map["metadata"]["labels"]["grafana_dashboard"] == "1"
        assert config_map["data"][file] == (DASHBOARDS / file).read_text()
    for kind in ("PodMonitor", "PrometheusRule"):
        for obj in objects(overlay, kind).values():
            assert obj["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    # Each PodMonitor selects running pods that have the port it scrapes.
    templates = [
        o["spec"]["template"] for o in render(overlay) if o["kind"] in ("Deployment", "StatefulSet")
    ]
    cnpg_instance = {
        "metadata": {"labels": {"cnpg.io/cluster": "triad-db", "cnpg.io/podRole": "instance"}},
        "spec": {"containers": [{"ports": [{"name": "metrics"}]}]},
    }
    for monitor in objects(overlay, "PodMonitor").values():
        spec = monitor["spec"]
        chosen = [
            t
            for t in (*templates, cnpg_instance)
            if selects(spec["selector"], t["metadata"]["labels"])
        ]
        assert chosen, monitor["metadata"]["name"]
        for template in chosen:
            ports = {p.get("name") for c in template["spec"]["containers"] for p in c["ports"]}
            for endpoint in spec["podMetricsEndpoints"]:
                assert endpoint["port"] in ports, monitor["metadata"]["name"]


# ---------------------------------------------------------------- metric names


def used_metrics() -> dict[str, set[str]]:
    """Metric name -> where it is used, over every dashboard and alert."""
    used: dict[str, set[str]] = {}
    for name, dashboard in load_dashboards(DASHBOARDS).items():
        for expression in dashboard_expressions(dashboard, name):
            for metric in metric_names(expression.expr):
                used.setdefault(metric, set()).add(f"dashboard {name}")
    for rule in alerts():
        for metric in metric_names(rule["expr"]):
            used.setdefault(metric, set()).add(f"alert {rule['alert']}")
    return used


@pytest.fixture(scope="module")
def families() -> list[Family]:
    return registered_families()


def test_metric_discovery_finds_every_metric_written_in_the_code(families: list[Family]) -> None:
    found = {family_key(f.name, f.type) for f in families}
    missed = {
        name: module
        for name, module in literal_names().items()
        if name not in found and name.removesuffix("_total") not in found
    }
    assert not missed, f"constructed in code but not found by importing it: {missed}"
    assert len(found) >= 20


def test_every_metric_a_dashboard_or_alert_uses_is_registered_by_the_code(
    families: list[Family],
) -> None:
    registered = {series for family in families for series in family.series}
    planned = {s for name, (kind, _) in PLANNED.items() for s in series_names(name, kind)}
    unknown = {
        metric: sorted(where)
        for metric, where in used_metrics().items()
        if metric not in registered | planned | set(EXTERNAL)
    }
    assert not unknown, (
        f"used but registered by no code (misspelled? or add it to PLANNED): {unknown}"
    )


def test_every_metric_the_code_registers_is_on_a_dashboard(families: list[Family]) -> None:
    on_dashboards = {
        metric
        for metric, where in used_metrics().items()
        if any(w.startswith("dashboard") for w in where)
    }
    missing = {f.name: f.source for f in families if not (f.series & on_dashboards)}
    assert not missing, f"registered but shown on no dashboard: {missing}"


def test_planned_metrics_are_not_registered_yet(families: list[Family]) -> None:
    registered = {family_key(f.name, f.type) for f in families}
    landed = [name for name, (kind, _) in PLANNED.items() if family_key(name, kind) in registered]
    assert not landed, f"now registered by the code: remove from PLANNED: {landed}"
    used = used_metrics()
    for name, (kind, _) in PLANNED.items():
        assert series_names(name, kind) & set(used), f"{name} is planned but used nowhere"
    for name in EXTERNAL:
        assert name in used and name not in registered, name


def overview_panel_reads(
    tmp_path: Path, title: str, service: str, series: dict[str, str], value: float
) -> None:
    """Overview's panel ``title``, as Grafana asks it with ``service`` chosen, reads
    ``value`` at 10 minutes over ``series`` (series -> promtool values), by promtool."""
    overview = load_dashboards(DASHBOARDS)["overview.json"]
    (panel,) = (p for p in overview["panels"] if p.get("title") == title)
    expr = panel["targets"][0]["expr"]
    for variable, chosen in {"namespace": "triad", "service": service}.items():
        expr = expr.replace(f"${variable}", chosen).replace("$__rate_interval", "5m")
    unit = {
        "rule_files": [],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [{"series": k, "values": v} for k, v in series.items()],
                "promql_expr_test": [
                    {"expr": expr, "eval_time": "10m", "exp_samples": [{"value": value}]}
                ],
            }
        ],
    }
    (tmp_path / "panel-test.yaml").write_text(yaml.safe_dump(unit))
    tested = run(promtool(), "test", "rules", "panel-test.yaml", cwd=tmp_path)
    assert tested.returncode == 0, f"{expr}\n{tested.stdout}{tested.stderr}"


def test_the_server_error_ratio_reads_zero_when_nothing_fails(tmp_path: Path) -> None:
    """Overview's "Server error ratio" on a backend that answers every call, some of them
    with a client's mistake, is 0 %, not "No data" (found from outside: no failure had
    ever been counted, so the ratio's numerator had no series and the panel stayed
    empty on a healthy backend)."""
    series = 'triad_rpc_total{namespace="triad",service="triad.v1.MatchService",method="PlaceCard"'
    calls = {series + ',code="OK"}': "0+600x10", series + ',code="FAILED_PRECONDITION"}': "0+6x10"}
    overview_panel_reads(tmp_path, "Server error ratio", ".+", calls, 0)


def test_the_readme_names_every_external_metric() -> None:
    """deploy/k8s/README.md tells what Prometheus must scrape besides our pods."""
    checks = README.read_text().split("## Offline checks", 1)[1].split("\n## ", 1)[0]
    for name in EXTERNAL:
        assert f"`{name}`" in checks, name


def test_the_overview_counts_the_games_calls_not_the_health_probes(tmp_path: Path) -> None:
    """Found in review: with every service selected ("All"), Overview's requests per
    second counted the health checks of Kubernetes' probes beside the players' calls."""
    overview = load_dashboards(DASHBOARDS)["overview.json"]
    (choice,) = (v for v in overview["templating"]["list"] if v["name"] == "service")
    calls = 'triad_rpc_total{namespace="triad",code="OK",service='
    series = {
        calls + '"triad.v1.MatchService",method="PlaceCard"}': "0+600x10",
        calls + '"grpc.health.v1.Health",method="Check"}': "0+6000x10",
    }
    overview_panel_reads(tmp_path, "Requests per second", choice["allValue"], series, 10)
