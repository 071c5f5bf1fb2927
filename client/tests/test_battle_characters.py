"""``battle --characters a,b,c`` picks the team of a practice battle; the Battle queue
and battle tables take no team (CreateTable's settings.battle, JoinTable and Enqueue
carry none: the server gives each player three at random), so with ``--host``,
``--challenge``, ``--join`` or ``--queue`` the flag is refused before anything is sent
(found from outside: `battle --host --characters a,b,c` opened a table, and the battle
drew another team)."""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from rich.console import Console

from client.battle_start import start
from client.connection import ClientError


class Nothing:
    """A gateway no call may reach."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"{name} was called: the flag is refused before any call")


class Caller:
    stub = Nothing()

    async def call(self, method: Any, request: Any) -> Any:
        return await method(request)


@pytest.mark.parametrize(
    ("option", "given"),
    [("join", "8265acae"), ("host", True), ("challenge", "bea"), ("queue", True)],
)
async def test_characters_with_a_table_or_the_queue_are_refused_not_ignored(
    option: str, given: object
) -> None:
    args = argparse.Namespace(
        join=None, host=False, challenge=None, queue=False, characters="ember,moss,volt"
    )
    setattr(args, option, given)
    with pytest.raises(ClientError, match=f"--{option} takes no --characters") as refused:
        await start(Caller(), args, Console())  # type: ignore[arg-type]
    assert "leave --characters out" in str(refused.value)
