"""Small figures the benchmarks compute the same way, so that a p99 or a rounded table
in one report means what it means in another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def percentile(values: Sequence[float], p: float) -> float:
    """The ``p``th percentile (0..100) of ``values``: the sorted value at the nearest
    index to ``p`` % of the way from the least to the greatest, never interpolated; NaN
    when there are none."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return float(ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))])


def rounded(values: Mapping[str, float], digits: int) -> dict[str, float]:
    """Each value of ``values`` rounded to ``digits``, for a report."""
    return {name: round(value, digits) for name, value in values.items()}
