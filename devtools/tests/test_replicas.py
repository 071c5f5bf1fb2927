"""Replicas in the launcher (devtools/backend.py, make run's --replicas): how they
are asked for, named, placed and addressed. Starting them is tested with the whole
backend in tests/e2e/test_operator_consumers.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from devtools import run
from devtools.backend import Backend, BackendConfig
from devtools.topology import BackendError, parse_replicas


def test_replicas_are_asked_for_as_service_equals_count() -> None:
    assert parse_replicas("match=2, collection=3") == {"match": 2, "collection": 3}
    assert parse_replicas("") == {}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("match", "is not SERVICE=COUNT"),
        ("match=two", "is not SERVICE=COUNT"),
        ("matches=2", "matches: no such service; the services are match, matchmaker"),
        ("match=0", "a service runs 1 to 8 replicas"),
        ("match=9", "a service runs 1 to 8 replicas"),
    ],
)
def test_a_wrong_replica_count_is_refused_by_name(text: str, words: str) -> None:
    with pytest.raises(BackendError, match=words):
        parse_replicas(text)


def test_make_run_takes_replicas_from_its_flag_or_the_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TRIAD_REPLICAS", "rating=2")
    assert run.parse_args([]) == {"rating": 2}
    assert run.parse_args(["--replicas", "match=2,gateway=2"]) == {"match": 2, "gateway": 2}
    with pytest.raises(SystemExit):
        run.parse_args(["--replicas", "match=x"])
    assert "match=x" in capsys.readouterr().err


def test_each_replica_has_its_ports_and_the_callers_get_every_address(tmp_path: Path) -> None:
    backend = Backend(
        BackendConfig("postgresql://nowhere/x", "nats://nowhere:4222", tmp_path,
                      replicas={"match": 2, "collection": 3})
    )  # fmt: skip
    assert backend.replicas("match") == ("match", "match-2")
    assert backend.replicas("collection") == ("collection", "collection-2", "collection-3")
    assert backend.replicas("rating") == ("rating",)
    ports = {backend.address(name) for name in backend.names}
    assert len(ports) == len(backend.names) == 9
    matches = ",".join(backend.address(name) for name in backend.replicas("match"))
    rating = backend.address("rating")
    for caller in ("gateway", "matchmaker"):
        env = backend.env(caller)
        assert env["TRIAD_MATCH_ADDR"] == f"ipv4:{matches}"
        assert env["TRIAD_RATING_ADDR"] == rating
    for name in backend.replicas("collection"):
        env = backend.env(name)
        assert env["TRIAD_COLLECTION_PORT"] == backend.address(name).rsplit(":", 1)[1]
        assert env["TRIAD_COLLECTION_SCHEMA"] == backend.schema("collection")
    assert backend.log("collection-3").name == "collection-3.log"


def test_each_gateway_serves_the_browser_client_on_a_web_port_of_its_own(tmp_path: Path) -> None:
    backend = Backend(
        BackendConfig("postgresql://nowhere/x", "nats://nowhere:4222", tmp_path,
                      replicas={"gateway": 2})
    )  # fmt: skip
    webs = [backend.web_url(name) for name in backend.replicas("gateway")]
    assert len(set(webs)) == 2 and all(url.startswith("https://127.0.0.1:") for url in webs)
    for name, url in zip(backend.replicas("gateway"), webs, strict=True):
        env = backend.env(name)
        assert url.endswith(f":{env['TRIAD_GATEWAY_WEB_PORT']}")
        assert env["TRIAD_GATEWAY_WEB_ROOT"].endswith("web/dist")
    # Not a service's setting: only gateways have a web port.
    assert "TRIAD_GATEWAY_WEB_PORT" not in backend.env("match")


def test_make_runs_operator_line_names_a_section_the_deploy_readme_has() -> None:
    """Found from outside: make run pointed to a "Consumers" section of
    deploy/k8s/README.md, which has none."""
    readme = (Path(run.__file__).parents[1] / "deploy" / "k8s" / "README.md").read_text()
    assert f"\n## {run.REPLAYING}\n" in readme
