"""The live-play benchmark's own bookkeeping: a phase starts only once the server is done with the one
before."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from bench import live_load


def test_a_phase_waits_until_daphne_and_the_worker_are_both_quiet(monkeypatch):
    """daphne busy with the sockets that left, then the worker with their grace periods: the wait ends only
    once neither is, and returns daphne's CPU meanwhile."""
    readings = iter([{"daphne": 0.0, "worker": 0.0}, {"daphne": 0.3, "worker": 0.0},
                     {"daphne": 0.31, "worker": 0.2}, {"daphne": 0.32, "worker": 0.21}])
    server = live_load.Server.__new__(live_load.Server)  # no processes: their CPU is read from `readings`
    server.cpu_seconds = lambda: next(readings)
    monkeypatch.setattr(live_load, "time", SimpleNamespace(sleep=lambda seconds: None, monotonic=time.monotonic))
    assert server.settle() == pytest.approx(0.32)


def test_without_proc_the_wait_is_skipped():
    server = live_load.Server.__new__(live_load.Server)
    server.cpu_seconds = dict
    assert server.settle() == 0.0
