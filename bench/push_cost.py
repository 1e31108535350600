"""What daphne's push of a socket's request to the worker costs its event loop, in one process: the request
onto the moves' list and its bell rung, as a pipeline of three commands (RPUSH, RPUSH, LTRIM: the push before 6
December 2026), as one command (`move_queue.hand_over` now: EVALSHA of the same three), and one PUBLISH of the
same text for scale (what the echo to every seat's consumer sends instead).

    python bench/push_cost.py [--pushes 3000] [--rounds 6]

Each round times --pushes of each way, one after another on one event loop and the consumer's Redis client for
it (move_queue.client_for_this_loop); the process's CPU time and the wall time a push are one sample, the ways
interleaved round by round, their order rotated each round (so that no way is always first or last: with a
multiple of three rounds, each way runs in each place as often). Prints the median of each, in microseconds.
A local Redis (started if none answers at REDIS_URL), under a key prefix of its own; nothing is left in it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import setup_django  # noqa: E402
from scripts.localredis import started_redis  # noqa: E402


async def measure(pushes: int, rounds: int) -> dict[str, list[tuple[float, float]]]:
    from rooms import live, move_queue

    client = move_queue.client_for_this_loop()
    lane, bell = move_queue._lane_of("move")
    now = time.time()
    text = json.dumps({"kind": "move", "room": "ABCDEF", "seat": 1, "seq": 3, "action": {"type": "play", "candle": 4},
                       "mover": "specific.abc!def#3", "reply_to": "specific.abc!def", "language": "en",
                       "ref": "move 1 2", "sent_at": now, "deadline": now + 5}, separators=(",", ":"))
    await client.script_load(move_queue._PUSH)

    async def pipeline():
        async with client.pipeline(transaction=False) as pipe:
            pipe.rpush(lane, text)
            pipe.rpush(bell, 1)
            pipe.ltrim(bell, 0, 0)
            await pipe.execute()

    async def one_command():
        await client.evalsha(move_queue._PUSH_DIGEST, 2, lane, bell, text)

    async def publish():
        await client.publish(live.key("nobody"), text)

    ways = {"pipeline of three": pipeline, "one command": one_command, "one PUBLISH": publish}
    samples: dict[str, list[tuple[float, float]]] = {way: [] for way in ways}
    names = list(ways)
    for round_ in range(rounds):
        for way in names[round_ % len(names):] + names[:round_ % len(names)]:  # rotated: no order bias
            push = ways[way]
            await client.delete(lane, bell)
            wall, cpu = time.perf_counter(), time.process_time()
            for _push in range(pushes):
                await push()
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            samples[way].append((cpu * 1e6 / pushes, wall * 1e6 / pushes))
    await client.delete(lane, bell)
    await move_queue.close_for_this_loop()
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pushes", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=6, help="a multiple of three puts each way in each place equally")
    args = parser.parse_args()
    with started_redis() as redis_url:
        setup_django("push_cost", redis_url=redis_url)
        samples = asyncio.run(measure(args.pushes, args.rounds))
    print(f"daphne's push, in one process: {args.rounds} rounds of {args.pushes} of each, their order rotated "
          f"each round; medians, µs a push")
    for way, figures in samples.items():
        print(f"  {way:18}  CPU {statistics.median(c for c, _w in figures):7.1f}   wall "
              f"{statistics.median(w for _c, w in figures):7.1f}   (CPU by round: "
              f"{', '.join(f'{c:.0f}' for c, _w in figures)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
