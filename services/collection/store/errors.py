"""What the collection repository refuses, whichever adapter runs it."""

from __future__ import annotations

from services.platform.errors import FailedPrecondition


class InsufficientBalance(FailedPrecondition):
    """The CHECK constraint refused a debit the domain had allowed (a concurrent spend)."""
