"""What one PostgreSQL round trip of a remembered move costs, back to back and after the machine idled.

    python bench/pg_round_trip.py [--postgres-url URL] [--calls 300] [--gaps 0,5,20] [--rounds 3]

A remembered move on PostgreSQL is one pipeline (rooms.services._MoveWhereVersion; docs/architecture.md,
"Games the worker remembers"): BEGIN, SET LOCAL lock_timeout, one prepared writing WITH that updates the
game's row where its version is still the one read and inserts the move, COMMIT, and one Sync. This times
that shape on its own, with psycopg as the worker uses it, on a table whose state column holds 3.3 kB of
jsonb before compression (a candles game's is about 2.1 kB), next to:

- the same pipeline with `SET LOCAL synchronous_commit = off` (the commit not waiting for the WAL's flush:
  what the flush costs; the site never does this),
- the statement alone in autocommit (no BEGIN, SET LOCAL or COMMIT: what the transaction's own commands cost),
- a prepared SELECT 1 (the bare round trip),
- the statement alone on a new connection: what a move waited for when its thread's connection had outlived
  DB_CONN_MAX_AGE (a server process started, the session settings Django's connection and the writer's own
  send, the statement prepared there; its close too). Since the worker renews such a connection between
  requests (rooms.services.close_old_connections), no move waits for this.

Each is timed for --calls calls in a row, first back to back (gap 0), then with the process sleeping --gaps
milliseconds between calls, as a worker does between moves at a player's pace; the shapes alternate within
each of --rounds rounds. Prints the median, p90 and p99 wall time and the mean CPU of this thread, in ms.
A fresh database (wwbench_PID) is made on --postgres-url's server and dropped at the end.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the project root, to run standalone

from bench.common import fresh_postgres_database, percentile  # noqa: E402

GAMES = 10  # rows written in turn, as the moves of several rooms
WRITE = ("WITH written AS (UPDATE game SET state = %s, seq = seq + 1, version = version + 1 "
         "WHERE id = %s AND version = %s RETURNING 1) "
         "INSERT INTO move (game_id, seq, action) SELECT %s, %s, %s FROM written")


class Table:
    """The game rows and moves of the run's database, and the versions this side last wrote."""

    def __init__(self, connection, url: str):
        self.connection, self.url = connection, url
        self.cursor = connection.cursor()
        self.state = json.dumps({"hands": [list(range(40))] * 4, "shelf": list(range(60)), "log": ["x" * 40] * 12})
        connection.execute("CREATE TABLE game (id int PRIMARY KEY, version int, seq int, state jsonb) "
                           "WITH (fillfactor = 70)")
        connection.execute("CREATE TABLE move (id bigserial PRIMARY KEY, game_id int, seq int, action jsonb)")
        for game in range(GAMES):
            connection.execute("INSERT INTO game VALUES (%s, 0, 0, %s)", (game, self.state))
        self.versions = [0] * GAMES
        self.calls = 0

    def _params(self) -> tuple:
        game = self.calls % GAMES
        self.calls += 1
        return game, (self.state, game, self.versions[game], game, self.calls, '{"candle": 1}')

    def pipeline(self, *, flushed: bool = True) -> None:
        game, params = self._params()
        session = self.connection
        with session.pipeline():
            session.execute("BEGIN", prepare=False)
            session.execute("SET LOCAL lock_timeout = '100ms'", prepare=False)
            if not flushed:
                session.execute("SET LOCAL synchronous_commit = off", prepare=False)
            self.cursor.execute(WRITE, params, prepare=True)
            session.execute("COMMIT", prepare=False)
        self._written(game)

    def alone(self) -> None:
        game, params = self._params()
        self.cursor.execute(WRITE, params, prepare=True)
        self._written(game)

    def alone_on_a_new_connection(self) -> None:
        import psycopg

        game, params = self._params()
        with psycopg.connect(self.url, autocommit=True) as fresh:
            fresh.execute("SELECT set_config('TimeZone', 'UTC', false)")  # Django's, as it connects
            fresh.execute("SET lock_timeout = '100ms'")  # the writer's session (config/postgresql)
            cursor = fresh.cursor()
            cursor.execute(WRITE, params, prepare=True)
            self._written(game, cursor)

    def select_one(self) -> None:
        self.cursor.execute("SELECT 1", prepare=True)
        self.cursor.fetchall()

    def _written(self, game: int, cursor=None) -> None:
        if (cursor or self.cursor).rowcount != 1:
            raise RuntimeError("the write found another version: nothing else writes this table")
        self.versions[game] += 1


def measure(table: Table, *, calls: int, gaps_ms: list[float], rounds: int) -> None:
    shapes = {
        "the move's pipeline": table.pipeline,
        "the same, commit not flushed": lambda: table.pipeline(flushed=False),
        "the statement alone": table.alone,
        "SELECT 1": table.select_one,
        "alone, on a new connection": table.alone_on_a_new_connection,
    }
    for shape in shapes.values():  # prepared, and the pages warm, before anything is timed
        for _ in range(50):
            shape()
    for gap_ms in gaps_ms:
        walls: dict[str, list[float]] = {name: [] for name in shapes}
        cpus: dict[str, list[float]] = {name: [] for name in shapes}
        for _round in range(rounds):
            for name, shape in shapes.items():
                for _ in range(calls):
                    if gap_ms:
                        time.sleep(gap_ms / 1000)
                    cpu, wall = time.thread_time(), time.perf_counter()
                    shape()
                    walls[name].append(time.perf_counter() - wall)
                    cpus[name].append(time.thread_time() - cpu)
        print(f"{'back to back' if not gap_ms else f'after {gap_ms:g} ms idle'} ({calls * rounds} calls each):")
        for name in shapes:
            wall = walls[name]
            print(f"  {name:30} median {statistics.median(wall) * 1e3:6.3f}  p90 {percentile(wall, 0.9) * 1e3:6.3f}  "
                  f"p99 {percentile(wall, 0.99) * 1e3:6.3f} ms   CPU {statistics.mean(cpus[name]) * 1e3:6.3f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--calls", type=int, default=300, help="calls of each shape in a row, a round")
    parser.add_argument("--gaps", default="0,5,20", help="idle milliseconds between calls, comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import psycopg

    gaps = [float(gap) for gap in args.gaps.split(",") if gap.strip()]
    with (fresh_postgres_database(args.postgres_url) as (url, _name),
          psycopg.connect(url, autocommit=True) as connection):
        measure(Table(connection, url), calls=args.calls, gaps_ms=gaps, rounds=args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
