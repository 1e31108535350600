"""How PostgreSQL stores the game's row (rooms/migrations/0005_game_row_storage.py): rooms_game keeps room on
each page for a move's new version of a row (fillfactor), so a move's update stays on the row's page; the
state column is compressed with lz4 where the server has it. On SQLite the migration does nothing."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from rooms import services
from tests.rooms.helpers import candle_for, game_in_play, started_room

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


def test_a_move_rewrites_the_games_row_on_its_own_page():
    """A HOT update: no new index entries, the old versions pruned when the page is next visited. At the
    default fillfactor a candles row (about 1.7 kB) moved to another page within a few moves."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's pages")
    code, _tickets, game = started_room(4)
    memory: dict = {}

    def page() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT (ctid::text::point)[0]::int FROM rooms_game WHERE id = %s", [game.pk])
            return cursor.fetchone()[0]

    first = page()
    for move in range(12):  # three rounds, the remembered way after the first
        game = game_in_play(code)
        services.submit_move(room_code=code, seat=move % 4, seq=game.seq, action=candle_for(game, move % 4),
                             games_in_play=memory)
        assert page() == first, f"the row left its page at move {move + 1}"
