"""What one ping costs daphne, in one process: the position worked out from the database in a read thread for
every ping (as before), against the position kept in Redis (rooms/positions.py), read on the event loop.

    python bench/ping_cost.py [--rooms 50] [--rounds 15]

--rooms rooms of four (candles, every seat taken, the game in play) and a socket on each seat. A round is
one ping from every socket, one after the other, on one event loop, as the consumer answers it (its read
threads, its Redis client for the loop); the process's CPU time during the pings (every thread) and their
wall time, over the pings, are one sample. Four ways, the rounds interleaved:

- worked out: live.still_open and snapshots.position in a read thread, then the pong encoded (as before);
- kept: the consumer's on_ping now, every room's position already stored (an idle room);
- changed: the same, with the room marked changed before each ping (something was written to the room since
  its last ping: the ping works the position out and keeps it). The marks are not counted: the writer
  makes them.
- after a move: the same, with the room's game moved on before each ping as a move's update leaves it (its
  part of the position kept: positions.game_updated), the room's part kept as it was. Before the game's part
  was kept apart, a move marked the room changed, and such a ping cost what "changed" costs.

Prints the median of each, in milliseconds a ping. Uses DATABASE_URL if set, else a fresh SQLite file in
var/bench/, and a local Redis (started if none answers at REDIS_URL), under a key prefix of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the project root, to run standalone

from bench.common import setup_django  # noqa: E402
from scripts.localredis import started_redis  # noqa: E402

ADDRESS = "198.51.100.20"


def seated_sockets(rooms: int) -> list[tuple[str, int, str]]:
    """(room code, seat, channel) of a socket on every seat of `rooms` rooms of four with their game in play."""
    from rooms import services

    sockets = []
    for number in range(rooms):
        host = services.create_room(game="candles", seat_count=4, options={}, host_name="Host")
        for seat in range(1, 4):
            services.join_room(room_code=host.room_code, name=f"Player {seat + 1}")
        services.start_game(room_code=host.room_code, seat=0)
        for seat in range(4):
            channel = f"bench-{number}-{seat}"
            services.seat_connected(room_code=host.room_code, seat=seat, channel=channel)
            sockets.append((host.room_code, seat, channel))
    return sockets


async def measure(sockets, rounds: int, games: dict) -> dict[str, list[tuple[float, float]]]:
    """`games`: each room's game in play, by code (`games_in_play`)."""
    from rooms import live, move_queue, positions, snapshots
    from rooms.consumers import _reading

    def worked_out_in_thread(code, seat, channel):
        live.still_open(ADDRESS, channel, code, [seat])
        return snapshots.position(code)

    async def as_before(code, seat, channel):
        position = await _reading(worked_out_in_thread)(code, seat, channel)
        return json.dumps({"type": "pong", "position": position}, separators=(",", ":"))

    async def as_now(code, seat, channel):  # RoomConsumer.on_ping
        position, gen, read_at = await positions.renew_and_read(
            move_queue.client_for_this_loop(), address=ADDRESS, channel=channel, room_code=code, seats=[seat])
        if position is None:
            position = await _reading(positions.worked_out)(code, gen, read_at)
        return positions.pong(position)

    def moved_on(code):  # what a move's update keeps, one version on each time (not counted: the writer does it)
        game = games[code]
        game.seq, game.version = game.seq + 1, game.version + 1
        positions.game_updated(code, positions.game_part(game))

    ways = {"worked out": as_before, "kept": as_now, "changed": as_now, "after a move": as_now}
    for ping in ways.values():  # warm up: threads, connections, compiled queries, the kept positions
        for socket in sockets:
            await ping(*socket)
    samples: dict[str, list[tuple[float, float]]] = {way: [] for way in ways}
    for _ in range(rounds):
        for way, ping in ways.items():
            if way == "kept":  # an idle room: no game part newer than its position kept
                live.client().delete(*(live.position_keys(code)[2] for code in games))
            wall = cpu = 0.0
            for socket in sockets:
                if way == "changed":
                    positions.changed(socket[0])  # not counted: the writer marks
                elif way == "after a move":
                    moved_on(socket[0])
                started, started_cpu = time.perf_counter(), time.process_time()
                await ping(*socket)
                wall, cpu = wall + time.perf_counter() - started, cpu + time.process_time() - started_cpu
            samples[way].append((cpu * 1000 / len(sockets), wall * 1000 / len(sockets)))
    await move_queue.close_for_this_loop()
    return samples


def games_in_play(sockets) -> dict:
    from rooms.models import Game

    return {code: Game.objects.filter(room__code=code).order_by("-number").first() for code, _seat, _ch in sockets}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with started_redis() as redis_url:
        setup_django("ping_cost", redis_url=redis_url)
        sockets = seated_sockets(args.rooms)
        samples = asyncio.run(measure(sockets, args.rounds, games_in_play(sockets)))
    print(f"ping cost in one process: {len(sockets)} seated sockets in {args.rooms} rooms of four (candles, in "
          f"play), {args.rounds} rounds of one ping a socket; medians, ms a ping")
    for way, figures in samples.items():
        cpu = statistics.median(c for c, _w in figures)
        wall = statistics.median(w for _c, w in figures)
        print(f"  {way:12}  CPU {cpu:6.3f}   wall {wall:6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
