"""bench/wal_checkpoints.py runs and prints each way of copying the log back (its figures are for docs/benchmarks.md,
never checked here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_benchmark_prints_each_way():
    result = subprocess.run([sys.executable, "bench/wal_checkpoints.py", "--rate", "200", "--seconds", "0.5",
                             "--every", "0.1"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    lines = result.stdout.splitlines()
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["own", "one", "two"]
    assert "the writers held" in lines[3] and "the log's file" in lines[1]
