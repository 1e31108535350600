"""bench/pg_round_trip.py runs against the suite's PostgreSQL and prints every shape it times (on SQLite runs of
the suite there is no server to time)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"),
                    reason="times a PostgreSQL server: the suite's own when it runs on one")
def test_it_times_each_shape_back_to_back_and_after_an_idle_gap():
    done = subprocess.run(
        [sys.executable, "bench/pg_round_trip.py", "--postgres-url", os.environ["DATABASE_URL"], "--calls", "5",
         "--gaps", "0,1", "--rounds", "1"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "back to back (5 calls each):" in done.stdout and "after 1 ms idle (5 calls each):" in done.stdout
    for shape in ("the move's pipeline", "the same, commit not flushed", "the statement alone", "SELECT 1",
                  "alone, on a new connection"):
        assert done.stdout.count(shape) == 2, done.stdout
