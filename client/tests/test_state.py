"""The state file of tokens, one entry per ``--profile``, shared by the clients a person
runs in several terminals."""

from __future__ import annotations

from pathlib import Path

from triad.v1 import gateway_pb2 as g

from client.connection import State


def tokens(tag: str) -> g.AuthTokens:
    return g.AuthTokens(access_token=f"access-{tag}", refresh_token=f"refresh-{tag}")


def test_a_profiles_refresh_keeps_what_another_profile_wrote_meanwhile(tmp_path: Path) -> None:
    """Found from outside: two players queued from one state file (README: --profile),
    and each refresh wrote back the whole file as read at start: bea's put back ann's
    spent refresh token, and ann's next command was told to log in again."""
    path = tmp_path / "state.json"
    State(path, "default").save(g.Player(player_id="a", player_name="ann"), tokens("a1"))
    State(path, "bea").save(g.Player(player_id="b", player_name="bea"), tokens("b1"))
    ann, bea = State(path, "default"), State(path, "bea")  # two terminals, read at start
    ann.update(tokens("a2"))  # ann's client refreshes
    bea.update(tokens("b2"))  # then bea's
    now = State(path, "default")
    assert now.tokens["refresh_token"] == "refresh-a2"
    assert State(path, "bea").tokens["refresh_token"] == "refresh-b2"
    bea.forget()
    assert State(path, "default").tokens["refresh_token"] == "refresh-a2"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
