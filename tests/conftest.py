"""Shared fixtures: a clean slice of the real Redis for every test, and the live site in subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scripts.ports import free_port, port_open
from scripts.run import daphne_command
from tests.support import flush_suite_redis, subprocess_env

ROOT = Path(__file__).resolve().parent.parent
# Playwright's sync API runs an event loop in the test thread; the ORM calls made there are safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(autouse=True, scope="session")
def compiled_catalogs():
    """*.mo files are not committed: compile any that are missing or stale, then make Django reload them."""
    from django.utils.translation.reloader import translation_file_changed

    from scripts import compile_translations

    compile_translations.main()
    translation_file_changed(sender=None, file_path=Path("catalog.mo"))  # clears Django's translation caches


@pytest.fixture(autouse=True)
def english_after_each_test():
    """A request in another language must not leak its language into the next test."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's, and before it drops the test database, which cannot go while a session is open on it:
    the sockets' read threads keep their connections, and so do ended threads' connections that config.asgi's
    gc.freeze() (run again by every test that imports it) moved out of the collector's reach."""
    yield
    import gc

    from rooms.consumers import close_read_pool

    close_read_pool()
    gc.unfreeze()
    gc.collect()  # a collected connection closes its session
    with django_db_blocker.unblock():
        _end_other_sessions()


def _end_other_sessions() -> None:
    """On PostgreSQL, end what still holds a session on the test database (a thread of an in-process
    worker or live server keeps its connection open for DB_CONN_MAX_AGE), so that it can be dropped."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                       " WHERE datname = current_database() AND pid <> pg_backend_pid()")
    connection.close()


@pytest.fixture(autouse=True, scope="session")
def redis_left_clean():
    """Each run has its own key prefix; leave none of its keys behind."""
    yield
    flush_suite_redis()


@pytest.fixture(autouse=True)
def clean_redis():
    """Every test starts with none of this suite's keys in Redis."""
    flush_suite_redis()
    yield


class LiveSite:
    """daphne and a worker in other processes, on the test database and the test Redis prefix."""

    def __init__(self, *, workers: int = 1, env: dict | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.env = subprocess_env(**(env or {}))
        self.logs = ROOT / "var" / "test-logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        # started as `make run` and the benchmarks start it (scripts/run.py): the same launcher and loop
        self.server = self._spawn("daphne", daphne_command(sys.executable, host="127.0.0.1", port=self.port))
        self.workers = [self.start_worker() for _ in range(workers)]
        self._wait_ready()

    def _spawn(self, name: str, command: list[str]) -> subprocess.Popen:
        log = open(self.logs / f"{name}-{self.port}-{time.time_ns()}.log", "w")  # noqa: SIM115
        return subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)

    def start_worker(self) -> subprocess.Popen:
        return self._spawn("worker", [sys.executable, "manage.py", "worker"])

    def _wait_ready(self):
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.server.poll() is not None:
                raise RuntimeError("daphne exited early; see var/test-logs")
            if port_open(self.port):
                return
            time.sleep(0.1)
        raise RuntimeError("daphne did not start in time")

    def stop_worker(self, worker: subprocess.Popen):
        worker.terminate()
        worker.wait(timeout=10)
        self.workers.remove(worker)

    def stop(self):
        for process in [self.server, *self.workers]:
            if process.poll() is None:
                process.terminate()
        for process in [self.server, *self.workers]:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture
def live_site(transactional_db):
    site = LiveSite()
    yield site
    site.stop()


@pytest.fixture
def live_site_factory(transactional_db):
    sites = []

    def make(**kwargs) -> LiveSite:
        site = LiveSite(**kwargs)
        sites.append(site)
        return site

    yield make
    for site in sites:
        site.stop()


@pytest.fixture
async def moves_played():
    """The worker's part of a socket's move, in this process: what sockets hand over gets played."""
    import asyncio

    from rooms import move_queue

    player = move_queue.MovePlayer(threads=2).start()
    yield player
    await move_queue.close_for_this_loop()
    await asyncio.to_thread(player.stop)
