"""Where a move's time goes, for the live-load benchmark (bench/live_load.py --trace): off unless the
environment sets WICKWISE_TRACE_MOVES=1, and then every call here is cheap.

On, daphne's push stamps Redis's clock as the request lands, the worker's intake its take's stages (IntakeStamps),
and the worker each socket move's stages (taken from the queue, begun in a thread, claimed, the
writer's lock held, committed, its steps begun, its part of the position kept) and sends them with the move's update;
each socket adds when daphne handed it the update, and forwards them in the text (`"trace"`), so the
benchmark's clients can put the stages of the slowest moves side by side. Both processes also log their
garbage collector's pauses, and daphne its event loop's lag, every TRACE_LOG_SECONDS.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import threading
import time

ON = os.environ.get("WICKWISE_TRACE_MOVES") == "1"
TRACE_LOG_SECONDS = 10.0

log = logging.getLogger("wickwise.trace")
_local = threading.local()


class IntakeStamps:
    """The worker's intake's stamps for its takes, when moves are traced: when it came back for a take
    (`ready`, its last take handed over), began and ended its upkeep (`upkeep`, `looked`), got a free slot
    (`slot`), sent the take (`asked`; after a wait for a bell if `waited`), Redis began it (`took`, Redis's
    clock as the take's reply gives it) and the reply was read (`replied`); `prior`: Redis's clock as its
    take before ran. With `landed` (Redis's clock as the request was pushed) they say where a hand-over
    waited: in daphne, in the list behind a take that left it there (no slot free for it) or while the
    intake was busy or had no free slot, in Redis, or in the intake's thread after the reply came (the GIL).
    Untraced, the intake holds `NO_INTAKE_STAMPS` instead, which stamps nothing (`intake_stamps`)."""

    def __init__(self):
        self.stamps = {"ready": time.time()}
        self.prior: float | None = None  # Redis's clock as the last take ran, whatever it took

    def mark(self, stage: str) -> None:
        self.stamps[stage] = time.time()
        if stage == "slot":  # `asked` stays the slot's stamp if the take fails before it is sent
            self.stamps["asked"] = self.stamps["slot"]

    def replied(self, *, clock: list | int, waited: bool) -> dict:
        """The take's reply has been read: its stamps, for each request it took (taken)."""
        took = float(clock[0]) + int(clock[1]) / 1e6 if isinstance(clock, list | tuple) and len(clock) == 2 else None
        stamps = {**self.stamps, "took": took, "replied": time.time(), "prior": self.prior,
                  "waited": 1 if waited else 0}
        self.prior = took or self.prior
        return stamps


class _NoIntakeStamps:
    """Untraced: the intake's loop stamps nothing, and its takes carry no stamps."""

    def mark(self, stage: str) -> None:
        pass

    def replied(self, *, clock: list | int, waited: bool) -> None:
        return None


NO_INTAKE_STAMPS = _NoIntakeStamps()


def intake_stamps() -> IntakeStamps | _NoIntakeStamps:
    """What the worker's intake stamps its takes with: real stamps when moves are traced, else nothing."""
    return IntakeStamps() if ON else NO_INTAKE_STAMPS


def taken(payload: dict, stamps: dict | None = None) -> None:
    """The worker's intake has just taken this request from the queue (`stamps`: its take's)."""
    if ON:
        payload["_taken"] = time.time()
        payload["_take"] = stamps


def begin(payload: dict) -> None:
    """A thread begins the request: the stamps that follow are this request's."""
    if ON:
        _local.marks = {"sent": payload.get("sent_at"), "landed": payload.get("landed"),
                        **(payload.get("_take") or {}), "taken": payload.get("_taken"), "begun": time.time()}


def mark(stage: str) -> None:
    if ON:
        marks = getattr(_local, "marks", None)
        if marks is not None and stage not in marks:  # the first time: a move tried twice keeps its first
            marks[stage] = time.time()


def held() -> dict | None:
    """The stamps of the request this thread plays, themselves (a move played with others keeps its own, and
    this thread takes them up again with `hold` at each of its points)."""
    return getattr(_local, "marks", None) if ON else None


def hold(marks: dict | None) -> None:
    """The stamps that follow are those of `marks` (from `held`)."""
    if ON:
        _local.marks = marks


def current() -> dict | None:
    """The stamps so far of the request this thread plays (a copy), or None."""
    marks = getattr(_local, "marks", None) if ON else None
    return dict(marks) if marks is not None else None


def end() -> None:
    """The request is done (its taken entry cleared): the time from marking its position to here is what its
    room's next request and the other threads' steps waited for, logged with the pauses."""
    if ON:
        marks = getattr(_local, "marks", None)
        if marks is not None and "marked" in marks and _pauses is not None:
            _pauses.after_publish.append(time.time() - marks["marked"])
        _local.marks = None


def stamped_with(text: str, trace: dict, received: float) -> str:
    """An update's text (broadcast.stamped) with its trace and when daphne handed it to the socket."""
    return f'{text[:-1]},"trace":{json.dumps({**trace, "received": received}, separators=(",", ":"))}}}'


# --- pauses ----------------------------------------------------------------------------------------------

class _Pauses:
    def __init__(self, process: str):
        self.process = process
        self.started = self.started_cpu = 0.0
        self.window_start = time.monotonic()
        self.collections = [[0, 0.0, 0.0, 0.0] for _ in range(3)]  # per generation: count, seconds, longest, its CPU
        self.lags: list[float] = []
        self.after_publish: list[float] = []

    def on_gc(self, phase: str, info: dict) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        if phase == "start":
            self.started, self.started_cpu = now, cpu
            return
        took = now - self.started
        entry = self.collections[info["generation"]]
        entry[0] += 1
        entry[1] += took
        if took > entry[2]:  # the longest, and the CPU it used (less than its time if the process was paused)
            entry[2], entry[3] = took, cpu - self.started_cpu
        self.maybe_log()

    def maybe_log(self) -> None:
        now = time.monotonic()
        if now - self.window_start < TRACE_LOG_SECONDS:
            return
        gens = " ".join(f"gen{gen} {count}x {total * 1000:.1f} ms (max {longest * 1000:.1f}, CPU {cpu * 1000:.1f})"
                        for gen, (count, total, longest, cpu) in enumerate(self.collections))
        lags = sorted(self.lags)
        lag = (f"; loop lag p50 {lags[len(lags) // 2] * 1000:.1f} p99 {lags[int(len(lags) * 0.99)] * 1000:.1f} "
               f"max {lags[-1] * 1000:.1f} ms (n={len(lags)})") if lags else ""
        tail = sorted(self.after_publish)
        after = (f"; marked -> done p50 {tail[len(tail) // 2] * 1000:.1f} p99 {tail[int(len(tail) * 0.99)] * 1000:.1f} "
                 f"max {tail[-1] * 1000:.1f} ms (n={len(tail)})") if tail else ""
        log.warning("trace %s pid %d, %.0f s: gc %s%s%s", self.process, os.getpid(), now - self.window_start, gens,
                    lag, after)
        self.window_start = now
        self.collections = [[0, 0.0, 0.0, 0.0] for _ in range(3)]
        self.lags = []
        self.after_publish = []


_pauses: _Pauses | None = None


def watch_pauses(process: str) -> None:
    """Log this process's garbage collections (count, time, longest, by generation) every TRACE_LOG_SECONDS."""
    global _pauses
    if ON and _pauses is None:
        _pauses = _Pauses(process)
        gc.callbacks.append(_pauses.on_gc)


_loops_watched: set[int] = set()
_watchers: set[asyncio.Task] = set()  # referenced while they run: the loop keeps only weak references


def watch_loop_lag(every: float = 0.01) -> None:
    """On daphne's loop: how late a timer of `every` seconds fires (what every socket waits behind)."""
    if not (ON and _pauses is not None):
        return
    loop = asyncio.get_running_loop()
    if id(loop) in _loops_watched:
        return
    _loops_watched.add(id(loop))

    async def watch():
        while True:
            before = loop.time()
            await asyncio.sleep(every)
            _pauses.lags.append(loop.time() - before - every)
            _pauses.maybe_log()

    _watchers.add(loop.create_task(watch()))
