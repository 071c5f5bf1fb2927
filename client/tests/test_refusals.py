"""A failed call as one line for a person: what the gateway said, then what to do,
without saying the same thing twice."""

from __future__ import annotations

import argparse
import contextlib
import socket
import threading
from pathlib import Path
from typing import Any

import grpc
import pytest
from rich.console import Console
from triad.v1 import gateway_pb2 as g
from triad.v1 import gateway_pb2_grpc

from client.commands_lobby import find
from client.connection import DEV_CA, CommandError, State, dev_ca
from client.failures import describe
from client.main import main, parser, practice_mode
from services.matchmaker.domain import TableFilter
from services.matchmaker.handlers_find import _none_fits


def failed(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details=details)


def test_a_revoked_token_says_log_in_again_once_with_the_command() -> None:
    line = describe(
        failed(grpc.StatusCode.UNAUTHENTICATED, "the access token was revoked: log in again")
    )
    assert line == (
        "unauthenticated: the access token was revoked: log in again (triad-client login NAME)"
    )
    line = describe(failed(grpc.StatusCode.UNAUTHENTICATED, "no access token"))
    assert line == "unauthenticated: no access token (log in again: triad-client login NAME)"


def test_a_login_refused_is_not_told_to_log_in_again() -> None:
    """Found from outside: `login ann` with a wrong password was told '(log in again:
    triad-client login NAME)', the command just typed."""
    line = describe(
        failed(grpc.StatusCode.UNAUTHENTICATED, "unknown player name or wrong password")
    )
    assert line == (
        "unauthenticated: unknown player name or wrong password (check both; "
        "triad-client register NAME makes a new player)"
    )


def test_a_ca_file_that_is_no_certificate_is_named_not_the_gateway() -> None:
    """Found from outside: `--ca FILE` naming a file that is no certificate was told
    'cannot reach the gateway: is `make run` running?', though the gateway ran."""
    details = (
        "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:50051: "
        "Failed to create security handshaker."
    )
    line = describe(failed(grpc.StatusCode.UNAVAILABLE, details))
    assert line.startswith("--ca holds no certificate to trust: give a PEM file"), line


def test_a_gateway_host_that_does_not_resolve_is_named_not_dumped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: `--addr nohost.invalid:50051` printed gRPC's resolver dump
    ('unavailable: errors resolving ... [field:hostname lookup error:...]')."""
    state = tmp_path / "state.json"
    State(state, "default").save(
        g.Player(player_id="a", player_name="ann"), g.AuthTokens(access_token="a")
    )
    typed = ["--state", str(state), "--plaintext", "--addr", "nohost.invalid:50051", "status"]
    assert main(typed) == 1
    told = capsys.readouterr().err
    assert told == (
        "triad-client: no such host: nohost.invalid:50051: check --addr HOST:PORT "
        "(make run's is 127.0.0.1:50051)\n"
    ), told


def test_an_empty_or_blank_gateway_address_is_said_to_be_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: `--addr '' status` (an empty $TRIAD_GATEWAY as well) printed
    gRPC's "unknown: Failed to create channel to '':the target uri is not valid:
    dns:///", and a blank one 'no such host:  :'; an address that is no URI at all
    ('dns:') the same."""
    state = tmp_path / "state.json"
    State(state, "default").save(
        g.Player(player_id="a", player_name="ann"), g.AuthTokens(access_token="a")
    )
    for address in ("", " "):
        assert main(["--state", str(state), "--addr", address, "status"]) == 1
        told = capsys.readouterr().err
        assert told == (
            "triad-client: no gateway address: --addr is empty: give "
            "HOST:PORT (make run's is 127.0.0.1:50051)\n"
        ), told
    assert main(["--state", str(state), "--addr", "dns:", "status"]) == 1
    told = capsys.readouterr().err
    assert told == (
        "triad-client: 'dns:' is no gateway address: give --addr HOST:PORT "
        "(make run's is 127.0.0.1:50051)\n"
    ), told


class Answering:
    """A gateway that answers ``status`` (no challenges listed)."""

    def __init__(self, channel: Any) -> None:
        pass

    async def GetPlayerStatus(self, request: Any, metadata: Any, timeout: float) -> Any:
        player = g.Player(player_id="a", player_name="ann")
        return g.GetPlayerStatusResponse(status=g.PlayerStatus(player=player))

    async def ListTables(self, request: Any, metadata: Any, timeout: float) -> Any:
        return g.ListTablesResponse()


@pytest.mark.parametrize("empty", ["", "  "])
def test_an_empty_triad_gateway_is_taken_as_unset_the_default_address_called(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    empty: str,
) -> None:
    """An empty $TRIAD_GATEWAY (`export TRIAD_GATEWAY=`, a script's unset variable) was
    taken as the address and refused as empty; it means no choice, as an unset one
    does: the default address is called. --addr '' is still refused (test above)."""
    state = tmp_path / "state.json"
    State(state, "default").save(
        g.Player(player_id="a", player_name="ann"), g.AuthTokens(access_token="a")
    )
    called: list[str] = []
    real = grpc.aio.insecure_channel

    def channel(target: str, *options: Any, **named: Any) -> grpc.aio.Channel:
        called.append(target)
        return real(target, *options, **named)

    monkeypatch.setattr(grpc.aio, "insecure_channel", channel)
    monkeypatch.setattr(gateway_pb2_grpc, "TriadGatewayStub", Answering)
    monkeypatch.setenv("TRIAD_GATEWAY", empty)
    assert main(["--state", str(state), "--plaintext", "status"]) == 0, capsys.readouterr()
    assert called == ["127.0.0.1:50051"]
    assert capsys.readouterr().out.startswith("ann: 0 coins.")


def test_an_address_where_no_gateway_answers_is_named_with_what_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: --addr at the web port (or --plaintext to the TLS gateway)
    was told 'is `make run` running?' while it ran, and no message named the address."""
    state = tmp_path / "state.json"
    State(state, "default").save(
        g.Player(player_id="a", player_name="ann"), g.AuthTokens(access_token="a")
    )
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        free = closed.getsockname()[1]  # nothing listens there once closed
    typed = ["--state", str(state), "--addr", f"127.0.0.1:{free}", "status"]
    assert main(typed) == 1
    told = capsys.readouterr().err
    assert f"cannot reach the gateway at 127.0.0.1:{free}: is `make run` running?" in told
    with socket.socket() as mute:  # answers TLS with plain HTTP: no gateway
        mute.bind(("127.0.0.1", 0))
        mute.listen()
        port = mute.getsockname()[1]

        def hang_up() -> None:
            with contextlib.suppress(OSError):  # until the socket is closed
                while True:
                    answered = mute.accept()[0]
                    answered.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
                    answered.close()

        threading.Thread(target=hang_up, daemon=True).start()
        assert main(["--state", str(state), "--addr", f"127.0.0.1:{port}", "status"]) == 1
    told = capsys.readouterr().err
    assert f"cannot speak with what answers at 127.0.0.1:{port}: make run's gateway" in told, told


class NoneFits:
    """A gateway whose Find Game finds nothing, in the matchmaker's own words."""

    stub: Any = argparse.Namespace(FindGame=None)

    async def call(self, method: Any, request: Any) -> Any:
        raise failed(grpc.StatusCode.NOT_FOUND, _none_fits(TableFilter(), None, False))


async def test_find_with_nothing_fitting_names_the_clients_next_step_not_an_rpc() -> None:
    """The matchmaker tells API users to 'open one yourself with CreateTable'; the
    client's user is told the command that does it."""
    args = parser().parse_args(["find"])
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await find(NoneFits(), args, Console())
    line = describe(raised.value)
    assert line == (
        "not found: no open table fits your filters (without a deck, only Random tables "
        "and house hands fit): triad-client host opens one, or try triad-client find again soon"
    ), line


def test_practice_offers_the_triad_modes_only_and_names_the_battle_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A Skirmish battle is `triad-client battle`: `practice --mode battle` would only be
    refused by the server."""
    with pytest.raises(SystemExit):
        parser().parse_args(["practice", "--mode", "battle"])
    assert "invalid choice: 'battle'" in capsys.readouterr().err
    assert parser().parse_args(["practice", "--mode", "ranked"]).mode == "ranked"
    with pytest.raises(SystemExit):
        parser().parse_args(["practice", "--help"])
    assert "triad-client battle" in capsys.readouterr().out


def test_a_table_option_makes_a_practice_custom_and_is_refused_beside_another_mode() -> None:
    """Found from outside: `practice --board 4x4` played a plain 3x3 match, the option
    silently ignored (it needed --mode custom)."""
    assert practice_mode(parser().parse_args(["practice"])) == "unranked"
    assert practice_mode(parser().parse_args(["practice", "--board", "4x4"])) == "custom"
    assert practice_mode(parser().parse_args(["practice", "--mode", "ranked"])) == "ranked"
    assert practice_mode(parser().parse_args(["practice", "--no-same", "--elemental"])) == "custom"
    with pytest.raises(CommandError, match="--blocked sets a custom practice's rules"):
        practice_mode(parser().parse_args(["practice", "--mode", "ranked", "--blocked", "3"]))


@pytest.mark.parametrize(
    ("typed", "told"),
    [
        (["leaderboard", "--top", "0"], "--top: must be 1..100, not 0"),
        (["leaderboard", "--top", "many"], "--top: 'many' is not a whole number"),
        (["collection", "--stars", "6"], "--stars: must be 1..5, not 6"),
        (["auction", "browse", "--limit", "500"], "--limit: must be 1..200, not 500"),
        (["watch", "--count", "-1"], "--count: must be 0..1000000000, not -1"),
    ],
)
def test_a_number_out_of_its_range_is_refused_where_it_is_typed(
    typed: list[str], told: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found from outside: `leaderboard --top 0` showed ten players, and --top 500 was
    refused by the server as "top_n must be 1..100 (0 means 10)", a wire name."""
    with pytest.raises(SystemExit) as refused:
        parser().parse_args(typed)
    assert refused.value.code == 2
    assert told in capsys.readouterr().err


def test_the_development_certificate_is_found_from_any_directory(tmp_path: Path) -> None:
    """Found from outside: run outside the repository root, the client did not trust
    make run's certificate; it now looks in the checkout it runs from too."""
    checkout = tmp_path / "checkout"
    (checkout / DEV_CA).parent.mkdir(parents=True)
    (checkout / DEV_CA).write_text("cert")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert dev_ca(elsewhere, checkout) == checkout / DEV_CA
    assert dev_ca(checkout, tmp_path / "none") == checkout / DEV_CA
    assert dev_ca(elsewhere, tmp_path / "none") is None


def test_every_command_says_what_it_does_in_help() -> None:
    """Found from outside: `triad-client --help` listed logout and forfeit with no words."""
    (commands,) = [a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)]
    told = {c.dest for c in commands._choices_actions if c.help}
    assert sorted(set(commands.choices) - told) == []


def commands_of(typed: list[str], cli: argparse.ArgumentParser) -> list[tuple[list[str], str]]:
    """Every command and subcommand as typed, with the line the list above it shows."""
    found = []
    for action in cli._actions:
        if isinstance(action, argparse._SubParsersAction):
            for listed in action._choices_actions:
                words = [*typed, listed.dest]
                found.append((words, str(listed.help)))
                found.extend(commands_of(words, action.choices[listed.dest]))
    return found


def test_a_commands_own_help_says_what_it_does(capsys: pytest.CaptureFixture[str]) -> None:
    """Found from outside: `triad-client play --help` (and every other command's, and
    `deck save --help`) printed usage and options, never what the command does."""
    every = commands_of([], parser())
    assert len(every) > 40
    for typed, line in every:
        with pytest.raises(SystemExit):
            parser().parse_args([*typed, "--help"])
        shown = " ".join(capsys.readouterr().out.split())
        assert line in shown, typed
