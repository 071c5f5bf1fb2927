"""Hostile input against every public RPC (issue 10, item 3), through the TLS gateway with
every service a process on real PostgreSQL and NATS.

The RPCs are enumerated from the service descriptor. Each has a plan (``PLANS``) saying
whether it only reads, and how a request to it is made so that the contract refuses it
whatever else it carries; a new RPC without a plan fails the test. Requests are then
generated field by field from the descriptor: empty, huge, control-character and
injection-looking strings, extreme and negative numbers, unknown enum values, random
bytes, the ids of other players' matches, trades, decks, copies, tickets, tables,
drafts and seeds; forged, altered, expired, revoked and missing tokens; replays of
request ids; messages over the size limit.

Honesty of the "nothing changed" check: every request sent is, by construction, one of

- a read (the RPC changes nothing whatever it is sent; read once before the snapshot, so
  nothing is created lazily on the first read);
- a request the contract refuses: a bad token, an oversized or malformed message, a bad
  request id, an id of someone else's thing, an invalid value where any value of the
  field would otherwise do (a client seed, a stale seed hash), or a queue or table call
  by a player who is seated in a running match;
- an identical replay of the attacker's own earlier successful write, which returns the
  first answer and acts no second time.

So every table of every service schema must read the same after the attack: the md5 of
each table's ordered rows is compared. Timers that would change state on their own
(turns, disconnects, trade choice, drafts, battles) are set to ten minutes.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass

import grpc
import pytest
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message_factory import GetMessageClass

from devtools.stack import Stack, checksums
from tests.e2e.hostile.hostile_plans import PLANS, SERVICE, poison_request_id
from tests.e2e.hostile.hostile_values import (
    MAX_MESSAGE,
    bad_tokens,
    fill,
    holds_nul,
    holds_unknown_enum,
    unicode_breaker,
)
from tests.e2e.hostile.hostile_world import read_everything_once, settled, world

pytestmark = pytest.mark.integration


PER_RPC = 260
"""Generated requests per RPC; with the token, replay and size cases over 10,000."""


CONCURRENCY = 12


REFUSALS = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}
"""What a hostile request may get. Not UNAVAILABLE either: every service is up, and the
gateway reports an internal fault of a service as UNAVAILABLE."""


LEAKS = re.compile(
    r"Traceback|File \"|\.py\b|site-packages|/work/|asyncpg|psycopg|SELECT |INSERT |UPDATE |"
    r"DELETE FROM|syntax error|violates|relation \"|Exception|Error\(",
)


# ---- calling -----------------------------------------------------------------------


@dataclass
class Outcome:
    rpc: str
    case: str
    code: grpc.StatusCode
    details: str

    @property
    def kind(self) -> str:
        return PLANS[self.rpc].kind


class Caller:
    """Raw calls by method path: requests go as bytes, so malformed ones can be sent."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.channel = channel
        self.outcomes: list[Outcome] = []
        self.gate = asyncio.Semaphore(CONCURRENCY)

    async def send(self, rpc: str, case: str, body: bytes, authorization: str | None) -> Outcome:
        method: MethodDescriptor = SERVICE.methods_by_name[rpc]
        path = f"/{SERVICE.full_name}/{rpc}"
        metadata = None if authorization is None else (("authorization", authorization),)
        async with self.gate:
            code, details = grpc.StatusCode.OK, ""
            try:
                if method.server_streaming:
                    stream = self.channel.unary_stream(path)(body, metadata=metadata, timeout=30)
                    async for reply in stream:  # a session that opens is read once and left
                        assert isinstance(reply, bytes)
                        stream.cancel()
                        break
                else:
                    await self.channel.unary_unary(path)(body, metadata=metadata, timeout=30)
            except grpc.aio.AioRpcError as error:
                code, details = error.code(), error.details() or ""
        outcome = Outcome(rpc, case, code, details)
        self.outcomes.append(outcome)
        return outcome


# ---- the test ----------------------------------------------------------------------


def test_every_public_rpc_has_a_plan() -> None:
    """A new RPC fails here until someone says how to attack it."""
    assert set(PLANS) == set(SERVICE.methods_by_name)
    for rpc, plan in PLANS.items():
        streaming = SERVICE.methods_by_name[rpc].server_streaming
        assert (plan.kind == "stream") == streaming, rpc
        has_request_id = "request_id" in SERVICE.methods_by_name[rpc].input_type.fields_by_name
        assert (plan.kind in ("write", "open")) == has_request_id, rpc


async def test_hostile_requests_get_proper_statuses_and_change_nothing(
    backend: Stack, channel: grpc.aio.Channel, shared_database_url: str
) -> None:
    api = backend.api(channel)
    attacker, ids, extra = await world(api)
    await read_everything_once(attacker, ids)
    before = await settled(shared_database_url, backend.schemas)
    log_sizes = {name: len(text) for name, text in backend.logs().items()}

    rng = random.Random(20261130)
    good = f"Bearer {attacker.tokens.access_token}"
    tokens = bad_tokens(
        attacker.tokens.access_token, attacker.id, extra["victim"], extra["revoked"]
    )
    caller = Caller(channel)
    pending: list[Awaitable[Outcome]] = []
    expected: dict[int, grpc.StatusCode] = {}

    def send(
        rpc: str, case: str, body: bytes, auth: str | None, must: grpc.StatusCode | None = None
    ) -> None:
        if must is not None:
            expected[len(pending)] = must
        pending.append(caller.send(rpc, case, body, auth))

    for rpc, plan in PLANS.items():
        method = SERVICE.methods_by_name[rpc]
        cls = GetMessageClass(method.input_type)
        authenticated = plan.kind != "open"
        for _ in range(max(1, int(PER_RPC * plan.weight))):
            request = fill(cls(), rng, ids, own=plan.kind == "read")
            roll = rng.random()
            if authenticated and (plan.kind == "stream" or roll < 0.25):
                # A body refused whatever the caller is is refused before the token is
                # read: too large (by grpc), holding a NUL or an enum value the contract
                # does not define (by every service's edge).
                body = request.SerializeToString()
                must = grpc.StatusCode.UNAUTHENTICATED
                if len(body) > MAX_MESSAGE:
                    must = grpc.StatusCode.RESOURCE_EXHAUSTED
                elif holds_nul(request) or holds_unknown_enum(request):
                    must = grpc.StatusCode.INVALID_ARGUMENT
                send(rpc, "bad token", body, rng.choice(tokens), must)
                continue
            if plan.kind == "read":
                send(rpc, "read", request.SerializeToString(), good)
                continue
            if plan.poison is not None:
                plan.poison(request, rng, ids)
            if rng.random() < 0.15:
                poison_request_id(request, rng, ids)
            send(rpc, "refused", request.SerializeToString(), good if authenticated else None)
        # the same for every RPC: oversized, not protobuf, not UTF-8
        auth = good if authenticated else None
        huge = cls().SerializeToString() + b"\xfa\x3f" + b"\x80\x80\x50" + b"h" * (1 << 20)
        send(rpc, "oversized", huge, auth, grpc.StatusCode.RESOURCE_EXHAUSTED)
        for garbage in (
            rng.randbytes(40),
            b"\xff" * 9,
            unicode_breaker(),
            b"\x0a\xff\xff\xff\xff\x0f",
        ):
            send(rpc, "malformed", garbage, auth)
    for rpc, request in extra["replays"].items():  # the same request: the first answer
        for _ in range(20):
            send(rpc, "replay", request.SerializeToString(), good, grpc.StatusCode.OK)
        changed = type(request)()
        changed.CopyFrom(request)
        fill(changed, rng, ids, own=False)
        changed.request_id = request.request_id  # type: ignore[attr-defined]
        if changed != request:  # the same id for a different request
            for _ in range(20):
                send(rpc, "reused id", changed.SerializeToString(), good)

    started = time.monotonic()
    outcomes = await asyncio.gather(*pending)
    elapsed = time.monotonic() - started

    codes = Counter(o.code for o in outcomes)
    by_case = Counter((o.case, o.code.name) for o in outcomes)
    print(f"{len(outcomes)} hostile requests in {elapsed:.1f} s: {dict(codes)}")
    print("\n".join(f"  {case:10} {code:20} {n}" for (case, code), n in sorted(by_case.items())))
    samples: dict[tuple[str, str], Outcome] = {}
    for o in outcomes:
        samples.setdefault((o.case, o.code.name), o)
    for (case, code), o in sorted(samples.items()):
        print(f"  e.g. {case} {code}: {o.rpc} {o.details[:150]!r}")
    assert len(outcomes) >= 10_000
    wrong = []
    for index, outcome in enumerate(outcomes):
        must = expected.get(index)
        if must is not None and outcome.code != must:
            wrong.append(outcome)
        elif must is None and (outcome.case == "read" or outcome.kind == "read"):
            if outcome.code != grpc.StatusCode.OK and outcome.code not in REFUSALS:
                wrong.append(outcome)
        elif must is None and outcome.code not in REFUSALS:
            wrong.append(outcome)
        if LEAKS.search(outcome.details) or len(outcome.details) > 1000:
            wrong.append(outcome)
    shown = "\n".join(f"{o.rpc} {o.case}: {o.code.name} {o.details[:200]!r}" for o in wrong[:30])
    assert not wrong, f"{len(wrong)} improper answers, first:\n{shown}"

    after = await checksums(shared_database_url, backend.schemas)
    changed_tables = [t for t in before if before[t] != after.get(t)]
    assert not changed_tables and set(after) == set(before), f"changed: {changed_tables}"
    for name, text in backend.logs().items():
        new = text[log_sizes.get(name, 0) :]
        assert "Traceback" not in new, (
            f"{name} logged a fault:\n{new[new.find('Traceback') - 2000 :][:4000]}"
        )
