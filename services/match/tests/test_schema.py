"""The match migrations are released: their text, and so their checksums, never change."""

from __future__ import annotations

from services.match.schema import MIGRATIONS

RELEASED = {
    ("match", 1): "ef711c297cf4270c51c933196154f2fa5e6c51036f594306e4bc46cc7e8391be",
    ("match", 2): "ab0a6dbb1a23098c97eaf1d575f1e1fcf7145f8cff068a8166b6de9ce92cc96a",
    ("match", 3): "b64803b07cb2e004d46075391a8acd4d645dbf887f3f67ee60fd21cd8bee3275",
    ("match", 4): "3a2cbf01a1b991f639cd222aa732b1ded501ad07d0c2a7af57f4480379ed59a1",
    ("presence", 1): "292e29a3aa70d52900dcc7528f7abe9a1f616bb39736daafb9b625ed69d6dbcf",
}


def test_every_released_migration_keeps_the_checksum_databases_recorded() -> None:
    # A database migrated before refuses to start when a released migration's text
    # differs; the functions' shared pieces must put each version back word for word.
    recorded = {(m.component, m.version): m.checksum for m in MIGRATIONS}
    assert {k: v for k, v in recorded.items() if k in RELEASED} == RELEASED
