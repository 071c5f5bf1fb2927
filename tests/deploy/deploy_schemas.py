"""Strict schema validation of rendered manifests, core kinds and custom resources alike.

Kubernetes' own kinds are checked by kubernetes-validate (PyPI) in strict mode: an
unknown field anywhere fails. It has no schemas for custom resources, so the ones we
use (CloudNativePG ``Cluster`` and ``ScheduledBackup``, Prometheus Operator ``PodMonitor`` and
``PrometheusRule``) are checked against the ``openAPIV3Schema`` of their CRDs, vendored
in ``deploy/k8s/schemas/`` (descriptions stripped) and made strict the same way:
``additionalProperties: false`` wherever the CRD lists properties and does not keep
unknown fields.

Refresh a vendored schema from a CRD file of a new operator release::

    .venv/bin/python -m tests.deploy.deploy_schemas path/to/crd.yaml "operator vX.Y.Z, path"
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

try:
    import jsonschema  # type: ignore[import-untyped]
    import kubernetes_validate  # type: ignore[import-untyped]
except ModuleNotFoundError as missing:  # pragma: no cover - a setup problem, said plainly
    raise ModuleNotFoundError(
        f"{missing.name} is missing: kubernetes-validate is a dev dependency in "
        "pyproject.toml (make venv installs it)"
    ) from missing

SCHEMAS = Path(__file__).resolve().parents[2] / "deploy" / "k8s" / "schemas"

# The oldest Kubernetes the manifests support: native gRPC probes (1.27) and the
# preStop sleep action (1.30).
KUBERNETES_VERSION = "1.30.0"


class ManifestError(AssertionError):
    """A rendered object does not match its schema; the message says where and why."""


def schema_file_name(api_version: str, kind: str) -> str:
    group, _, version = api_version.rpartition("/")
    return f"{group}_{version}_{kind}.json"


@functools.cache
def custom_schemas() -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) -> strict JSON schema, for every vendored CRD schema."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(SCHEMAS.glob("*.json")):
        group, version, kind = path.stem.split("_")
        schema = strict(json.loads(path.read_text()))
        # A CRD leaves metadata open (the API server checks it); check it here.
        schema["properties"]["metadata"] = OBJECT_META
        found[(f"{group}/{version}", kind)] = schema
    return found


_STRINGS = {"type": "object", "additionalProperties": {"type": "string"}}
OBJECT_META = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name"],
    "properties": {
        "name": {"type": "string"},
        "namespace": {"type": "string"},
        "labels": _STRINGS,
        "annotations": _STRINGS,
    },
}


def strict(schema: Any) -> Any:
    """The schema with unknown properties refused wherever the CRD enumerates them."""
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: strict(value) for key, value in schema.items()}
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not out.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


def validate(obj: Mapping[str, Any]) -> None:
    """Raise ManifestError unless ``obj`` matches its schema strictly."""
    name = f"{obj.get('kind')}/{obj.get('metadata', {}).get('name')}"
    key = (str(obj.get("apiVersion")), str(obj.get("kind")))
    schema = custom_schemas().get(key)
    if schema is not None:
        errors = sorted(
            jsonschema.Draft7Validator(schema).iter_errors(obj), key=lambda e: list(e.path)
        )
        if errors:
            first = errors[0]
            where = ".".join(str(part) for part in first.path)
            raise ManifestError(f"{name}: {where}: {first.message}")
        return
    try:
        kubernetes_validate.validate(dict(obj), KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as error:
        where = ".".join(str(part) for part in error.path)
        raise ManifestError(f"{name}: {where}: {error.message}") from None
    except kubernetes_validate.SchemaNotFoundError:
        raise ManifestError(
            f"{name}: no schema for {key[0]} {key[1]}: neither a Kubernetes kind nor a "
            f"custom resource vendored in {SCHEMAS} (see this module's docstring)"
        ) from None


def strip_descriptions(schema: Any) -> Any:
    if isinstance(schema, list):
        return [strip_descriptions(item) for item in schema]
    if isinstance(schema, dict):
        return {k: strip_descriptions(v) for k, v in schema.items() if k != "description"}
    return schema


def vendor(crd_path: Path, source: str) -> list[Path]:
    """Write the served versions of a CRD as schema files; returns their paths."""
    crd = yaml.safe_load(crd_path.read_text())
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
    written = []
    for version in crd["spec"]["versions"]:
        if not version.get("served"):
            continue
        schema = strip_descriptions(version["schema"]["openAPIV3Schema"])
        schema["$comment"] = f"openAPIV3Schema of {kind} {group}/{version['name']} from {source}"
        path = SCHEMAS / schema_file_name(f"{group}/{version['name']}", kind)
        path.write_text(json.dumps(schema, sort_keys=True, separators=(",", ":")) + "\n")
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in vendor(Path(sys.argv[1]), sys.argv[2]):
        print(written_path)
