"""The worker's WAL checkpoints on SQLite (rooms/checkpoints.py): its connections make none at their commits, a
thread of its own makes them, and other processes' connections, or another database, are left as they were."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from django.db import connection, connections

from rooms import checkpoints
from tests.rooms.helpers import room_with

pytestmark = pytest.mark.django_db(transaction=True)


def _automatic_checkpoint_pages() -> int:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_autocheckpoint")
        return cursor.fetchone()[0]


def _in_a_new_thread(function):
    """`function()` on a thread of its own, as a move thread runs: with a database connection of its own."""
    result = []

    def run():
        try:
            result.append(function())
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=10)
    return result[0]


@pytest.fixture
def sqlite_only():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's write-ahead log")


def test_the_worker_s_connections_make_no_checkpoint_and_its_thread_copies_the_log_back(sqlite_only):
    # The last connection to close checkpoints the whole log itself: one held open keeps the log as written.
    holder = sqlite3.connect(connection.settings_dict["NAME"])
    holder.execute("SELECT count(*) FROM sqlite_master").fetchone()  # it has the log open from its first read
    assert _automatic_checkpoint_pages() == 1000  # SQLite's own, on a connection of any other process
    checkpointer = checkpoints.leave_checkpoints_to_a_thread()
    try:
        assert _in_a_new_thread(_automatic_checkpoint_pages) == 0  # a move thread's connection, say
        assert _automatic_checkpoint_pages() == 0  # this thread's, opened again
        checkpointer.stopping.set()  # its thread stops; this test makes the checkpoints itself
        checkpointer.thread.join(timeout=10)
        checkpoints.checkpoint()
        _in_a_new_thread(lambda: room_with(2))  # some commits: the log grows, and nothing copies it back
        busy, frames, copied = checkpoints.checkpoint()
        assert busy == 0 and frames > 0 and copied == frames
    finally:
        checkpointer.stop()
        holder.close()
    connection.close()
    assert _automatic_checkpoint_pages() == 1000  # stopped: SQLite's own again


def test_the_thread_checkpoints_every_so_often_until_stopped(sqlite_only):
    checkpointer = checkpoints.Checkpointer(every=0.05).start()
    try:
        deadline = time.monotonic() + 5
        while checkpointer.made < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert checkpointer.made >= 3
    finally:
        checkpointer.stop()
    assert not checkpointer.thread.is_alive()


def test_a_failed_checkpoint_is_logged_and_the_next_one_made(sqlite_only, monkeypatch, caplog):
    calls = []

    def failing_once():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("database is locked")
        return (0, 0, 0)

    monkeypatch.setattr(checkpoints, "checkpoint", failing_once)
    checkpointer = checkpoints.Checkpointer(every=0.02).start()
    try:
        deadline = time.monotonic() + 5
        while checkpointer.made < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        checkpointer.stop()
    assert checkpointer.made >= 1 and len(calls) >= 2
    assert "a WAL checkpoint failed" in caplog.text


def test_another_database_keeps_its_own_ways():
    if connection.vendor == "sqlite":
        pytest.skip("for databases other than SQLite")
    assert checkpoints.leave_checkpoints_to_a_thread() is None
