"""A tiles bot whose searches spin the CPU for SPIN_SECONDS first (holding the GIL, as a search in Python
does), then play as the real one: the worker runs it through WICKWISE_BOT_MODULES in its search process."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bots import tiles

SPIN_SECONDS = 3.0


def choose(view: dict, level: str = "basic", time_limit: float = tiles.STRONG_TIME_LIMIT) -> dict:
    if os.environ.get("SLOW_BOT_PID_FILE"):  # where the search ran: the test checks it was not the worker
        Path(os.environ["SLOW_BOT_PID_FILE"]).write_text(str(os.getpid()))
    spin(SPIN_SECONDS)
    return tiles.choose(view, level, time_limit=time_limit)


def spin(seconds: float) -> None:
    """The CPU busy for `seconds`, holding this process's GIL."""
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        pass


steps = tiles.steps
