"""What a long-lived daphne holds, on request: off unless the environment sets WICKWISE_PROBE_FILE. Then
SIGUSR1 appends one JSON line to that file: the process's resident memory, its live objects by generation and
by type, the event loop's kind, tasks and timers, the channel layer's channels and groups, and daphne's
connections. bench/live_load.py --probe asks for one after each pair, to see whether anything grows with the
server's age."""

from __future__ import annotations

import asyncio
import collections
import gc
import json
import os
import signal
import sys
import time

PATH = os.environ.get("WICKWISE_PROBE_FILE")


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _loop():
    """daphne's event loop: the signal's handler runs in its thread while it runs."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _layer() -> dict:
    """Each channel layer's entries, summed over its layers by event loop (a growing number of those is a
    leak too, so it is counted)."""
    from channels.layers import channel_layers

    found = {}
    for alias, layer in channel_layers.backends.items():
        loop_layers = list(getattr(layer, "_layers", {}).values())
        counts = collections.Counter({"loops": len(loop_layers)})
        for loop_layer in loop_layers:
            shards = getattr(loop_layer, "_shards", [])
            counts.update({
                "channels": len(loop_layer.channels),
                "queued": sum(queue.qsize() for queue in loop_layer.channels.values()),
                "groups": len(loop_layer.groups),
                "group_members": sum(len(members) for members in loop_layer.groups.values()),
                "subscribed": sum(len(shard._subscribed_to) for shard in shards),
                "pubsub_channels": sum(len(shard._pubsub.channels) for shard in shards if shard._pubsub),
                "pubsub_pending": sum(len(shard._pubsub.pending_unsubscribe_channels)
                                      for shard in shards if shard._pubsub),
            })
        found[alias] = {key: counts[key] for key in (
            "loops", "channels", "queued", "groups", "group_members", "subscribed", "pubsub_channels",
            "pubsub_pending")}
    return found


def snapshot() -> dict:
    objects = gc.get_objects()
    types = collections.Counter(type(obj).__qualname__ for obj in objects)
    daphne_connections = None
    for obj in objects:
        if type(obj).__name__ == "Server" and type(obj).__module__ == "daphne.server":
            daphne_connections = len(getattr(obj, "connections", {}))
    del objects
    loop = _loop()
    return {
        "at": time.time(),
        "rss_kb": _rss_kb(),
        "gc_count": gc.get_count(),
        "gc_threshold": gc.get_threshold(),
        "frozen": gc.get_freeze_count(),
        "generations": [len(gc.get_objects(generation)) for generation in range(3)],
        "objects": sum(types.values()),
        "types": dict(types.most_common(400)),
        "tasks": len(asyncio.all_tasks(loop)) if loop is not None else None,
        "loop": f"{type(loop).__module__}.{type(loop).__qualname__}" if loop is not None else None,
        # the standard library's loop keeps its timers in `_scheduled`; uvloop keeps them in libuv, uncounted
        "timers": len(loop._scheduled) if hasattr(loop, "_scheduled") else None,
        "layer": _layer(),
        "daphne_connections": daphne_connections,
        "gc_stats": gc.get_stats(),
    }


def _on_signal(signum, frame) -> None:
    """Runs on daphne's loop thread, between two of its steps, and holds the loop while it counts (and
    collects, on SIGUSR2). A failure is written to stderr: raised here, it would stop daphne's loop."""
    try:
        collected = gc.collect() if signum == signal.SIGUSR2 else None  # SIGUSR2: after a full collection
        entry = snapshot()
        entry["collected"] = collected
        with open(PATH, "a") as out:
            out.write(json.dumps(entry) + "\n")
    except Exception as error:  # noqa: BLE001 (a diagnostic must never take the server down)
        print(f"probe failed: {error!r}", file=sys.stderr, flush=True)


def install() -> None:
    if not PATH:
        return
    signal.signal(signal.SIGUSR1, _on_signal)
    signal.signal(signal.SIGUSR2, _on_signal)
