"""What the matchmaker consumes from the event stream: ``DraftCompleted`` (the collection
service's), which starts the Draft match of a draft our pairing began.

The platform's idempotent consumer (``services/platform/consumer.py``) runs it once per
event; the handler is idempotent on the draft id anyway (the match id comes with the
event, and creating a match is idempotent on it), so a replay changes nothing.
"""

from __future__ import annotations

from typing import Any

from triad.v1 import events_pb2 as ev

from services.matchmaker import codec, handlers_starts
from services.matchmaker.handlers import Context

DRAFT_COMPLETED = ("draft", "DraftCompleted")
"""The events the draft consumer takes: ``(component, short type)`` on the stream."""


async def on_draft_completed(ctx: Context, _conn: Any, envelope: ev.EventEnvelope) -> None:
    """Both drafted decks are complete: create the Draft match."""
    draft = codec.draft_completed(envelope)
    await handlers_starts.start_drafted_match(
        ctx, draft.draft_id, draft.match_id, draft.seats, ctx.clock()
    )
