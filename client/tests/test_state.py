"""The state file of tokens, one entry per ``--profile``, shared by the clients a person
runs in several terminals."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from client.connection import Client, CommandError, State, password
from client.main import main, parser, run


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


def test_the_tokens_are_never_written_to_a_file_others_may_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found from outside: the state file was written readable by all (the umask's
    0644), then narrowed to 0600: in between, and for good if the narrowing never came,
    another user could read the refresh token. Created private, even over a stale
    .new, and never through a link planted in its place."""
    monkeypatch.setattr(Path, "chmod", lambda self, mode: None)  # no narrowing after
    old = os.umask(0o022)
    try:
        path = tmp_path / "state.json"
        stale = path.with_name("state.json.new")
        stale.write_text("{}")
        os.chmod(stale, 0o644)
        State(path, "default").save(g.Player(player_id="a", player_name="ann"), tokens("a1"))
        assert oct(path.stat().st_mode & 0o777) == "0o600"
        elsewhere = tmp_path / "elsewhere"
        stale.symlink_to(elsewhere)
        with pytest.raises(OSError):
            State(path, "default").update(tokens("a2"))
        assert not elsewhere.exists()
    finally:
        os.umask(old)


def test_register_with_a_state_file_it_cannot_write_stops_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: TRIAD_CLIENT_STATE in a directory that does not exist: the
    account was registered, then the tokens could not be kept (the name taken, the
    player told 'No such file or directory'). Now nothing is sent: no server runs here,
    and the answer is about the file, not the gateway."""
    state = tmp_path / "missing" / "state.json"
    argv = ["--state", str(state), "--addr", "127.0.0.1:9", "register", "ann"]
    assert main([*argv, "--password", "password-ann-1"]) == 2
    said = capsys.readouterr().err
    assert "No such file or directory" in said and "state.json.lock" in said, said
    assert "gateway" not in said, said


def test_a_kept_request_id_leaves_tokens_another_terminal_refreshed(tmp_path: Path) -> None:
    """`auction buy ... --request-id R` keeps the listing in the state file; written from
    the entry read at its start, it put back the refresh token another terminal of the
    same profile had spent meanwhile (that terminal's next command: log in again)."""
    path = tmp_path / "state.json"
    State(path, "default").save(g.Player(player_id="a", player_name="ann"), tokens("a1"))
    buying, playing = State(path, "default"), State(path, "default")
    playing.update(tokens("a2"))  # the play screen refreshes meanwhile
    buying.remember("R1", "listing-1")
    now = State(path, "default")
    assert now.tokens["refresh_token"] == "refresh-a2"
    assert now.recall("R1") == "listing-1" and now.recall("R2") is None
    for n in range(60):
        now.remember(f"R{n}", f"listing-{n}")
    assert now.recall("R59") == "listing-59" and now.recall("R9") is None  # the latest 50


@pytest.mark.parametrize("stdin", ["", "\n"])
def test_no_password_on_stdin_is_said_in_a_line(
    stdin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: `triad-client register ann < /dev/null` (or an empty line
    piped in) ended in an EOFError traceback, after asking twice."""
    monkeypatch.delenv("TRIAD_PASSWORD", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    assert main(["--state", str(tmp_path / "state.json"), "register", "ann"]) == 2
    said = capsys.readouterr().err
    assert "no password: type one, or give --password or $TRIAD_PASSWORD" in said, said


def test_ctrl_c_at_the_password_prompt_ends_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: Ctrl-C at `Password: ` left the shell's prompt on that line."""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    def interrupted(prompt: str) -> str:
        print(prompt, end="", file=sys.stderr)
        raise KeyboardInterrupt

    monkeypatch.delenv("TRIAD_PASSWORD", raising=False)
    monkeypatch.setattr(sys, "stdin", Terminal())
    monkeypatch.setattr("getpass.getpass", interrupted)
    assert main(["--state", str(tmp_path / "state.json"), "register", "ann"]) == 130
    assert capsys.readouterr().err == "Password: \n"


def test_a_password_piped_in_is_the_first_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRIAD_PASSWORD", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO("password-ann-1\nmore\n"))
    assert password(argparse.Namespace(password=None)) == "password-ann-1"


@pytest.mark.parametrize("text", ["", "{bad", "[]"])
def test_a_state_file_it_did_not_write_is_named_not_a_traceback(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: an empty state file (`touch ~/.triad-client.json`) ended every
    command in a JSONDecodeError traceback."""
    state = tmp_path / "state.json"
    state.write_text(text)
    assert main(["--state", str(state), "--addr", "127.0.0.1:9", "status"]) == 2
    said = capsys.readouterr().err
    assert f"{state} is not a state file of triad-client's" in said, said
    assert "log in again" in said and "Traceback" not in said, said


def refused(details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(
        grpc.StatusCode.UNAUTHENTICATED, grpc.aio.Metadata(), grpc.aio.Metadata(), details
    )


class Tokens:
    """A gateway whose refresh tokens are spent once, each refresh making the last
    access token the only valid one."""

    def __init__(self) -> None:
        self.valid, self.spent, self.made = "", set[str](), 1

    async def RefreshToken(self, request: g.RefreshTokenRequest, timeout: float) -> Any:
        if request.refresh_token in self.spent:
            raise refused("the refresh token is not valid any more: log in again")
        self.spent.add(request.refresh_token)
        self.made += 1
        self.valid = f"access-{self.made}"
        return g.RefreshTokenResponse(tokens=tokens(str(self.made)))

    async def GetBalance(self, request: Any, metadata: Any, timeout: float) -> Any:
        if dict(metadata)["authorization"] != f"Bearer {self.valid}":
            raise refused("the access token expired")
        return g.GetBalanceResponse()


async def test_a_refresh_another_terminal_made_is_taken_not_spent_again(tmp_path: Path) -> None:
    """Found from outside: a screen open past its access token's 15 minutes was told 'the
    refresh token is not valid any more: log in again': `status` in another terminal
    had refreshed meanwhile, spending the refresh token the screen held."""
    path = tmp_path / "state.json"
    State(path, "default").save(g.Player(player_id="a", player_name="ann"), tokens("1"))
    gateway = Tokens()  # access-1 expired
    screen, other = Client(gateway, State(path, "default")), Client(gateway, State(path, "default"))
    await other.call(gateway.GetBalance, g.GetBalanceRequest())  # refreshed: access-2
    await screen.call(gateway.GetBalance, g.GetBalanceRequest())  # takes access-2
    assert gateway.made == 2 and State(path, "default").tokens["access_token"] == "access-2"


async def test_logout_json_prints_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: `logout --json` printed 'Logged out.', which no script reads."""

    class Gateway:
        def __init__(self, channel: Any) -> None:
            pass

        async def Logout(self, request: Any, metadata: Any, timeout: float) -> Any:
            return g.LogoutResponse()

    path = tmp_path / "state.json"
    State(path, "default").save(g.Player(player_id="a", player_name="ann"), tokens("1"))
    monkeypatch.setattr(gateway_pb2_grpc, "TriadGatewayStub", Gateway)
    argv = ["--state", str(path), "--plaintext", "--addr", "127.0.0.1:9", "logout", "--json"]
    await run(parser().parse_args(argv))
    assert json.loads(capsys.readouterr().out) == {}
    with pytest.raises(CommandError, match="not logged in"):
        assert State(path, "default").tokens


def test_profile_may_follow_the_subcommand_and_a_missing_login_says_how(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: `status --profile alt` was refused ('unrecognized arguments')
    although --json works there; and 'not logged in as profile alt: run register or
    login' did not say to name the profile in that command."""
    assert parser().parse_args(["status", "--profile", "alt"]).profile == "alt"
    assert parser().parse_args(["--profile", "alt", "status"]).profile == "alt"
    assert parser().parse_args(["status"]).profile == "default"
    state = tmp_path / "state.json"
    assert main(["--state", str(state), "status", "--profile", "alt"]) == 2
    said = capsys.readouterr().err
    assert "triad-client --profile alt login NAME" in said, said
