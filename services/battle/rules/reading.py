"""Reading checked JSON: the field readers the roster (``content.py``) and the battle
codec (``codec.py``) share. Each raises its caller's error, naming the path of the bad
value (``roster.characters[0].hp: expected an integer 1..999, got 0``)."""

from __future__ import annotations

from typing import Any


class Reader:
    """Readers of JSON values that raise ``error`` for a value of the wrong kind."""

    def __init__(self, error: type[Exception]) -> None:
        self.error = error

    def obj(self, raw: Any, where: str) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise self.error(f"{where}: expected an object, got {type(raw).__name__}")
        return raw

    def items(self, raw: Any, where: str) -> list[Any]:
        if not isinstance(raw, list):
            raise self.error(f"{where}: expected a list, got {type(raw).__name__}")
        return raw

    def text(self, obj: dict[str, Any], key: str, where: str) -> str:
        value = obj.get(key)
        if not isinstance(value, str) or not value:
            raise self.error(f"{where}.{key}: expected a non-empty string, got {value!r}")
        return value

    def whole(self, obj: dict[str, Any], key: str, where: str, low: int, high: int) -> int:
        """An integer (not a boolean) from ``low`` to ``high``."""
        value = obj.get(key)
        if type(value) is not int or not low <= value <= high:
            raise self.error(f"{where}.{key}: expected an integer {low}..{high}, got {value!r}")
        return value
