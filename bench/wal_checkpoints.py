"""SQLite's write-ahead log under a steady writer, three ways of copying it back (rooms/checkpoints.py):

    python bench/wal_checkpoints.py [--rate 500] [--seconds 8] [--every 0.5]

- `own`: SQLite's own checkpoint, made by the commit that takes the log past 1,000 pages;
- `one`: those off, and a thread making one PASSIVE checkpoint every --every seconds;
- `two`: the worker's way, two PASSIVE checkpoints a round, the second with the process's writers held.

A thread commits --rate small transactions a second (a game's row updated, a move inserted, under one lock as
the worker's writers take it) on a scratch database in a temporary folder, with this project's pragmas (WAL,
synchronous=NORMAL). Prints each way's commit time (the lock's wait and the transaction; p50, p99, p999, the
longest), the frames in the log at each round (`PRAGMA wal_checkpoint`'s second column), the log's file at
the end and, for `two`, how long its second step held the writers.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import threading
import time
from pathlib import Path


def _connection(path: Path, *, own_checkpoints: bool) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=20)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    if not own_checkpoints:
        connection.execute("PRAGMA wal_autocheckpoint=0")
    return connection


def run(way: str, folder: Path, *, rate: float, seconds: float, every: float) -> dict:
    path = folder / f"{way}.sqlite3"
    setup = _connection(path, own_checkpoints=True)
    setup.execute("CREATE TABLE game (id INTEGER PRIMARY KEY, version INTEGER, state TEXT)")
    setup.execute("CREATE TABLE move (id INTEGER PRIMARY KEY, game INTEGER, seq INTEGER, action TEXT)")
    setup.execute("CREATE INDEX move_game ON move (game, seq)")
    setup.executemany("INSERT INTO game VALUES (?, 0, ?)", [(room, "x" * 1500) for room in range(250)])
    writers = threading.Lock()
    stopping = threading.Event()
    commits: list[float] = []
    held: list[float] = []
    frames: list[int] = []

    def write() -> None:
        connection = _connection(path, own_checkpoints=way == "own")
        due, count = time.perf_counter(), 0
        while not stopping.is_set():
            due += 1 / rate
            time.sleep(max(0.0, due - time.perf_counter()))
            began = time.perf_counter()
            with writers:
                connection.execute("BEGIN IMMEDIATE")
                connection.execute("UPDATE game SET version = version + 1, state = ? WHERE id = ?",
                                   ("y" * 1500, count % 250))
                connection.execute("INSERT INTO move (game, seq, action) VALUES (?, ?, ?)", (count % 250, count, "{}"))
                connection.execute("COMMIT")
            commits.append(time.perf_counter() - began)
            count += 1
        connection.close()

    def checkpoint() -> None:
        connection = _connection(path, own_checkpoints=False)
        while not stopping.wait(every):
            frames.append(connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])
            if way == "two":
                began = time.perf_counter()
                with writers:
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                held.append(time.perf_counter() - began)
        connection.close()

    threads = [threading.Thread(target=write)] + ([] if way == "own" else [threading.Thread(target=checkpoint)])
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stopping.set()
    for thread in threads:
        thread.join()
    log_pages = os.path.getsize(f"{path}-wal") // 4096
    setup.close()
    return {"commits": sorted(commits), "held": sorted(held), "frames": frames, "log_pages": log_pages}


def _ms(values: list[float], share: float) -> str:
    return f"{values[min(len(values) - 1, int(share * len(values)))] * 1000:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=500.0, help="commits a second")
    parser.add_argument("--seconds", type=float, default=8.0, help="how long each way writes")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between the thread's rounds")
    args = parser.parse_args()
    print(f"{args.rate:.0f} commits a second for {args.seconds:.0f} s, checkpoints every {args.every} s")
    with tempfile.TemporaryDirectory() as folder:
        for way in ("own", "one", "two"):
            result = run(way, Path(folder), rate=args.rate, seconds=args.seconds, every=args.every)
            commits, frames = result["commits"], result["frames"]
            shown = ", ".join(map(str, frames[:3] + ["..."] + frames[-2:])) if len(frames) > 5 else str(frames)
            line = (f"  {way}: {len(commits)} commits, ms p50 {_ms(commits, 0.5)} p99 {_ms(commits, 0.99)} "
                    f"p999 {_ms(commits, 0.999)} longest {commits[-1] * 1000:.2f}; frames at each round {shown}; "
                    f"the log's file {result['log_pages']} pages")
            if result["held"]:
                line += f"; the writers held p50 {_ms(result['held'], 0.5)} longest {result['held'][-1] * 1000:.2f} ms"
            print(line)


if __name__ == "__main__":
    main()
