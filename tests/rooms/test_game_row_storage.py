"""How PostgreSQL stores the game's row (rooms/migrations/0005_game_row_storage.py): rooms_game keeps room on
each page for a move's new version of a row (fillfactor), so most moves' updates stay on the row's page; the
state column is compressed with lz4 where the server has it. On SQLite the migration does nothing."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE, AFTER = ("rooms", "0004_game_version"), ("rooms", "0005_game_row_storage")


def _storage() -> tuple[list[str], str | None]:
    """rooms_game's storage options and its state column's compression method ('' for the server's default)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'rooms_game'")
        options = cursor.fetchone()[0] or []
        cursor.execute("SELECT attcompression FROM pg_attribute "
                       "WHERE attrelid = 'rooms_game'::regclass AND attname = 'state'")
        compression = cursor.fetchone()[0]
    return options, compression


def _lz4_available() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
        row = cursor.fetchone()
    return row is not None and "lz4" in row[0]


def _migrate(target) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])


def test_the_migration_goes_both_ways_and_does_nothing_on_sqlite():
    try:
        _migrate(BEFORE)
        if connection.vendor == "postgresql":
            assert _storage() == ([], "")
        _migrate(AFTER)
        if connection.vendor == "postgresql":
            options, compression = _storage()
            assert options == ["fillfactor=70"]
            assert compression == ("l" if _lz4_available() else "")
    finally:
        _migrate(AFTER)
