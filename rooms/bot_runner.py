"""The bridge between the platform and each game's bot module: bots/<game>.py's choose(view, level), and
its optional steps(view, action): the drafts that show a decided action being made (tiles: one tile at a
time), shown by the worker before it plays the action.

A game whose bots search against the clock gets its time limit from the settings
(WICKWISE["BOT_TIME_LIMITS"]), passed in, so that the bot modules stay free of Django. Those searches run
in a small pool of processes of their own (WICKWISE["BOT_PROCESSES"]; 0: in the caller): a search in
Python holds the GIL, and the worker's countdowns and other bot turns must not wait on it.

So do the decisions of a game whose bots decide at once but at length (WICKWISE["BOT_DECISIONS_IN_PROCESSES"]:
a strong candles decision is some 20 ms of Python), in a pool of as many processes beside the searches', so
that a search never holds them up. In the worker's threads, a site's bots took the GIL from the intake that
plays the players' moves: with a bot beside each player, a player's move waited 250 ms at the median and
12 s at the p99 (docs/benchmarks.md). The others (trails, pots: well under a millisecond) decide in the
caller, where a process's round trip would cost more than the decision.

Both pools' processes run below the worker's priority (WICKWISE["BOT_NICENESS"]): on a machine whose cores are
all busy, the scheduler favours what a player's move wakes."""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from importlib import import_module

from django.conf import settings

log = logging.getLogger(__name__)

SEARCHES, DECISIONS = "searches", "decisions"  # the two pools
PARENT_LOOK_EVERY = 1.0  # seconds: how soon a pool's process notices its worker has gone
_pools: dict[str, ProcessPoolExecutor] = {}
_pool_lock = threading.Lock()


def module_name(game: str) -> str:
    return settings.WICKWISE.get("BOT_MODULES", {}).get(game, f"bots.{game}")


def decide(module: str, view: dict, level: str, limit: float | None) -> dict:
    """One decision by the bot module `module` (run here or in a pool process: it needs no Django)."""
    chooser = import_module(module)
    if limit is None:
        return chooser.choose(view, level)
    return chooser.choose(view, level, time_limit=limit)


def _pool(kind: str) -> ProcessPoolExecutor:
    """Started at its first use (spawned: a forked child would inherit the worker's threads and sockets)."""
    with _pool_lock:
        pool = _pools.get(kind)
        if pool is None:
            pool = _pools[kind] = ProcessPoolExecutor(
                max_workers=settings.WICKWISE["BOT_PROCESSES"], mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_in_pool, initargs=(os.getpid(), settings.WICKWISE.get("BOT_NICENESS", 0)))
        return pool


def _start_in_pool(parent: int, niceness: int) -> None:
    """In a pool's process, before its first decision: below the worker's priority, and gone with it."""
    _lower_priority(niceness)
    _exit_with_parent(parent)


def _lower_priority(niceness: int) -> None:
    """A bot's decision can wait a few milliseconds; a player's move, and the daphne, worker and database
    processes it goes through, should not wait behind it. `niceness` above the worker's (WICKWISE["BOT_NICENESS"]):
    when the machine's cores are all busy, the scheduler favours a process woken for a move over a bot that is
    thinking (a share, not a strict order: a move can still wait, less often). Candles decisions do a fixed
    amount of work, so they decide the same, later; a tiles search has a time limit, so on a machine that busy
    it searches less (docs/benchmarks.md, "the bots' processes below the players'")."""
    if niceness <= 0 or not hasattr(os, "nice"):
        return
    try:
        os.nice(niceness)
    except OSError as error:  # not on every system; the pool works all the same
        log.warning("a bot pool's process could not lower its priority: %r", error)


def _exit_with_parent(parent: int) -> None:
    """In a pool's process: exit once the process that started it is gone. A worker killed outright (kill -9,
    the out-of-memory killer) never shuts its pools down, and their processes would otherwise live on, idle,
    one more set at every restart."""

    def watch():
        while os.getppid() == parent:
            time.sleep(PARENT_LOOK_EVERY)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def shut_down() -> None:
    with _pool_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.shutdown(wait=False, cancel_futures=True)


def _drop(kind: str, broken: ProcessPoolExecutor) -> None:
    """A pool whose child died (killed, out of memory): the next decision starts a fresh one. Only that pool:
    another thread that met the same broken pool may have started its successor already."""
    with _pool_lock:
        if _pools.get(kind) is broken:
            del _pools[kind]
    broken.shutdown(wait=False, cancel_futures=True)


def pool_for(game: str) -> str | None:
    """Which pool decides for `game`'s bots, or None: in the caller."""
    if settings.WICKWISE.get("BOT_PROCESSES", 0) <= 0:
        return None
    if game in settings.WICKWISE.get("BOT_TIME_LIMITS", {}):
        return SEARCHES
    if game in settings.WICKWISE.get("BOT_DECISIONS_IN_PROCESSES", ()):
        return DECISIONS
    return None


def _load(modules: list[str]) -> None:
    for module in modules:
        import_module(module)


def warm_up(games) -> None:
    """Start each pool some of `games` decide in, its processes loading their bot modules, without waiting: the
    first bot turn after the worker starts should not wait for a process to start and import its bot (a tenth
    of a second for candles, on a quiet machine)."""
    by_pool: dict[str, list[str]] = {}
    for game in games:
        kind = pool_for(game)
        if kind is not None:
            by_pool.setdefault(kind, []).append(module_name(game))
    for kind, modules in by_pool.items():
        _pool(kind).submit(_load, modules).add_done_callback(_log_failed_start)


def _log_failed_start(loaded) -> None:
    if loaded.exception() is not None:  # the first decision will meet it too, and start a fresh pool
        log.warning("a bot pool's process failed to start: %r", loaded.exception())


def choose(game: str, view: dict, level: str) -> dict:
    module = module_name(game)
    limit = settings.WICKWISE.get("BOT_TIME_LIMITS", {}).get(game)
    kind = pool_for(game)
    if kind is None:
        return decide(module, view, level, limit)
    pool = _pool(kind)
    try:
        return pool.submit(decide, module, view, level, limit).result()
    except BrokenProcessPool:
        _drop(kind, pool)
        raise


def steps(game: str, view: dict, action: dict) -> list:
    """The drafts to show before `action` is played, in order; none when the game's bots offer no steps."""
    hook = getattr(import_module(module_name(game)), "steps", None)
    return [] if hook is None else list(hook(view, action))
