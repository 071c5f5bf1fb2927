"""The Prometheus metrics the code registers, found by running the code that registers them.

A module defines metrics if its source calls a prometheus_client constructor. Each
such module under ``services/`` and ``gateway/`` is imported; its module-level metrics
(``MATCHES = Counter(...)``, registered in the default registry at import) are read
from the module, and each of its classes with a ``register(registry)`` classmethod
(``RpcMetrics``, ``RelayMetrics``, ``ConsumerMetrics``...) registers into a fresh
``CollectorRegistry``. A name written literally in a constructor but not found that
way fails loudly, so a metric made some other way cannot slip past the dashboards.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from prometheus_client import CollectorRegistry, Metric
from prometheus_client.metrics import MetricWrapperBase

ROOT = Path(__file__).resolve().parents[2]
CODE = ("services", "gateway")
_CONSTRUCTOR = re.compile(r"\b(?:Counter|Gauge|Histogram|Summary|Info|Enum)\(")
_LITERAL_NAME = re.compile(
    r"\b(?:Counter|Gauge|Histogram|Summary|Info|Enum)\(\s*\"([a-zA-Z_:][a-zA-Z0-9_:]*)\""
)


@dataclass(frozen=True, slots=True)
class Family:
    """A metric as registered: its family name and type, e.g. ("triad_rpc", "counter")."""

    name: str
    type: str
    source: str

    @property
    def series(self) -> frozenset[str]:
        """The names its samples carry, the ones PromQL selects."""
        return series_names(self.name, self.type)


def series_names(name: str, kind: str) -> frozenset[str]:
    """Sample names of a family; counters may be given with or without ``_total``."""
    if kind == "counter":
        base = name.removesuffix("_total")
        return frozenset({f"{base}_total"})
    if kind == "histogram":
        return frozenset({f"{name}_bucket", f"{name}_sum", f"{name}_count"})
    if kind == "summary":
        return frozenset({name, f"{name}_sum", f"{name}_count"})
    if kind == "info":
        return frozenset({f"{name.removesuffix('_info')}_info"})
    return frozenset({name})


def family_key(name: str, kind: str) -> str:
    return name.removesuffix("_total") if kind == "counter" else name


def metric_modules() -> list[str]:
    """Dotted names of the modules (tests excluded) whose source constructs metrics."""
    modules = []
    for top in CODE:
        for path in sorted((ROOT / top).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if "tests" in relative.parts or path.name.startswith("test_"):
                continue
            if _CONSTRUCTOR.search(path.read_text()):
                modules.append(".".join(relative.with_suffix("").parts))
    return modules


def literal_names() -> dict[str, str]:
    """Metric names written as a constructor's first argument -> the file they are in."""
    found = {}
    for module in metric_modules():
        path = ROOT / (module.replace(".", "/") + ".py")
        for name in _LITERAL_NAME.findall(path.read_text()):
            found[name] = module
    return found


def registered_families() -> list[Family]:
    """Every metric family the code registers (see the module docstring)."""
    families: list[Family] = []
    for module_name in metric_modules():
        module = importlib.import_module(module_name)
        for attribute, value in vars(module).items():
            if isinstance(value, MetricWrapperBase):
                families += _families(value.describe(), f"{module_name}.{attribute}")
            elif _registers_itself(value, module_name):
                registry = CollectorRegistry(auto_describe=True)
                value.register(registry)
                families += _families(registry.collect(), f"{module_name}.{attribute}")
    return families


def _registers_itself(value: object, module_name: str) -> bool:
    """A class of the module with a ``register`` classmethod of its own taking the
    registry (not ABCMeta.register, which every Protocol and abstract class has)."""
    return (
        inspect.isclass(value)
        and value.__module__ == module_name
        and isinstance(inspect.getattr_static(value, "register", None), classmethod)
    )


def _families(metrics: Iterable[Metric], source: str) -> list[Family]:
    return [Family(m.name, m.type, source) for m in metrics]


def registered_labels() -> dict[str, frozenset[str]]:
    """Every sample name the code registers -> the label names its samples carry
    (``le`` for a histogram's buckets comes on top)."""
    labels: dict[str, frozenset[str]] = {}

    def add(wrapper: MetricWrapperBase) -> None:
        names = frozenset(wrapper._labelnames)
        for family in _families(wrapper.describe(), ""):
            for series in family.series:
                labels[series] = names | ({"le"} if series.endswith("_bucket") else set())

    for module_name in metric_modules():
        module = importlib.import_module(module_name)
        for value in vars(module).values():
            if isinstance(value, MetricWrapperBase):
                add(value)
            elif _registers_itself(value, module_name):
                registry = CollectorRegistry(auto_describe=True)
                value.register(registry)
                for collector in list(registry._collector_to_names):
                    if isinstance(collector, MetricWrapperBase):
                        add(collector)
    return labels
