"""Hostile values for the hostile tests: strings, numbers and request ids generated field
by field from the descriptors, other players' ids (``Ids``), bad tokens, and the checks
of what a request holds.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import string
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from devtools.players import SECRET
from gateway.accounts import TokenSigner


@dataclass
class Ids:
    """Other players' things, and the attacker's own (used for reads and replays only)."""

    foreign: dict[str, list[str]] = field(default_factory=dict)
    own: dict[str, list[str]] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    used_refresh: list[str] = field(default_factory=list)


def bad_request_id(rng: random.Random) -> str:
    return rng.choice(["", "r" * 65, "r" * rng.randint(66, 5000)])


ID_FIELDS = {
    "match_id": "match",
    "trade_id": "trade",
    "deck_id": "deck",
    "copy_id": "copy",
    "copy_ids": "copy",
    "ticket_id": "ticket",
    "table_id": "table",
    "draft_id": "draft",
    "seed_id": "seed",
    "card_id": "card",
    "draft_card_id": "draft_card",
    "character_ids": "character",
}


NAME_FIELDS = {"player_name", "challenged_player_name"}


# ---- generating requests -----------------------------------------------------------


def hostile_string(rng: random.Random) -> str:
    return rng.choice(
        [
            "",
            " ",
            "x" * rng.randint(1, 64),
            "y" * rng.randint(65, 300),
            "z" * rng.randint(10_000, 200_000),
            str(uuid4()),
            uuid4().hex,
            "\x00",
            "nul\x00inside",
            "\u202e\u0000\uffff",
            "\U0001f4a5" * rng.randint(1, 50),
            "' OR '1'='1",
            "%s%s%s%n",
            "../../../etc/passwd",
            "${jndi:ldap://x}",
            "-1",
            "9" * 40,
            "".join(rng.choices(string.printable, k=rng.randint(1, 100))),
        ]
    )


def hostile_int(rng: random.Random, bits: int) -> int:
    top = (1 << (bits - 1)) - 1
    return rng.choice([0, -1, 1, 2, 3, 4, 8, 9, 10, 100, 101, 200, 201, top, -top - 1, -5])


def value_for(fd: FieldDescriptor, rng: random.Random, ids: Ids, own: bool, depth: int) -> Any:
    t = fd.type
    if t == FieldDescriptor.TYPE_STRING:
        kind = ID_FIELDS.get(fd.name)
        if kind is not None and rng.random() < 0.6:
            pool = ids.foreign.get(kind, []) + (ids.own.get(kind, []) if own else [])
            if pool:
                return rng.choice(pool)
        if fd.name in NAME_FIELDS and rng.random() < 0.5:
            return rng.choice(ids.names)
        if fd.name == "request_id" and rng.random() < 0.8:
            return uuid4().hex  # well formed, so the rest reaches the services
        return hostile_string(rng)
    if t == FieldDescriptor.TYPE_BYTES:
        return rng.randbytes(rng.randint(0, 64))
    if t == FieldDescriptor.TYPE_BOOL:
        return rng.random() < 0.5
    if t == FieldDescriptor.TYPE_ENUM:
        known = [v.number for v in fd.enum_type.values]
        return rng.choice([*known, 999, -7, 1 << 30])
    if t in (
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SFIXED32,
    ):
        return hostile_int(rng, 32)
    if t in (
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_SFIXED64,
    ):
        return hostile_int(rng, 64)
    if t in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32):
        return rng.choice([0, 1, (1 << 32) - 1])
    if t in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
        return rng.choice([0, 1, (1 << 64) - 1])
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return rng.choice([0.0, -1.0, 1e308, float("nan"), float("inf")])
    raise AssertionError(f"no generator for field {fd.full_name} of type {t}")


def fill(message: Message, rng: random.Random, ids: Ids, own: bool, depth: int = 0) -> Message:
    """Set a random subset of the fields of ``message`` to hostile values, recursively."""
    chosen_oneofs = {
        o.name: rng.choice([None, *[f.name for f in o.fields]])
        for o in message.DESCRIPTOR.oneofs
        if not o.name.startswith("_")  # proto3 optional fields are synthetic oneofs
    }
    for fd in message.DESCRIPTOR.fields:
        oneof = fd.containing_oneof
        if oneof is not None and not oneof.name.startswith("_"):
            if chosen_oneofs[oneof.name] != fd.name:
                continue
        elif rng.random() < 0.3:
            continue
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            if depth > 3:
                continue
            target = getattr(message, fd.name)
            if fd.is_repeated:
                if fd.message_type.GetOptions().map_entry:
                    continue
                for _ in range(rng.choice([0, 1, 2, 5])):
                    fill(target.add(), rng, ids, own, depth + 1)
            else:
                target.SetInParent()
                fill(target, rng, ids, own, depth + 1)
        elif fd.is_repeated:
            count = rng.choice([0, 1, 2, 4, 5, 6, 300])
            if count == 300 and fd.type != FieldDescriptor.TYPE_STRING and rng.random() < 0.3:
                count = 150_000  # under the size limit, but a long list to echo back
            getattr(message, fd.name).extend(
                value_for(fd, rng, ids, own, depth) for _ in range(count)
            )
        else:
            setattr(message, fd.name, value_for(fd, rng, ids, own, depth))
    return message


# ---- tokens ------------------------------------------------------------------------


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def bad_tokens(good: str, attacker_id: str, victim_id: str, revoked: list[str]) -> list[str]:
    """Authorization header values that must all be UNAUTHENTICATED."""
    version, body, signature = good.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    now = datetime.now(UTC)

    def signed(payload: dict[str, Any], key: bytes = SECRET.encode(), ver: str = "v1") -> str:
        text = f"{ver}.{b64(json.dumps(payload).encode())}"
        return f"{text}.{b64(hmac.new(key, text.encode(), hashlib.sha256).digest())}"

    as_victim = {**claims, "sub": victim_id}
    never = {**claims, "exp": int((now + timedelta(days=3650)).timestamp())}
    wrong_key = TokenSigner(b"k" * 48).issue(attacker_id, claims["name"], now).token
    expired = (
        TokenSigner(SECRET.encode()).issue(attacker_id, claims["name"], now - timedelta(hours=2))
    ).token
    jwt_none = ".".join(
        [
            b64(json.dumps({"alg": "none", "typ": "JWT"}).encode()),
            b64(json.dumps(as_victim).encode()),
            "",
        ]
    )
    tokens = [
        "",
        "garbage",
        "a.b.c",
        good[:-3] + ("AAA" if not good.endswith("AAA") else "BBB"),
        f"{version}.{b64(json.dumps(as_victim).encode())}.{signature}",  # altered claims
        f"{version}.{b64(json.dumps(never).encode())}.{signature}",  # extended expiry
        f"{version}.{body}.",  # no signature
        f"{version}.{body}",  # two parts
        f"{version}.{body}.{signature}.{signature}",  # four parts
        f"v0.{body}.{signature}",  # another version
        f"none.{body}.{signature}",
        signed(as_victim, key=b""),  # signed with an empty key
        signed(as_victim, ver="v2"),
        signed({k: v for k, v in as_victim.items() if k != "exp"}),  # right key, no expiry
        signed({**as_victim, "exp": "soon"}),
        wrong_key,
        expired,
        jwt_none,
        b64(bytes(range(256))),
        *revoked,
    ]
    headers = [f"Bearer {t}" for t in tokens]
    headers += ["", "Bearer", f"Basic {good}", f"Token {good}", good]  # (bearer: RFC 9110 11.1)
    return headers


MAX_MESSAGE = 1 << 20  # services/platform/grpcserver.py


def holds_nul(message: Message) -> bool:
    """Whether any text in ``message`` holds a NUL character (PostgreSQL cannot store
    one, so every service refuses it as INVALID_ARGUMENT)."""
    for fd, value in message.ListFields():
        values = value if fd.is_repeated else [value]
        if fd.type == FieldDescriptor.TYPE_STRING and any("\x00" in v for v in values):
            return True
        if fd.type == FieldDescriptor.TYPE_MESSAGE and any(holds_nul(v) for v in values):
            return True
    return False


def holds_unknown_enum(message: Message) -> bool:
    """Whether any enum field of ``message`` holds a number its enum does not define
    (every service refuses it as INVALID_ARGUMENT)."""
    for fd, value in message.ListFields():
        values = value if fd.is_repeated else [value]
        if fd.enum_type is not None and any(v not in fd.enum_type.values_by_number for v in values):
            return True
        if fd.type == FieldDescriptor.TYPE_MESSAGE and any(holds_unknown_enum(v) for v in values):
            return True
    return False


def unicode_breaker() -> bytes:
    """A request_id (field 1, length-delimited) that is not UTF-8."""
    return b"\x0a\x04\xff\xfe\xc0\x80"
