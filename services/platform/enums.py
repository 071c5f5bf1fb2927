"""The one check of an enum value in a request, for every service's edge.

Proto3 enums are open: a client may send any number, and a field left out reads as
X_UNSPECIFIED (0), which the contract never accepts as input unless the field's
comment gives it a meaning (common.proto). ``require_enum`` refuses both in one
wording, naming the field, what was sent and what may be sent instead;
``unknown_enum`` finds the first value at any depth of a request that its enum does
not define (``interceptors`` refuses those before any handler runs, so every RPC of
every service answers an unknown value the same way).

``by_name`` pairs a domain enum with its proto enum member by member, the names alike
but for the proto's prefix (``CopySource.GRANT`` is ``COPY_SOURCE_GRANT``), and
``backwards`` reads such a pairing the other way: every service's ``mapping.py`` builds
its tables with them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, TypeVar

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from services.platform.errors import InvalidArgument

if TYPE_CHECKING:
    from google.protobuf.internal.enum_type_wrapper import _EnumTypeWrapper

E = TypeVar("E", bound=Enum)
K = TypeVar("K")
V = TypeVar("V")
N = TypeVar("N", bound=int)


def by_name(kind: type[E], proto: _EnumTypeWrapper[N]) -> dict[E, N]:
    """Each member of the domain enum ``kind`` to the ``proto`` value of its name with
    the proto's prefix (``FinishReason.TIMEOUT`` -> ``FINISH_REASON_TIMEOUT``); a member
    the proto lacks is a ValueError at import, not a wrong value later."""
    prefix = _prefix(proto.DESCRIPTOR)
    return {member: proto.Value(prefix + member.name) for member in kind}


def backwards(pairs: Mapping[K, V]) -> dict[V, K]:
    """``pairs`` read the other way (the values are distinct)."""
    return {value: key for key, value in pairs.items()}


def require_enum(
    value: int,
    enum: EnumDescriptor,
    field: str,
    allowed: Iterable[int] | None = None,
    *,
    unspecified_ok: bool = False,
) -> int:
    """``value`` if it is one of ``enum``'s (and of ``allowed``, when given), else
    InvalidArgument: "bot_level 99 is not a known level; use one of NOVICE, EASY,
    NORMAL, HARD". The unspecified value (0) counts as missing unless
    ``unspecified_ok``, or ``allowed`` holds it."""
    choices = _choices(enum, None if allowed is None else frozenset(allowed), unspecified_ok)
    if value in choices:
        return value
    use = f"use one of {', '.join(short_name(enum, v) for v in choices)}"
    known = enum.values_by_number.get(value)
    if value == 0 and known is not None:
        raise InvalidArgument(f"{field} is required; {use}")
    if known is None:
        raise InvalidArgument(f"{field} {value} is not a known {_noun(enum)}; {use}")
    raise InvalidArgument(f"{field} {short_name(enum, value)} cannot be used here; {use}")


def short_name(enum: EnumDescriptor, value: int) -> str:
    """``BOT_LEVEL_NOVICE`` -> ``NOVICE``: the value's name without its enum's prefix."""
    name = enum.values_by_number[value].name
    return name.removeprefix(_prefix(enum))


def unknown_enum(message: Message) -> str | None:
    """Why ``message`` cannot be served if some enum field (at any depth, repeated
    ones too) holds a number its enum does not define; None if none does."""
    if not _holds_enums(message.DESCRIPTOR):
        return None
    return _first_unknown(message, "")


def _first_unknown(message: Message, path: str) -> str | None:
    for field, value in message.ListFields():
        name = f"{path}{field.name}"
        enum, inner = field.enum_type, field.message_type
        if enum is not None:
            for number in value if _repeated(field) else (value,):
                if number not in enum.values_by_number:
                    try:
                        require_enum(number, enum, name)
                    except InvalidArgument as error:
                        return str(error)
        elif inner is not None and _holds_enums(inner) and not inner.GetOptions().map_entry:
            # (no request of ours has a map of enums)
            items = enumerate(value) if _repeated(field) else ((None, value),)
            for index, item in items:
                found = _first_unknown(item, name + ("." if index is None else f"[{index}]."))
                if found:
                    return found
    return None


def _repeated(field: FieldDescriptor) -> bool:
    return bool(field.is_repeated)


@cache
def _holds_enums(descriptor: Descriptor, seen: frozenset[str] = frozenset()) -> bool:
    """Whether a message of this type can hold an enum anywhere (most requests hold
    none, and their check is this one cached answer)."""
    if descriptor.full_name in seen:
        return False
    inner = seen | {descriptor.full_name}
    return any(
        f.type == FieldDescriptor.TYPE_ENUM
        or (f.type == FieldDescriptor.TYPE_MESSAGE and _holds_enums(f.message_type, inner))
        for f in descriptor.fields
    )


@cache
def _prefix(enum: EnumDescriptor) -> str:
    """``BOT_LEVEL_`` for BotLevel: the upper snake case of the enum's name."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"


@cache
def _noun(enum: EnumDescriptor) -> str:
    """``level`` for BotLevel, ``trade rule`` for TradeRule: what a value of it is."""
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", enum.name).lower()
    return "level" if words == "bot level" else words


@cache
def _choices(
    enum: EnumDescriptor, allowed: frozenset[int] | None, unspecified_ok: bool
) -> tuple[int, ...]:
    numbers = [v.number for v in enum.values]
    if allowed is not None:
        return tuple(n for n in numbers if n in allowed)
    return tuple(n for n in numbers if n != 0 or unspecified_ok)
