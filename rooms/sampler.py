"""Where a process's threads spend their CPU, on request: off unless the environment sets WICKWISE_SAMPLE_STACKS
to a file. Then a daemon thread looks at every thread's Python stack about every millisecond
(WICKWISE_SAMPLE_EVERY_MS) and reads each thread's CPU clock: the CPU a thread used since the look before is
counted to the stack it is seen in now, so the counts add up to the threads' CPU exactly, while which stack it
goes to is a sample. Each stack is counted as running or waiting by the line its innermost frame is on (a
socket's recv, a select or poll, a lock's acquire, an event's wait, a queue's get, a sleep: waiting; a thread
seen waiting may be waiting for the GIL after its call returned). The sampler needs the GIL to look, so a thread
running Python is mostly seen where it next lets the GIL go (a socket's send, an SQLite statement), and the
CPU of the Python before it is counted there: compare two runs' stacks. (A shorter switch interval would
show the Python itself, but on this Python walking other threads' frames then crashed the process once.)
Each entry also has every thread group's user and system CPU and its context switches, from /proc.

SIGUSR1 appends what was counted since the last signal to the file, and starts over; SIGUSR2 forgets it; the
process's exit appends what is left. The file holds one JSON object a line (`Sampler.entry`): each thread
group's CPU and looks (threads named move_0, move_1 ... make one group, `move`), the sampler's own CPU, and
every stack seen with its CPU and looks. bench/live_load.py --sample-worker runs the worker with it and
counts each games phase alone; bench/stacks_report.py reads the file."""

from __future__ import annotations

import atexit
import collections
import json
import linecache
import os
import re
import signal
import sys
import threading
import time

PATH = os.environ.get("WICKWISE_SAMPLE_STACKS")
EVERY = float(os.environ.get("WICKWISE_SAMPLE_EVERY_MS") or 1) / 1000
DEPTH = 40  # frames kept from the innermost out

# A thread whose innermost frame is on such a line is blocked (or waiting for the GIL after it).
_WAITING_LINE = re.compile(r"\.(recv|recv_into|recvfrom|accept|acquire|wait|select|poll|sleep|join|readinto)\("
                           r"|\b(sleep|select)\(|work_queue\.get\(|\.get\(block=True")
_WAITING_FUNCTION = {"wait", "_wait_for_tstate_lock", "select", "poll", "sleep", "get", "_worker"}


def _where(filename: str) -> str:
    """A file's name from the project's root (rooms/services.py), a package's from its folder (redis/client.py),
    the standard library's from its own (json/encoder.py)."""
    if filename.startswith(_ROOT):
        return filename[len(_ROOT):]
    for marker in ("/site-packages/", "/lib/python3."):
        if marker in filename:
            rest = filename.split(marker, 1)[1]
            return rest.split("/", 1)[1] if marker == "/lib/python3." else rest
    return filename


_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _group(name: str) -> str:
    return re.sub(r"[_-]?\d+$", "", name) or name


class Sampler:
    def __init__(self, every: float = EVERY):
        self.every = every
        self.lock = threading.Lock()  # between the looks and a signal's dump
        self.waiting: dict[tuple, bool] = {}  # (file, line) of an innermost frame -> waiting there
        self.thread = threading.Thread(target=self._run, name="stack-sampler", daemon=True)
        self.clocks: dict[int, int] = {}  # thread ident -> its CPU clock's id
        self.last_cpu: dict[int, float] = {}
        self.last_leaf: dict[int, tuple] = {}  # ident -> (frame, line, stack id): an unmoved thread's stack
        # A stack is (waiting, ((id of its code, line), ...)), numbered once: the counts are keyed by the number,
        # and a code object is hashed by its contents each time, which cost most of a look.
        self.stack_ids: dict[tuple, int] = {}
        self.stacks: list[tuple] = []
        self.codes: dict[int, object] = {}  # id -> code, kept so that an id names one code for good
        self.groups: dict[int, str] = {}  # ident -> the thread's group
        self._reset()

    def _reset(self) -> None:
        self.since = time.time()
        self.kernel_since = _kernel_counts()
        self.own_cpu_since = time.thread_time() if threading.current_thread() is self.thread else None
        self.cpu: collections.Counter[tuple] = collections.Counter()  # (group, stack id) -> CPU seconds
        self.looks: collections.Counter[tuple] = collections.Counter()  # (group, stack id) -> looks
        self.group_cpu: collections.Counter[str] = collections.Counter()
        self.group_looks: collections.Counter[str] = collections.Counter()
        self.rounds = 0

    def start(self) -> Sampler:
        self.thread.start()
        return self

    def _cpu_of(self, ident: int) -> float | None:
        clock = self.clocks.get(ident)
        try:
            if clock is None:
                clock = self.clocks[ident] = time.pthread_getcpuclockid(ident)
            return time.clock_gettime(clock)
        except (OSError, ProcessLookupError):  # the thread ended meanwhile
            self.clocks.pop(ident, None)
            return None

    def _is_waiting(self, code, line: int) -> bool:
        key = (code.co_filename, line)
        waiting = self.waiting.get(key)
        if waiting is None:
            text = linecache.getline(code.co_filename, line)
            waiting = self.waiting[key] = bool(
                _WAITING_LINE.search(text) or (code.co_name in _WAITING_FUNCTION
                                               and os.path.basename(code.co_filename) in (
                                                   "threading.py", "queue.py", "thread.py", "selectors.py",
                                                   "socket.py", "ssl.py")))
        return waiting

    def _stack(self, frame) -> int:
        """The number of the stack (waiting, (code's id, line) from the innermost frame out)."""
        frames = []
        leaf = frame
        while frame is not None and len(frames) < DEPTH:
            code = frame.f_code
            if id(code) not in self.codes:
                self.codes[id(code)] = code
            frames.append((id(code), frame.f_lineno or 0))  # None while a frame is set up or torn down
            frame = frame.f_back
        stack = (self._is_waiting(leaf.f_code, leaf.f_lineno or 0), tuple(frames))
        number = self.stack_ids.get(stack)
        if number is None:
            number = self.stack_ids[stack] = len(self.stacks)
            self.stacks.append(stack)
        return number

    def look(self) -> None:
        me = threading.get_ident()
        frames = sys._current_frames()
        if any(ident not in self.groups for ident in frames):
            self.groups.update({thread.ident: _group(thread.name) for thread in threading.enumerate()})
        with self.lock:
            self.rounds += 1
            for ident, frame in frames.items():
                if ident == me:
                    continue
                cpu = self._cpu_of(ident)
                if cpu is None:
                    continue
                used = cpu - self.last_cpu.get(ident, cpu)
                self.last_cpu[ident] = cpu
                last = self.last_leaf.get(ident)
                if last is not None and last[0] is frame and last[1] == frame.f_lineno:
                    stack = last[2]  # not moved since the look before
                else:
                    stack = self._stack(frame)
                    self.last_leaf[ident] = (frame, frame.f_lineno, stack)
                key = (self.groups.get(ident, "?"), stack)
                self.cpu[key] += used
                self.looks[key] += 1
                self.group_cpu[key[0]] += used
                self.group_looks[key[0]] += 1
            if len(self.last_cpu) > len(frames) - 1:
                for ident in set(self.last_cpu) - set(frames):  # threads that ended
                    self.last_cpu.pop(ident, None)
                    self.last_leaf.pop(ident, None)
                    self.groups.pop(ident, None)

    def _run(self) -> None:
        self.own_cpu_since = time.thread_time()
        failed = False
        while True:
            time.sleep(self.every)
            try:
                self.look()
            except Exception as error:  # noqa: BLE001 (a diagnostic must never take the process down)
                if not failed:  # said once; the looks go on
                    print(f"stack sampler failed: {error!r}", file=sys.stderr, flush=True)
                failed = True

    def entry(self) -> dict:
        """What was counted since the last reset, as JSON-ready data."""
        own = self._own_cpu()
        stacks = []
        for key, cpu in self.cpu.most_common():
            group, number = key
            waiting, frames = self.stacks[number]
            stacks.append({"group": group, "waiting": waiting, "cpu": round(cpu, 6), "looks": self.looks[key],
                           "frames": [f"{_where(self.codes[code].co_filename)}:{line} {self.codes[code].co_name}"
                                      for code, line in frames]})
        return {
            "since": self.since, "until": time.time(), "rounds": self.rounds, "pid": os.getpid(),
            "groups": {group: {"cpu": round(cpu, 6), "looks": self.group_looks[group]}
                       for group, cpu in self.group_cpu.most_common()},
            "sampler_cpu": own, "kernel": _kernel_deltas(self.kernel_since, _kernel_counts()), "stacks": stacks,
        }

    def _own_cpu(self) -> float | None:
        ident = self.thread.ident
        if ident is None or self.own_cpu_since is None:
            return None
        cpu = self._cpu_of(ident)
        return None if cpu is None else round(cpu - self.own_cpu_since, 6)

    def write(self, path: str) -> None:
        with self.lock:
            entry = self.entry()
            own = self._cpu_of(self.thread.ident) if self.thread.ident else None
            self._reset()
            self.own_cpu_since = own
        with open(path, "a") as out:
            out.write(json.dumps(entry) + "\n")

    def forget(self) -> None:
        with self.lock:
            own = self._cpu_of(self.thread.ident) if self.thread.ident else None
            self._reset()
            self.own_cpu_since = own


def _kernel_counts() -> dict[int, tuple[str, list[float]]]:
    """By thread (its native id): its group, and its user and system CPU seconds and its voluntary and
    involuntary context switches so far, from /proc (empty where there is none)."""
    counts = {}
    ticks = os.sysconf("SC_CLK_TCK")
    for thread in threading.enumerate():
        try:
            with open(f"/proc/self/task/{thread.native_id}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/self/task/{thread.native_id}/status") as status:
                switches = {key: int(value) for key, _, value in (line.partition(":") for line in status)
                            if key in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")}
        except (OSError, TypeError, IndexError, ValueError):
            continue
        counts[thread.native_id] = (_group(thread.name), [
            int(fields[11]) / ticks, int(fields[12]) / ticks, switches.get("voluntary_ctxt_switches", 0),
            switches.get("nonvoluntary_ctxt_switches", 0)])
    return counts


def _kernel_deltas(before: dict, after: dict) -> dict[str, dict]:
    """By thread group: user and system CPU seconds and context switches between two _kernel_counts."""
    groups: dict[str, list[float]] = {}
    for native_id, (group, now) in after.items():
        was = before.get(native_id, (group, [0.0, 0.0, 0, 0]))[1]
        sums = groups.setdefault(group, [0.0, 0.0, 0, 0])
        for index in range(4):
            sums[index] += now[index] - was[index]
    return {group: {"user": round(user, 3), "system": round(system, 3), "voluntary_switches": voluntary,
                    "involuntary_switches": involuntary}
            for group, (user, system, voluntary, involuntary) in groups.items()}


_sampler: Sampler | None = None


def _on_signal(signum, frame) -> None:
    try:
        if signum == signal.SIGUSR2:
            _sampler.forget()
        else:
            _sampler.write(PATH)
    except Exception as error:  # noqa: BLE001
        print(f"stack sampler failed: {error!r}", file=sys.stderr, flush=True)


def install() -> Sampler | None:
    """Start sampling if WICKWISE_SAMPLE_STACKS names a file (from the main thread: it sets the signals)."""
    global _sampler
    if not PATH or _sampler is not None:
        return _sampler
    _sampler = Sampler().start()
    signal.signal(signal.SIGUSR1, _on_signal)
    signal.signal(signal.SIGUSR2, _on_signal)
    atexit.register(lambda: _sampler.write(PATH))
    return _sampler
