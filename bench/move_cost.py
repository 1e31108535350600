"""What one socket move costs the worker, in one process: candles moves played as the worker plays them.

    python bench/move_cost.py [--rooms 10] [--moves 2000] [--profile]
    python bench/move_cost.py --starts 300 [--profile]
    python bench/move_cost.py --bots 2 [--bots-locked]

Each move goes through the worker's own path (rooms.move_queue.play, with the answer-key claim, the games
remembered by room, and the update published to Redis), between the connection's upkeep the worker runs
around every request (close_old_connections(), with Django's health check on the first query after it), and
with the replies of its round trip after the commit read at its end, as the worker reads them.
Rooms of four people play in turn, one seat of each room after the other, and a room that ends its game
plays again (those starts are not counted). --together queues each room's round at once and plays it as the
worker plays a room's queued moves (one write, one commit). --locked plays every move the locked way;
--statements lists, on PostgreSQL, what a move sends to the server.

With --bots K the last K seats of each room are bots: their moves are played as the worker plays a bot's
turn (services.play_bot_turn, handed the memory the players' moves use, a chooser that takes no time, and the
connection's upkeep the worker runs around each timer), and the players' moves and the bots' are printed
apart. --bots-locked plays the bots' turns without the memory, as the worker did before.

Prints, in milliseconds, the median and p99 of each move's wall-clock time, of its thread's CPU time, and
of the time it held what the next writer of the room waits on: SQLite's writer lock (one per process, for
every room) or, on PostgreSQL, the game's row (from the statement that locks it to the commit). With
--profile, the functions that took the most time over the timed moves (cProfile).

With WICKWISE_SAMPLE_STACKS=FILE, its stacks sampled from the first timed move to the last (rooms/sampler.py;
`python bench/stacks_report.py FILE --within play` for the moves' own).

With --starts N, what a start costs instead: N games started (after 20 untimed), each in a fresh room of
four people, by its host's socket request through the same path (services.start_game, its update to every
seat, the room's update and the timers).

Uses DATABASE_URL if set, else a fresh SQLite file in var/bench/, and a Redis at REDIS_URL (started locally
when none answers), under a key prefix of its own that it deletes at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the project root, to run standalone

from bench.common import percentile, setup_django  # noqa: E402
from scripts.localredis import started_redis  # noqa: E402


class HeldLock:
    """SQLite's writer lock, timing how long each outermost hold lasts."""

    def __init__(self, lock, held: list[float]):
        self.lock, self.held = lock, held
        self.depth = 0
        self.since = 0.0

    def __enter__(self):
        self.lock.acquire()
        self.depth += 1
        if self.depth == 1:
            self.since = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        if self.depth == 0:
            self.held.append(time.perf_counter() - self.since)
        self.lock.release()

    def acquire(self, *args, **kwargs):
        self.__enter__()
        return True

    def release(self):
        self.__exit__(None, None, None)


class HeldRow:
    """On PostgreSQL: from the statement that locks the game's row (a FOR UPDATE, or the move's one
    statement) to the end of its commit."""

    def __init__(self, held: list[float]):
        self.held = held
        self.since: float | None = None

    def __call__(self, execute, sql, params, many, context):
        locks = "FOR UPDATE" in sql or "WITH written" in sql
        if locks and self.since is None:
            self.since = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            if "WITH written" in sql and self.since is not None:  # it commits by itself
                self.held.append(time.perf_counter() - self.since)
                self.since = None

    def committed(self):
        if self.since is not None:
            self.held.append(time.perf_counter() - self.since)
            self.since = None


def new_rooms(count: int, *, start: bool = True, bots: int = 0) -> list[str]:
    from rooms import services

    codes = []
    for number in range(count):
        host = services.create_room(game="candles", seat_count=4, options={}, host_name=f"Host {number}")
        for seat in range(1, 4 - bots):  # the seats left free get bots at the start
            services.join_room(room_code=host.room_code, name=f"Player {number}-{seat}")
        if start:
            services.start_game(room_code=host.room_code, seat=0)
        codes.append(host.room_code)
    return codes


def payload(kind: str, code: str, seat: int, *, seq=None, action=None) -> dict:
    now = time.time()
    return {"kind": kind, "room": code, "seat": seat, "seq": seq, "action": action, "mover": uuid.uuid4().hex,
            "reply_to": "bench.nobody", "language": "en", "ref": None, "sent_at": now, "deadline": now + 5.0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--moves", type=int, default=2000, help="moves timed (after 200 untimed)")
    parser.add_argument("--starts", type=int, default=0, help="time this many starts instead of moves")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions over the timed moves")
    parser.add_argument("--top", type=int, default=35)
    parser.add_argument("--together", action="store_true",
                        help="each room's round (its four picks) queued at once, played together as the worker does "
                             "(move_queue.play_together); each move's times are its round's over four")
    parser.add_argument("--locked", action="store_true",
                        help="play every move the locked way (no game remembered), as a move the worker forgot")
    parser.add_argument("--database-options", type=json.loads, default={},
                        help='JSON added to the database\'s OPTIONS, e.g. {"server_side_binding": true}')
    parser.add_argument("--bots", type=int, choices=range(4), default=0,
                        help="the last K seats of each room are bots, their turns played as the worker plays them")
    parser.add_argument("--bots-locked", action="store_true",
                        help="with --bots: the bots' turns without the players' memory (the locked way)")
    parser.add_argument("--statements", action="store_true",
                        help="on PostgreSQL, list what each move sent to the server, the health check included")
    args = parser.parse_args()
    if args.bots and (args.together or args.starts):
        parser.error("--bots plays one move at a time: not with --together or --starts")
    with started_redis(os.environ.get("REDIS_URL")) as redis_url:
        setup_django("move_cost", redis_url=redis_url)
        try:
            return run(args)
        finally:
            from tests.support import flush_suite_redis

            flush_suite_redis()
            database = os.environ["DATABASE_URL"]
            if database.startswith("sqlite:///") and "move-cost-" in database:
                for suffix in ("", "-wal", "-shm"):
                    Path(database.removeprefix("sqlite:///") + suffix).unlink(missing_ok=True)


def run(args) -> int:
    from django.db import close_old_connections, connection
    from django.db.backends.base.base import BaseDatabaseWrapper

    from rooms import live, move_queue, sampler, services
    from rooms.models import Game

    stacks = sampler.install()  # WICKWISE_SAMPLE_STACKS: counted from the first timed move to the last
    if args.database_options:  # for the connection opened next
        connection.settings_dict["OPTIONS"].update(args.database_options)
        connection.close()
    held: list[float] = []
    row = HeldRow(held)
    if connection.vendor == "sqlite":
        services._sqlite_writer = HeldLock(services._sqlite_writer, held)
    else:
        commit = BaseDatabaseWrapper.commit

        def timed_commit(self):
            try:
                return commit(self)
            finally:
                row.committed()

        BaseDatabaseWrapper.commit = timed_commit
    if args.starts:
        return run_starts(args, held)
    rooms = new_rooms(args.rooms, bots=args.bots)
    memory: dict = {}
    wall: list[float] = []
    cpu: list[float] = []
    holds: list[float] = []
    bot_seats = range(4 - args.bots, 4)
    by_kind: dict[str, list[tuple[float, float, int]]] = {"player": [], "bot": []}  # (wall, CPU, statements)
    statements, counted = statement_counter()
    sent = SentCounter() if args.statements and connection.vendor == "postgresql" else None

    def play(request: dict) -> None:  # as MovePlayer._play_one, but for its bookkeeping in Redis
        close_old_connections()
        try:
            with live.replies_later():  # the round trip after the commit sent, its replies read at the end
                move_queue.play(request, games_in_play={} if args.locked else memory)
        finally:
            try:
                live.settle()
            finally:  # as the worker's: its connection's upkeep whether or not the replies could be read
                close_old_connections()

    def play_bot(code: str, game: Game, seat: int) -> None:  # as the worker's run_one, but for its lease
        close_old_connections()
        try:
            # without the memory, the call as the worker made it before it had one to give
            given = {} if args.bots_locked else {"games_in_play": memory}
            services.play_bot_turn(game_id=game.pk, seat=seat, prompt=game.prompts[str(seat)], choose=lowest_candle,
                                   **given)
        finally:
            services.close_old_connections(renew_aging=True)

    def play_round(requests: list[dict]) -> None:  # as MovePlayer._play_together, but for its bookkeeping
        close_old_connections()
        try:
            with live.replies_later():
                answered = move_queue.play_together(requests, games_in_play=memory)
                for index, request in enumerate(requests):  # the game's last pick, say: the usual way
                    if index not in answered:
                        move_queue.play(request, games_in_play=memory)
        finally:
            try:
                live.settle()
            finally:
                close_old_connections()

    def latest(code: str) -> Game:
        return Game.objects.filter(room_code=code).order_by("-number").first()

    profile = cProfile.Profile() if args.profile else None
    warm_up, timed_moves = 200, 0
    backend = None
    played = 0
    while timed_moves < args.moves:
        games = {code: latest(code) for code in rooms}
        for code, game in games.items():
            if game.status != Game.Status.PLAYING:
                play(payload("play_again", code, 0))
                games[code] = latest(code)
        for seats in [range(4)] if args.together else [[seat] for seat in range(4)]:
            for code in rooms:
                game = games[code]
                if timed_moves >= args.moves:
                    break
                requests = [payload("move", code, seat, seq=game.seq,
                                    action={"type": "play", "candle": game.state["hands"][seat][0]}) for seat in seats]
                timing = played >= warm_up
                bot = seats[0] in bot_seats
                statements_before = statements[0]
                del held[:]
                with connection.execute_wrapper(counted), connection.execute_wrapper(row):
                    if timing and profile is not None:
                        profile.enable()
                    if sent is not None:
                        sent.on = timing
                    with sent if sent is not None else contextlib.nullcontext():
                        started, started_cpu = time.perf_counter(), time.thread_time()
                        if args.together:
                            play_round(requests)
                        elif bot:
                            play_bot(code, game, seats[0])
                        else:
                            play(requests[0])
                        ended, ended_cpu = time.perf_counter(), time.thread_time()
                    if timing and profile is not None:
                        profile.disable()
                played += len(requests)
                if timing:
                    for _move in requests:  # a round played together: each move its share
                        wall.append((ended - started) * 1e3 / len(requests))
                        cpu.append((ended_cpu - started_cpu) * 1e3 / len(requests))
                        holds.append(sum(held) * 1e3 / len(requests))
                    if args.bots and timed_moves:  # the first timed move's statements are not counted (below)
                        by_kind["bot" if bot else "player"].append(
                            (wall[-1], cpu[-1], statements[0] - statements_before))
                    timed_moves += len(requests)
                    if timed_moves == len(requests):
                        if stacks is not None:
                            stacks.forget()
                        statements[0] = 0
                        if sent is not None:
                            sent.sent.clear()
                            sent.round_trips = 0
                        backend = BackendCPU() if connection.vendor == "postgresql" else None
                    elif backend is not None:
                        backend.look()
    if stacks is not None:
        stacks.write(sampler.PATH)
    print(f"{connection.vendor}, {args.rooms} rooms, {len(wall)} moves timed after {warm_up}, "
          f"{statements[0] / max(1, len(wall) - 1):.2f} SQL statements a move")
    if backend is not None and backend.cpu() is not None:
        print(f"PostgreSQL's backend CPU a move: {backend.cpu() * 1e3 / max(1, len(wall) - 1):.3f} ms "
              f"(its own process, from /proc)")
    print(f"{'ms a move':<28} {'median':>8} {'p90':>8} {'p99':>8}")
    for name, values in (("wall clock", wall), ("thread CPU", cpu), ("writer held" if connection.vendor == "sqlite"
                                                                    else "game row held", holds)):
        print(f"{name:<28} {statistics.median(values):>8.3f} {percentile(values, 0.9):>8.3f} "
              f"{percentile(values, 0.99):>8.3f}")
    if args.bots:
        print(f"by who moved ({'bots without the memory' if args.bots_locked else 'bots on the memory'}), "
              "ms a move, median / p90 / p99:")
        for kind, rows in by_kind.items():
            walls, cpus, counts = zip(*rows, strict=True)
            print(f"  {kind:<7} {len(rows):>5} moves, {statistics.mean(counts):5.2f} SQL statements a move; wall "
                  f"{statistics.median(walls):.3f} / {percentile(walls, 0.9):.3f} / {percentile(walls, 0.99):.3f}; "
                  f"thread CPU {statistics.median(cpus):.3f} / {percentile(cpus, 0.9):.3f} / "
                  f"{percentile(cpus, 0.99):.3f}")
    if sent is not None:
        moves = max(1, len(wall) - 1)
        print(f"sent to PostgreSQL a move ({sum(sent.sent.values()) / moves:.2f} in all, the health check "
              f"and transaction commands included; {sent.round_trips / moves:.2f} round trips):")
        for sql, count in sent.sent.most_common():
            print(f"  {count / moves:5.2f}  {sql}")
    print_profile(profile, args.top)
    return 0


class BackendCPU:
    """The CPU time (user + system) of this process's PostgreSQL backends since made, where the server runs
    on this machine: its thread's connection and the one for the remembered moves' writes
    (services._statement_alone_db); a backend opened meanwhile counts from its start."""

    def __init__(self):
        self.before: dict[int, float] = {}
        self.now: dict[int, float] = {}
        self.look()
        self.before = dict(self.now)

    def look(self) -> None:
        from django.db import connection

        from rooms import services

        writer = getattr(services._STATEMENT_ALONE, "db", None)
        for database in (connection, writer):
            pid = database.connection.info.backend_pid if database and database.connection is not None else None
            if pid is None:
                continue
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            self.now[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def cpu(self) -> float | None:
        if not self.now:
            return None
        return sum(used - self.before.get(pid, 0.0) for pid, used in self.now.items())


class SentCounter:
    """What this process sends to PostgreSQL while `on`, from libpq's own trace of the protocol (psycopg's
    public PGconn.trace()), below Django: the health check, and the BEGIN and COMMIT psycopg sends itself,
    which execute wrappers never see, included. A prepared statement's run is a Bind naming it, its text
    found in the Parse that prepared it on that connection (every move is traced, the untimed ones too, so
    that Parse is seen). Also counts the round trips (each ReadyForQuery awaited).

    Each move is traced on its own: libpq writes through a buffer it flushes only when the trace stops."""

    PREPARED = "prepared: "

    def __init__(self):
        import collections
        import tempfile

        from django.db.backends.signals import connection_created

        self.sent: collections.Counter = collections.Counter()
        self.round_trips = 0
        self.on = False
        self.file = tempfile.TemporaryFile("w+b")  # noqa: SIM115 - kept open for the run
        self.names: dict[str, str] = {}  # a statement's name on the connection traced -> its text
        self.backend: int | None = None
        self.traced: list = []
        connection_created.connect(self.created, weak=False)

    def trace(self, pgconn) -> None:
        from psycopg import pq

        pgconn.trace(self.file.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS)
        self.traced.append(pgconn)

    def created(self, sender, connection, **kwargs) -> None:  # a connection opened during a traced move
        if self.traced and connection.vendor == "postgresql":
            self.trace(connection.connection.pgconn)

    def __enter__(self):
        from django.db import connection

        self.file.seek(0)
        self.file.truncate()
        if connection.connection is not None:
            if connection.connection.info.backend_pid != self.backend:  # another connection, other names
                self.backend = connection.connection.info.backend_pid
                # those it prepared before its trace (the set-up's moves), from the server's view
                self.names = dict(connection.connection.execute(
                    "SELECT name, statement FROM pg_prepared_statements").fetchall())
            self.trace(connection.connection.pgconn)
        return self

    def __exit__(self, *exc):
        for pgconn in self.traced:
            if pgconn.status == 0:  # still open (CONNECTION_OK)
                pgconn.untrace()
        self.traced.clear()
        self.file.seek(0)
        for line in self.file.read().decode(errors="replace").splitlines():
            self.read(line)

    def read(self, line: str) -> None:
        import re

        direction, _length, kind, *rest = line.split("\t", 3) + [""]
        text = rest[0].strip()
        if direction == "B":
            self.round_trips += self.on and kind == "ReadyForQuery"
            return
        key = None
        if kind == "Query":
            key = text[1:-1]
        elif kind == "Parse":
            name, _, query = text.partition(" ")
            name = name.strip('"')
            query = re.sub(r'" \d+( \d+)*$', "", query)[1:]
            if name:
                self.names[name] = query  # named: prepared, run by a Bind below
                key = "prepare: " + query
            else:
                key = query
        elif kind == "Bind":
            statement = text.split(" ")[1].strip('"')
            if statement:
                key = self.PREPARED + self.names.get(statement, statement)
        if key is not None and self.on:
            # Django binds its own queries in the client: their values, as placeholders, to count them together
            key = re.sub(r"= \d+", "= N", re.sub(r"'(?:[^']|'')*'", "'…'", key))
            self.sent[" ".join(key.split())[:90]] += 1


def print_profile(profile: cProfile.Profile | None, top: int) -> None:
    if profile is not None:
        for order in ("cumulative", "tottime"):
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats(order).print_stats(top)
            print(out.getvalue())


def lowest_candle(game: str, view: dict, level: str) -> dict:
    """A bot that takes no time to decide: what is timed is the turn's reads and writes."""
    return {"type": "play", "candle": min(view["hand"])}


def statement_counter():
    """A list holding the number of SQL statements run, and the execute wrapper that counts them."""
    statements = [0]

    def counted(execute, sql, params, many, context):
        statements[0] += 1
        return execute(sql, params, many, context)

    return statements, counted


def run_starts(args, held: list[float]) -> int:
    """Each start as the worker plays a host's socket request, in a room of four people."""
    from django.db import close_old_connections, connection

    from rooms import move_queue

    warm_up = 20
    rooms = new_rooms(warm_up + args.starts, start=False)
    wall: list[float] = []
    cpu: list[float] = []
    holds: list[float] = []
    statements, counted = statement_counter()

    profile = cProfile.Profile() if args.profile else None
    for number, code in enumerate(rooms):
        timing = number >= warm_up
        del held[:]
        if number == warm_up:
            statements[0] = 0
        with connection.execute_wrapper(counted):
            if timing and profile is not None:
                profile.enable()
            started, started_cpu = time.perf_counter(), time.thread_time()
            close_old_connections()
            try:
                move_queue.play(payload("start", code, 0), games_in_play={})
            finally:
                close_old_connections()
            ended, ended_cpu = time.perf_counter(), time.thread_time()
            if timing and profile is not None:
                profile.disable()
        if timing:
            wall.append((ended - started) * 1e3)
            cpu.append((ended_cpu - started_cpu) * 1e3)
            holds.append(sum(held) * 1e3)
    print(f"{connection.vendor}, {len(wall)} starts timed after {warm_up}, "
          f"{statements[0] / max(1, len(wall)):.2f} SQL statements a start")
    print(f"{'ms a start':<28} {'median':>8} {'p90':>8} {'p99':>8}")
    rows = [("wall clock", wall), ("thread CPU", cpu)]
    if connection.vendor == "sqlite":
        rows.append(("writer held", holds))
    for name, values in rows:
        print(f"{name:<28} {statistics.median(values):>8.3f} {percentile(values, 0.9):>8.3f} "
              f"{percentile(values, 0.99):>8.3f}")
    print_profile(profile, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
