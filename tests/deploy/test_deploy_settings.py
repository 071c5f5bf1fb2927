"""The settings table of deploy/k8s/README.md ("Settings") against the code, both ways:
every variable a service reads is in it, every one in it is read, and a default written
in backticks is the one the code uses.

What a service reads is found by handing its ``from_env`` a mapping that records every
name asked for; a default is checked by reading the settings with the variable unset and
with it set to the documented value, which must give equal settings (found from outside:
the README named a third of the variables, and no rate limit, clock or bot setting).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from gateway.config import GatewaySettings
from services.battle.config import BattleSettings
from services.collection.config import CollectionSettings
from services.match.config import MatchSettings
from services.matchmaker.config import MatchmakerSettings
from services.rating.config import RatingSettings
from tests.deploy.deploy_manifests import K8S

READERS: dict[str, Callable[[Mapping[str, str]], Any]] = {
    "gateway": GatewaySettings.from_env,
    "match": MatchSettings.from_env,
    "matchmaker": MatchmakerSettings.from_env,
    "collection": CollectionSettings.from_env,
    "rating": RatingSettings.from_env,
    "battle": BattleSettings.from_env,
}
REQUIRED = {
    "TRIAD_DATABASE_URL": "postgresql://triad@db:5432/triad",
    "TRIAD_TOKEN_SECRET": "x" * 40,
    "TRIAD_GATEWAY_PLAINTEXT": "1",
}
"""What a service cannot start without (the gateway: a secret, and TLS or plaintext)."""


class Recording(dict[str, str]):
    """An environment that remembers every name asked of it."""

    def __init__(self, values: Mapping[str, str]) -> None:
        super().__init__(values)
        self.asked: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> str:
        self.asked.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return super().__contains__(key)


def read_by() -> dict[str, set[str]]:
    """Variable -> the services that read it."""
    found: dict[str, set[str]] = {}
    for service, read in READERS.items():
        env = Recording(REQUIRED)
        read(env)
        for name in env.asked:
            found.setdefault(name, set()).add(service)
    return found


def documented() -> dict[str, str | None]:
    """Variable -> its documented default (None: not a value, such as "unset")."""
    text = (K8S / "README.md").read_text()
    table = text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `TRIAD_")]
    assert rows, "no settings table in deploy/k8s/README.md"
    found: dict[str, str | None] = {}
    for row in rows:
        names_cell, default_cell = (c.strip() for c in row.strip("|").split("|")[:2])
        names = re.findall(r"`(TRIAD_[A-Z0-9_<>]+)`", names_cell)
        defaults: list[str | None] = list(re.findall(r"`([^`]*)`", default_cell))
        if not defaults:
            defaults = [None] * len(names)
        assert len(defaults) == len(names), row
        for name, default in zip(names, defaults, strict=True):
            for each in expand(name):
                found[each] = default
    return found


def expand(name: str) -> list[str]:
    if "<SERVICE>" not in name:
        return [name]
    return [name.replace("<SERVICE>", service.upper()) for service in READERS]


def test_every_setting_a_service_reads_is_in_the_readme_and_no_other() -> None:
    read, written = read_by(), documented()
    assert not set(read) - set(written), (
        f"read, not in the table: {sorted(set(read) - set(written))}"
    )
    assert not set(written) - set(read), (
        f"in the table, read by nothing: {sorted(set(written) - set(read))}"
    )


@pytest.mark.parametrize(
    "name", sorted(name for name, default in documented().items() if default is not None)
)
def test_a_documented_default_is_the_default(name: str) -> None:
    default = documented()[name]
    assert default is not None
    for service in sorted(read_by()[name]):
        read = READERS[service]
        unset = read({k: v for k, v in REQUIRED.items() if k != name})
        assert read({**REQUIRED, name: default}) == unset, (service, name, default)
