"""The bridge between the platform and each game's bot module: bots/<game>.py's choose(view, level), and
its optional steps(view, action): the drafts that show a decided action being made (tiles: one tile at a
time), shown by the worker before it plays the action.

A game whose bots search against the clock gets its time limit from the settings
(WICKWISE["BOT_TIME_LIMITS"]), passed in, so that the bot modules stay free of Django. Those searches run
in a small pool of processes of their own (WICKWISE["BOT_PROCESSES"]; 0: in the caller): a search in
Python holds the GIL, and the worker's countdowns and other bot turns must not wait on it."""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from importlib import import_module

from django.conf import settings

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def module_name(game: str) -> str:
    return settings.WICKWISE.get("BOT_MODULES", {}).get(game, f"bots.{game}")


def decide(module: str, view: dict, level: str, limit: float | None) -> dict:
    """One decision by the bot module `module` (run here or in a pool process: it needs no Django)."""
    chooser = import_module(module)
    if limit is None:
        return chooser.choose(view, level)
    return chooser.choose(view, level, time_limit=limit)


def _search_pool() -> ProcessPoolExecutor:
    """Started at the first search (spawned: a forked child would inherit the worker's threads and sockets)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=settings.WICKWISE["BOT_PROCESSES"],
                                        mp_context=multiprocessing.get_context("spawn"))
        return _pool


def shut_down() -> None:
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


def choose(game: str, view: dict, level: str) -> dict:
    module = module_name(game)
    limit = settings.WICKWISE.get("BOT_TIME_LIMITS", {}).get(game)
    if limit is None or settings.WICKWISE.get("BOT_PROCESSES", 0) <= 0:
        return decide(module, view, level, limit)
    try:
        return _search_pool().submit(decide, module, view, level, limit).result()
    except BrokenProcessPool:  # a child died (killed, out of memory): a fresh pool for the next search
        shut_down()
        raise


def steps(game: str, view: dict, action: dict) -> list:
    """The drafts to show before `action` is played, in order; none when the game's bots offer no steps."""
    hook = getattr(import_module(module_name(game)), "steps", None)
    return [] if hook is None else list(hook(view, action))
