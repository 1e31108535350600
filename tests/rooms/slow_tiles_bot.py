"""A tiles bot whose searches spin the CPU for SPIN_SECONDS first (holding the GIL, as a search in Python
does), then play as the real one: the worker runs it through WICKWISE_BOT_MODULES in its search process."""

from __future__ import annotations

import time

from bots import tiles

SPIN_SECONDS = 3.0


def choose(view: dict, level: str = "basic", time_limit: float = tiles.STRONG_TIME_LIMIT) -> dict:
    until = time.perf_counter() + SPIN_SECONDS
    while time.perf_counter() < until:
        pass
    return tiles.choose(view, level, time_limit=time_limit)


steps = tiles.steps
