"""The integration, end-to-end and chaos tests are integration tests, every one of them,
whatever fixtures they ask for (they start processes of their own)."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REAL = tuple(HERE / name for name in ("integration", "e2e", "chaos"))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if any(Path(item.path).resolve().is_relative_to(d) for d in REAL):
            item.add_marker(pytest.mark.integration)
