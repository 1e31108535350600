"""How PostgreSQL stores the game's row, which every move rewrites (docs/architecture.md, "The game's row on
PostgreSQL"). Nothing on another database: SQLite has no such settings.

- fillfactor 70: each page of rooms_game keeps room for a new version of one of its rows, so a move's update
  stays on the row's page (a HOT update: no new entry in any of the table's three indexes, and the old
  version pruned on a later visit). At the default (100) a candles game's row, about 1.7 kB, filled the page
  and about a fifth of the moves' updates moved the row to another page, its indexes updated and the table
  growing until a vacuum.
- The state column compressed with lz4 instead of pglz, where the server has it (PostgreSQL 14 and later,
  built with lz4): a candles state is about 2.1 kB as jsonb, over the size at which PostgreSQL compresses a
  row's largest values, so every move compressed it; pglz was the largest function of the backend's own
  CPU a move. Rows written before keep their pglz values until rewritten.
"""

from django.db import migrations

TABLE = "rooms_game"
FILLFACTOR = 70


def _lz4_available(cursor) -> bool:
    """The server can compress a column with lz4: 14 and later (the setting is new), built with it."""
    cursor.execute("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
    row = cursor.fetchone()
    return row is not None and "lz4" in row[0]


def store(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    quote = schema_editor.quote_name
    with connection.cursor() as cursor:
        schema_editor.execute(f"ALTER TABLE {quote(TABLE)} SET (fillfactor = {FILLFACTOR})")
        if _lz4_available(cursor):
            schema_editor.execute(f"ALTER TABLE {quote(TABLE)} ALTER COLUMN {quote('state')} SET COMPRESSION lz4")


def unstore(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    quote = schema_editor.quote_name
    with connection.cursor() as cursor:
        schema_editor.execute(f"ALTER TABLE {quote(TABLE)} RESET (fillfactor)")
        if _lz4_available(cursor):  # SET COMPRESSION needs 14 or later
            schema_editor.execute(f"ALTER TABLE {quote(TABLE)} ALTER COLUMN {quote('state')} SET COMPRESSION default")


class Migration(migrations.Migration):

    dependencies = [
        ("rooms", "0004_game_version"),
    ]

    operations = [
        migrations.RunPython(store, unstore, elidable=False),
    ]
