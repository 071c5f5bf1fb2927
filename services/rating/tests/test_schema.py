"""The rating migrations are released: their text, and so their checksums, never change."""

from __future__ import annotations

from services.rating.schema import MIGRATIONS

RELEASED = {
    1: "4714479e48c3b7afc8da735798c1027c5ad1b44d080cf9d1242329d3ed61729d",
    2: "9d95a4ad6c31b94786ef36e924f5b9c6abee3a58c6c57fc83c34f37a42d8295a",
}


def test_every_released_migration_keeps_the_checksum_databases_recorded() -> None:
    # A database migrated before refuses to start when a released migration's text
    # differs; the functions' shared pieces must put each version back word for word.
    assert {m.version: m.checksum for m in MIGRATIONS if m.version in RELEASED} == RELEASED
