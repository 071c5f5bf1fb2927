"""PromQL of the dashboards and alerts: where the expressions are, and which metrics they name.

promtool checks that an expression parses (tests/deploy/test_deploy_monitoring.py); this
module only finds the expressions and lists the metric names in them, which promtool
does not print. PromQL's grammar makes that a small job: once strings, label matchers,
ranges and grouping clauses are removed, an identifier is a function if a parenthesis
follows it, a keyword if it is one, and otherwise a metric name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Grafana's variables, replaced by values of the same syntactic kind.
GRAFANA_RANGES = {"__rate_interval": "5m", "__interval": "1m", "__range": "1h"}
GRAFANA_RANGE_VALUE = "5m"
GRAFANA_VALUE = ".+"
_GRAFANA_VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]")

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_MATCHERS = re.compile(r"\{[^{}]*\}")
_RANGE = re.compile(r"\[[^\[\]]*\]")
_GROUPING = re.compile(
    r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)", re.IGNORECASE
)
_OFFSET = re.compile(r"\boffset\s+-?[0-9a-z]+", re.IGNORECASE)
_AT = re.compile(r"@\s*(?:start\(\)|end\(\)|[0-9.]+)")
_NUMBER = re.compile(r"(?<![\w:])(?:0x[0-9a-f]+|[0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)", re.I)
_IDENTIFIER = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
KEYWORDS = frozenset(
    {
        "and",
        "or",
        "unless",
        "bool",
        "by",
        "without",
        "on",
        "ignoring",
        "group_left",
        "group_right",
        "offset",
        "inf",
        "nan",
        "atan2",
    }
)


def substitute_grafana_variables(expr: str) -> str:
    """A PromQL expression Prometheus can parse, from one with Grafana variables in it."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2) or match.group(3)
        if name in GRAFANA_RANGES:
            return GRAFANA_RANGES[name]
        # Inside [...] a variable stands for a duration, elsewhere for a label value.
        inside_range = expr.rfind("[", 0, match.start()) > expr.rfind("]", 0, match.start())
        return GRAFANA_RANGE_VALUE if inside_range else GRAFANA_VALUE

    return _GRAFANA_VARIABLE.sub(value, expr)


def metric_names(expr: str) -> set[str]:
    """The metric names an expression selects, e.g. ``{"triad_rpc_total"}``.

    Names given as ``{__name__="..."}`` are found too; a regex on ``__name__`` is not
    supported (none of ours uses one) and raises, so it cannot hide a metric.
    """
    names = set(re.findall(r'__name__\s*=\s*"([^"]+)"', expr))
    if re.search(r"__name__\s*(?:!=|=~|!~)", expr):
        raise ValueError(f'only __name__="..." is supported: {expr}')
    text = _STRING.sub('""', expr)
    text = _MATCHERS.sub(" ", text)
    previous = None
    while previous != text:  # nested subqueries: [5m:1m] inside [...]
        previous, text = text, _RANGE.sub(" ", text)
    text = _GROUPING.sub(" ", text)
    text = _OFFSET.sub(" ", text)
    text = _AT.sub(" ", text)
    text = _NUMBER.sub(" ", text)
    for match in _IDENTIFIER.finditer(text):
        word = match.group()
        if word.lower() in KEYWORDS:
            continue
        if re.match(r"\s*\(", text[match.end() :]):
            continue  # a function or an aggregation
        names.add(word)
    return names


_LABEL_VALUES = re.compile(r"^\s*label_values\((.*),\s*\w+\s*\)\s*$", re.S)
_QUERY_RESULT = re.compile(r"^\s*query_result\((.*)\)\s*$", re.S)


@dataclass(frozen=True, slots=True)
class Expression:
    """One PromQL expression of a dashboard, and where it is (for failure messages)."""

    where: str
    expr: str


def dashboard_expressions(dashboard: Mapping[str, Any], name: str) -> Iterator[Expression]:
    """Every PromQL expression of a Grafana dashboard: panel targets (rows included)
    and the selectors of query variables (``label_values(metric{...}, label)``)."""
    for panel in _panels(dashboard.get("panels", [])):
        for target in panel.get("targets", []):
            if "expr" in target:
                where = f"{name}: panel {panel.get('title')!r} target {target.get('refId')}"
                yield Expression(where, substitute_grafana_variables(target["expr"]))
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        query = variable.get("query")
        text = query.get("query", "") if isinstance(query, dict) else str(query or "")
        for pattern in (_LABEL_VALUES, _QUERY_RESULT):
            match = pattern.match(text)
            if match:
                where = f"{name}: variable {variable.get('name')!r}"
                yield Expression(where, substitute_grafana_variables(match.group(1)))
                break


def _panels(panels: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for panel in panels:
        yield panel
        yield from _panels(panel.get("panels", []))


def load_dashboards(directory: Path) -> dict[str, dict[str, Any]]:
    """file name -> dashboard model, for every ``*.json`` in ``directory``."""
    return {path.name: json.loads(path.read_text()) for path in sorted(directory.glob("*.json"))}
