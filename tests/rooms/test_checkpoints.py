"""The worker's WAL checkpoints on SQLite (rooms/checkpoints.py): its connections make none at their commits, a
thread of its own makes them, and other processes' connections, or another database, are left as they were."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from django.db import connection, connections, transaction

from rooms import checkpoints, services

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


@pytest.fixture
def scratch(sqlite_only):
    """A table to write pages into, and a connection held open: the last connection to close copies the whole log
    back itself, which would hide what the test looks for."""
    holder = sqlite3.connect(connection.settings_dict["NAME"])
    holder.execute("SELECT count(*) FROM sqlite_master").fetchone()  # it has the log open from its first read
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS checkpoint_scratch (id INTEGER PRIMARY KEY, page BLOB)")
    yield
    holder.close()
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE checkpoint_scratch")


@pytest.fixture
def worker_connections(scratch):
    """Connections opened from now on are the worker's (no checkpoint at their commits); its thread stopped at
    once, so that the test makes the checkpoints itself."""
    checkpointer = checkpoints.leave_checkpoints_to_a_thread()
    checkpointer.stopping.set()
    checkpointer.thread.join(timeout=10)
    yield
    checkpointer.stop()
    connection.close()


def _write_pages(count: int) -> int:
    """`count` commits of about a page each, as the process's writers make them; returns how many."""
    with connection.cursor() as cursor:
        for _each in range(count):
            with services.writers_held(), transaction.atomic():
                cursor.execute("INSERT INTO checkpoint_scratch (page) VALUES (%s)", [os.urandom(3000)])
    return count


_DIGEST = "import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())"


def _database_file() -> str:
    """A digest of the database file, read by another process. Closing a descriptor of the file in this one
    would drop every POSIX lock that this process's SQLite connections hold on it (SQLite's "how to corrupt"
    page): a connection closed later, by the collector, could then take itself for the last one and remove
    the log and its index under the others, whose next connections fail with "disk I/O error"."""
    return subprocess.run([sys.executable, "-c", _DIGEST, connection.settings_dict["NAME"]], capture_output=True,
                          text=True, check=True, timeout=60).stdout


def test_the_worker_s_commits_leave_the_log_to_its_thread_which_copies_it_back(scratch):
    before = _database_file()
    _in_a_new_thread(lambda: _write_pages(1200))
    assert _database_file() != before  # SQLite's own: the commit past 1,000 pages copied the log back
    checkpoints.checkpoint()
    assert _automatic_checkpoint_pages() == 1000  # on a connection of any other process
    checkpointer = checkpoints.leave_checkpoints_to_a_thread()
    checkpointer.stopping.set()  # its thread stops at once: this test makes the checkpoints itself
    checkpointer.thread.join(timeout=10)
    try:
        assert _in_a_new_thread(_automatic_checkpoint_pages) == 0  # a move thread's connection, say
        assert _automatic_checkpoint_pages() == 0  # this thread's, opened again
        before = _database_file()
        _in_a_new_thread(lambda: _write_pages(1200))
        assert _database_file() == before  # past 1,000 pages, and no commit copied the log back
        busy, frames, copied = checkpoints.checkpoint()
        assert busy == 0 and copied == frames > 0
        assert _database_file() != before
    finally:
        checkpointer.stop()
        connection.close()
    assert _automatic_checkpoint_pages() == 1000  # stopped: SQLite's own again


def test_the_log_is_written_again_from_its_start_while_writers_go_on(worker_connections):
    """A checkpoint copies only the frames there when it began: with commits during each one, the log was never
    wholly copied back, and grew for as long as they went on. The second, short step holds this process's writers,
    so the next one writes the log again from its start."""
    stop = threading.Event()
    written = [0]

    def write_until_stopped():
        while not stop.is_set():
            written[0] += _write_pages(1)

    checkpoints.checkpoint()  # what earlier tests left in the log copied back first
    writer = threading.Thread(target=_in_a_new_thread, args=(write_until_stopped,))
    writer.start()
    frames = []
    try:
        for _cycle in range(8):
            time.sleep(0.05)
            frames.append(checkpoints.checkpoint()[1])
    finally:
        stop.set()
        writer.join(timeout=10)
    # The frames in the log fall from a round to the next only when it was written again from its start: without
    # that, they grow at every round for as long as the writer goes on.
    assert written[0] > 100
    assert any(later < earlier for earlier, later in zip(frames, frames[1:])), frames


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

    def failing_once(*, quiet=False):
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


def test_a_round_after_one_that_found_the_log_short_holds_the_writers_throughout(monkeypatch):
    """SQLite's WAL-reset race needs a writer starting the log again as a checkpoint begins, which only a log
    wholly copied back and written to since allows: a quiet log's next round is one checkpoint, writers held."""
    found = iter([5000, 50, 10, 5000, 5000])
    asked = []

    def recorded(*, quiet=False):
        asked.append(quiet)
        return (0, next(found), 0)

    monkeypatch.setattr(checkpoints, "checkpoint", recorded)
    checkpointer = checkpoints.Checkpointer(every=0.01)
    checkpointer.thread.start()
    try:
        deadline = time.monotonic() + 5
        while len(asked) < 5 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        checkpointer.stop()
    assert asked[:5] == [False, False, True, True, False]


def test_a_quiet_round_copies_the_whole_log_back_in_one_checkpoint(worker_connections):
    _in_a_new_thread(lambda: _write_pages(50))
    busy, frames, copied = checkpoints.checkpoint(quiet=True)
    assert busy == 0 and copied == frames > 0
    assert checkpoints.checkpoint(quiet=True)[1:] == (frames, frames)  # nothing written since: nothing to copy


def test_another_database_keeps_its_own_ways():
    if connection.vendor == "sqlite":
        pytest.skip("for databases other than SQLite")
    assert checkpoints.leave_checkpoints_to_a_thread() is None
