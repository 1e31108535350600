"""Where a process's threads spend their CPU (rooms/sampler.py, WICKWISE_SAMPLE_STACKS): off by default; on, a
thread's CPU is counted to the stack it runs in, a blocked thread's looks count as waiting, and SIGUSR1's
entry says so by thread group."""

from __future__ import annotations

import json
import signal
import threading
import time

from rooms import sampler


def test_off_unless_a_file_is_named(monkeypatch):
    monkeypatch.setattr(sampler, "PATH", None)
    monkeypatch.setattr(sampler, "_sampler", None)
    before = signal.getsignal(signal.SIGUSR1)
    assert sampler.install() is None
    assert signal.getsignal(signal.SIGUSR1) is before
    assert not any(thread.name == "stack-sampler" for thread in threading.enumerate())


def _spin_in_a_function_of_its_own(stop: threading.Event) -> None:
    while not stop.is_set():
        sum(range(2000))


def test_cpu_goes_to_the_running_stack_and_a_blocked_thread_waits(tmp_path):
    stop = threading.Event()
    busy = threading.Thread(target=_spin_in_a_function_of_its_own, args=(stop,), name="busy_0")
    idle = threading.Thread(target=stop.wait, name="idle_0")
    busy.start()
    idle.start()
    stacks = sampler.Sampler(every=0.002)
    try:
        stacks.start()
        time.sleep(0.3)
    finally:
        stop.set()
        busy.join()
        idle.join()
    out = tmp_path / "stacks.jsonl"
    stacks.write(str(out))
    entry = json.loads(out.read_text())
    assert entry["rounds"] > 10
    assert entry["groups"]["busy"]["cpu"] > 0.05
    busy_stacks = [stack for stack in entry["stacks"] if stack["group"] == "busy"]
    spinning = [stack for stack in busy_stacks if any("_spin_in_a_function_of_its_own" in frame
                                                      for frame in stack["frames"])]
    assert sum(stack["cpu"] for stack in spinning) > 0.9 * entry["groups"]["busy"]["cpu"]
    assert not any(stack["waiting"] for stack in spinning)
    assert spinning[0]["frames"][-1].startswith("threading.py:")  # named from the standard library's folder
    idle_stacks = [stack for stack in entry["stacks"] if stack["group"] == "idle"]
    assert idle_stacks and all(stack["waiting"] for stack in idle_stacks)
    # written, it starts over (it goes on looking meanwhile: what it counts now began after the entry ended)
    with stacks.lock:
        assert stacks.since >= entry["until"] and stacks.rounds < entry["rounds"]


def test_the_report_names_what_a_stack_spent_its_cpu_on(capsys):
    from bench import stacks_report

    assert stacks_report.category(["redis/connection.py:1349 send_packed_command", "rooms/live.py:152 flush"]) \
        == "Redis client (redis-py)"
    assert stacks_report.category(["json/encoder.py:200 encode", "rooms/broadcast.py:191 _dumps"]) == "JSON"
    assert stacks_report.category(["django/db/__init__.py:50 close_old_connections",
                                   "rooms/move_queue.py:700 _play"]) == "close_old_connections"
    entry = {"since": 0.0, "until": 1.0, "rounds": 10, "sampler_cpu": 0.01,
             "groups": {"move": {"cpu": 0.5, "looks": 10}},
             "kernel": {"move": {"user": 0.4, "system": 0.1, "voluntary_switches": 20, "involuntary_switches": 5}},
             "stacks": [{"group": "move", "waiting": False, "cpu": 0.5, "looks": 10,
                         "frames": ["games/candles/engine.py:10 apply", "rooms/services.py:900 _checked"]}]}
    stacks_report.report(entry, None, 5, None, moves=100)
    out = capsys.readouterr().out
    assert "engine (games/)" in out and "5.000 ms a move" in out
