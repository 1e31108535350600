"""Where bots decide: a searching game's bots (tiles) and a game whose bots decide at length (candles) in pools
of processes of their own, so that neither holds the GIL of the worker that plays the players' moves, and a
search never holds up a candles decision; the quick ones (trails, pots) in the caller."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from types import SimpleNamespace

import pytest

from config.settings import base as base_settings
from games.candles import engine
from games.fairness import Rng
from rooms import bot_runner
from tests.rooms import slow_tiles_bot
from tests.rooms.helpers import Workers, wait_for

SEED = "ab" * 32


@pytest.fixture
def pools(settings):
    settings.WICKWISE = {**settings.WICKWISE, "BOT_PROCESSES": 1, "BOT_DECISIONS_IN_PROCESSES": ("candles",),
                         "BOT_TIME_LIMITS": {"tiles": 0.5}}
    yield settings
    bot_runner.shut_down()


def candles_view() -> dict:
    return engine.view(engine.setup(4, {}, Rng(SEED, "test")), 1)


def test_without_processes_every_bot_decides_in_the_caller(settings):
    settings.WICKWISE = {**settings.WICKWISE, "BOT_PROCESSES": 0}
    assert {game: bot_runner.pool_for(game) for game in settings.WICKWISE_GAMES} == dict.fromkeys(
        settings.WICKWISE_GAMES)


def test_searches_and_long_decisions_have_pools_of_their_own(pools):
    assert {game: bot_runner.pool_for(game) for game in pools.WICKWISE_GAMES} == {
        "tiles": bot_runner.SEARCHES, "candles": bot_runner.DECISIONS, "trails": None, "pots": None}


def test_a_candles_decision_is_made_in_another_process_while_a_search_goes_on(pools):
    pools.WICKWISE = {**pools.WICKWISE, "BOT_MODULES": {"candles": "tests.rooms.pid_candles_bot"}}
    bot_runner.warm_up(["candles", "tiles"])
    bot_runner._pool(bot_runner.DECISIONS).submit(bot_runner._load, []).result()  # started and ready
    # A tiles search spins its process for seconds, holding its GIL: it is still spinning when the candles
    # decision is asked for.
    search = threading.Thread(target=_search_quietly, daemon=True)
    search.start()
    time.sleep(0.2)
    asked = time.monotonic()
    decision = bot_runner.choose("candles", candles_view(), "strong")
    took = time.monotonic() - asked
    assert decision["decided_in"] != os.getpid()
    assert decision["candle"] == min(candles_view()["hand"])
    assert took < 1.5, f"the candles decision waited {took:.2f} s behind the search"
    assert search.is_alive(), "the search should still be spinning"


def _search_quietly() -> None:
    with contextlib.suppress(Exception):  # the pool shut down at the end of the test
        bot_runner._pool(bot_runner.SEARCHES).submit(slow_tiles_bot.spin, 3.0).result()


def test_a_pool_whose_process_died_is_started_afresh_for_the_next_decision(pools):
    view = candles_view()
    assert bot_runner.choose("candles", view, "strong")["type"] == "play"
    broken = bot_runner._pools[bot_runner.DECISIONS]
    for process in list(broken._processes.values()):  # killed, as by the out-of-memory killer
        process.kill()
        process.join()
    with pytest.raises(BrokenProcessPool):
        bot_runner.choose("candles", view, "strong")
    assert bot_runner.choose("candles", view, "strong")["type"] == "play"
    assert bot_runner._pools[bot_runner.DECISIONS] is not broken


def test_a_broken_pool_never_takes_its_successor_with_it(monkeypatch):
    """Two bot threads met the same broken pool; the first started a fresh one before the second dropped it."""
    successor = SimpleNamespace()
    monkeypatch.setattr(bot_runner, "_pools", {bot_runner.DECISIONS: successor})
    bot_runner._drop(bot_runner.DECISIONS, SimpleNamespace(shutdown=lambda **_options: None))
    assert bot_runner._pools == {bot_runner.DECISIONS: successor}


# A suite run at niceness 10 or more leaves no room to lower a pool's by the default's 10: nothing to see then.
lowered_priority_visible = pytest.mark.skipif(os.nice(0) > 9, reason="this process runs at niceness 10 or more")


@lowered_priority_visible
def test_each_pools_process_decides_below_the_workers_priority(pools):
    """A thinking bot must not keep a player's move waiting for a core: its processes yield to the worker's."""
    pools.WICKWISE = {**pools.WICKWISE, "BOT_NICENESS": 7}
    for kind in (bot_runner.SEARCHES, bot_runner.DECISIONS):
        assert bot_runner._pool(kind).submit(os.nice, 0).result() == os.nice(0) + 7, kind


def test_niceness_zero_keeps_the_workers_priority(pools):
    pools.WICKWISE = {**pools.WICKWISE, "BOT_NICENESS": 0}
    assert bot_runner._pool(bot_runner.DECISIONS).submit(os.nice, 0).result() == os.nice(0)


def test_a_priority_the_system_will_not_lower_is_logged_not_raised(monkeypatch, caplog):
    def refused(_increment):
        raise PermissionError("not here")

    monkeypatch.setattr(os, "nice", refused)
    bot_runner._lower_priority(10)  # in a pool's process, before its first decision
    assert "could not lower its priority" in caplog.text


def _niceness(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def _children(pid: int) -> list[int]:
    found = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(line) for line in found.split()]


def _at_least(count: int, found: list[int]) -> list[int] | None:
    return found if len(found) >= count else None


def _running(pid: int) -> bool:
    """Neither gone nor a zombie waiting for whoever adopted it to reap it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@lowered_priority_visible
@pytest.mark.live
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_outright_leaves_no_bot_process_behind():
    """kill -9 reaches no shutdown: each pool's process sees its worker gone and exits by itself."""
    workers = Workers()
    try:
        worker = workers.start(WICKWISE_BOT_PROCESSES="1")
        # Both pools' processes, and multiprocessing's resource tracker.
        children = wait_for(lambda: _at_least(3, _children(worker.pid)), what="the bot pools' processes")
        # The site's default: both pools' processes below the worker's priority (the resource tracker is not).
        niceness = wait_for(lambda: _at_least(2, [pid for pid in children
                                                  if _niceness(pid) == _niceness(worker.pid) + 10]),
                            what="the pools' processes to lower their priority")
        assert len(niceness) == 2
        worker.kill()
        worker.wait()
        wait_for(lambda: not any(_running(pid) for pid in children), what="the pools' processes to exit",
                 timeout=10.0)
    finally:
        workers.stop_all()


@pytest.mark.parametrize(("cores", "processes"), [(1, 1), (2, 1), (3, 1), (4, 2), (8, 4), (16, 8), (64, 8)])
def test_each_pool_has_half_the_cores_from_one_to_eight(cores, processes):
    assert base_settings.default_bot_processes(cores) == processes


def test_the_pools_are_sized_from_the_cores_this_process_may_use(monkeypatch):
    monkeypatch.setattr(base_settings, "usable_cores", lambda: 6)
    assert base_settings.default_bot_processes() == 3


@pytest.mark.parametrize(("cpu_max", "usable"), [("max 100000", 16), ("200000 100000", 2), ("150000 100000", 2),
                                                 ("50000 100000", 1), (None, 16)])
def test_a_containers_cpu_quota_caps_the_cores_counted(monkeypatch, cpu_max, usable):
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(16)), raising=False)
    read_text = Path.read_text

    def cgroup(path, *args, **kwargs):
        if str(path) == "/sys/fs/cgroup/cpu.max":
            if cpu_max is None:
                raise FileNotFoundError(path)
            return cpu_max + "\n"
        return read_text(path, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", cgroup)
    assert base_settings.usable_cores() == usable
