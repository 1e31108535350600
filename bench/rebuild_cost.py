"""What the worker's rebuild of the live index costs (services.rebuild_live_index, every minute beside the
moves): N rooms of four people with a game of candles in play, every seat's socket present as in live play.

    python bench/rebuild_cost.py [--rooms 250] [--repeat 10]

Prints the median and the lowest of the rebuild's wall clock and thread CPU, in milliseconds, and the
queries it ran. Uses DATABASE_URL if set, else a fresh SQLite file in var/bench/, and a Redis at REDIS_URL
(started locally when none answers), under a key prefix of its own that it deletes at the end."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import setup_django  # noqa: E402
from scripts.localredis import started_redis  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=250)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    with started_redis(os.environ.get("REDIS_URL")) as redis_url:
        setup_django("rebuild_cost", redis_url=redis_url)
        try:
            return run(args)
        finally:
            from tests.support import flush_suite_redis

            flush_suite_redis()


def run(args) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from bench.move_cost import new_rooms
    from rooms import live, services

    for code in new_rooms(args.rooms):
        for seat in range(4):
            live.presence_join(code, seat, f"bench.{code}.{seat}")
    services.rebuild_live_index()  # warm
    wall, cpu = [], []
    with CaptureQueriesContext(connection) as queries:
        services.rebuild_live_index()
    for _ in range(args.repeat):
        started, started_cpu = time.perf_counter(), time.thread_time()
        counts = services.rebuild_live_index()
        wall.append((time.perf_counter() - started) * 1e3)
        cpu.append((time.thread_time() - started_cpu) * 1e3)
    print(f"{connection.vendor}, {args.rooms} rooms with a game in play ({counts}), {len(queries)} queries a rebuild")
    print(f"rebuild ms: wall clock median {statistics.median(wall):.1f} (lowest {min(wall):.1f}), "
          f"thread CPU median {statistics.median(cpu):.1f} (lowest {min(cpu):.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
