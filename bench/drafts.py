"""Benchmark of a draft's check in daphne (rooms.drafts.accept), in one process, against the pong's read.

    python bench/drafts.py [--calls 2000]

A draft skips the worker: daphne reads the game row, checks the seat, the seq and the engine's cheap
check_draft, and writes the latest draft to Redis. Players send a few a second while they drag tiles, so
it must cost about what the reads daphne already does per socket cost. The reference is the read that
answers every ping (rooms.snapshots.position: the room and its games' positions). Prints the median and
p99 of each, wall clock and the thread's CPU time, in microseconds, for a table of 60 tiles and an empty one.

Uses DATABASE_URL if set, else a fresh SQLite file in var/bench/, and the Redis at REDIS_URL, under a key
prefix of its own that it deletes at the end.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the project root, to run standalone

from bench.common import setup_django  # noqa: E402


def timed(function, calls: int) -> tuple[list[float], list[float]]:
    """Wall-clock and this thread's CPU time of each call, in microseconds."""
    wall, cpu = [], []
    for _ in range(calls):
        started, started_cpu = time.perf_counter(), time.thread_time()
        function()
        wall.append((time.perf_counter() - started) * 1e6)
        cpu.append((time.thread_time() - started_cpu) * 1e6)
    return wall, cpu


def a_game_with_a_table(tiles_on_table: int):
    """A two-seat tiles game in play whose table holds about `tiles_on_table` tiles (runs laid straight into the
    state: the draft check does not judge lines), and a draft that adds one tile of the hand to it."""
    from rooms import services
    from rooms.models import Game

    ticket = services.create_room(game="tiles", seat_count=2, options={}, host_name="Bench")
    services.join_room(room_code=ticket.room_code, name="Other")  # full: it starts
    game = Game.objects.filter(room_code=ticket.room_code).order_by("-number").first()
    seat = game.state["current"]
    services.submit_move(room_code=ticket.room_code, seat=seat, seq=game.seq, action={"type": "begin"})
    game.refresh_from_db()
    state = game.state
    on_table = state["bag"][:tiles_on_table]
    state["bag"] = state["bag"][tiles_on_table:]
    state["table"] = sorted([tile, index % 24, 2 * (index // 24)] for index, tile in enumerate(on_table))
    Game.objects.filter(pk=game.pk).update(state=state)
    free = (0, 15)
    draft = {"table": sorted([*state["table"], [state["hands"][seat][0], *free]])}
    return ticket.room_code, seat, game.seq, draft


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    setup_django("drafts", debug=True)
    from bench.common import percentile
    from rooms import drafts, live, snapshots
    from tests.support import flush_suite_redis

    try:
        print(f"{'what':<38} {'median us':>10} {'p99 us':>10} {'CPU median':>11} {'CPU p99':>10}")
        for tiles in (60, 0):
            code, seat, seq, draft = a_game_with_a_table(tiles)
            rows = {
                f"draft check, {tiles} tiles on the table": functools.partial(
                    drafts.accept, room_code=code, seat=seat, seq=seq, draft=draft),
                f"pong's read (reference), {tiles}": functools.partial(snapshots.position, code),
            }
            for name, function in rows.items():
                timed(function, 100)  # warm up: compiled queries, connections
                wall, cpu = timed(function, args.calls)
                print(f"{name:<38} {statistics.median(wall):>10.0f} {percentile(wall, 0.99):>10.0f} "
                      f"{statistics.median(cpu):>11.0f} {percentile(cpu, 0.99):>10.0f}")
        live.client().close()
    finally:
        flush_suite_redis()
    return 0


if __name__ == "__main__":
    sys.exit(main())
