"""Idle sockets on one daphne: what an open room page costs while nobody plays.

    python bench/idle_sockets.py --clients 5000 [--seconds 60]

--clients sockets take their seats in rooms of four (candles, in the lobby) on one daphne and one worker,
then sit idle as an open room page does: each sends `{"type": "ping"}` every 15 s (socket.js,
PING_EVERY_MS; the first at a random moment of the first 15 s, as pages are opened at different times) and
answers daphne's own WebSocket pings, as a browser does. It sends no WebSocket pings of its own.

Prints daphne's memory per socket (its resident memory with every socket open, less with the first
20 open, over the sockets opened in between) and the CPU daphne and the worker spend while the sockets idle: seconds of
CPU per second, over --seconds, measured twice: with no page pinging yet (daphne's own WebSocket pings
go on), then with the pages' pings, which show what they cost. Pongs answered fewer than pings sent mean
that daphne cannot keep up.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from bench.live_load import Server  # noqa: E402
from bench.reconnect_storm import on_seated_rooms  # noqa: E402

PING_EVERY_SECONDS = 15.0  # static/js/room/socket.js: PING_EVERY_MS
WARM_UP = 20  # sockets opened before daphne's memory is first read, not counted in the memory per socket


def resident_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Page:
    """One room page's socket: seated, then idle, pinging every 15 s while `pinging` is set."""

    def __init__(self, server: Server, ticket: dict):
        self.server = server
        self.ticket = ticket
        self.pongs = 0
        self.closed = False

    async def open(self):
        self.ws = await connect(f"ws://127.0.0.1:{self.server.port}{self.ticket['socket']}",
                                origin=self.server.base, ping_interval=None, max_size=2**20)
        await self.ws.send(json.dumps({"type": "auth", "return_code": self.ticket["return_code"]}))
        while True:
            message = json.loads(await self.ws.recv())
            if message["type"] == "snapshot" and (message.get("you") or {}).get("seat") == self.ticket["seat"]:
                return

    async def idle(self, pinging: asyncio.Event, stop: asyncio.Event):
        reader = asyncio.create_task(self._read())
        await asyncio.sleep(random.random() * PING_EVERY_SECONDS)
        while not stop.is_set():
            if pinging.is_set():
                try:
                    await self.ws.send('{"type":"ping"}')
                except ConnectionClosed:
                    self.closed = True
                    break
            await asyncio.sleep(PING_EVERY_SECONDS)
        reader.cancel()

    async def _read(self):
        try:
            async for raw in self.ws:
                if '"pong"' in raw:
                    self.pongs += 1
        except ConnectionClosed:
            self.closed = True


async def run(server: Server, tickets: list[dict], seconds: float, batch: int) -> dict:
    daphne = server.processes[0].pid
    pages = [Page(server, ticket) for ticket in tickets]
    await asyncio.gather(*(page.open() for page in pages[:WARM_UP]))  # daphne's first sockets load its pools
    await asyncio.sleep(1)
    rss_before = resident_kib(daphne)
    opened = time.perf_counter()
    for start in range(WARM_UP, len(pages), batch):
        await asyncio.gather(*(page.open() for page in pages[start:start + batch]))
    opened = time.perf_counter() - opened
    pinging, stop = asyncio.Event(), asyncio.Event()
    idlers = [asyncio.create_task(page.idle(pinging, stop)) for page in pages]
    await asyncio.sleep(5)  # the last sockets' snapshots and room updates are sent
    figures = {"opened_seconds": opened, "rss_before_kib": rss_before}
    # Silent first: a daphne that cannot keep up with the pings would still be answering them after.
    for phase in ("not pinging", "pinging"):
        if phase == "pinging":
            pinging.set()
            await asyncio.sleep(PING_EVERY_SECONDS)  # every page has sent its first ping: the steady state
        pids = {"daphne": daphne, "worker": server.processes[1].pid}
        before = {name: cpu_seconds(pid) for name, pid in pids.items()}
        pongs_before, started = sum(page.pongs for page in pages), time.perf_counter()
        await asyncio.sleep(seconds)
        elapsed = time.perf_counter() - started
        figures[phase] = {name: (cpu_seconds(pid) - before[name]) / elapsed for name, pid in pids.items()}
        figures[phase]["pongs_per_second"] = (sum(page.pongs for page in pages) - pongs_before) / elapsed
    figures["rss_open_kib"] = resident_kib(daphne)
    stop.set()
    for task in idlers:
        task.cancel()
    figures["closed"] = sum(page.closed for page in pages)
    for page in pages:
        await page.ws.close()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each measured window")
    parser.add_argument("--open-batch", type=int, default=250, help="sockets opened at once (not measured)")
    args = parser.parse_args()
    figures = on_seated_rooms(parser, args.clients,
                              lambda server, tickets: asyncio.run(run(server, tickets, args.seconds, args.open_batch)))
    per_socket = (figures["rss_open_kib"] - figures["rss_before_kib"]) / (args.clients - WARM_UP)
    print(f"idle sockets: {args.clients} seated sockets in {args.clients // 4} rooms of four on one daphne + one "
          f"worker, each pinging every {PING_EVERY_SECONDS:g} s as the room page does")
    print(f"  opened in {figures['opened_seconds']:.1f} s, {args.open_batch} at a time; closed by the server "
          f"meanwhile: {figures['closed']}")
    print(f"  daphne resident memory  {figures['rss_before_kib'] / 1024:7.1f} MiB before, "
          f"{figures['rss_open_kib'] / 1024:7.1f} MiB with all open: {per_socket:.1f} KiB a socket (after the first "
          f"{WARM_UP})")
    for phase in ("not pinging", "pinging"):
        cpu = figures[phase]
        print(f"  CPU s/s, {phase:11}  daphne {cpu['daphne']:.3f}   (worker {cpu['worker']:.3f}; "
              f"{cpu['pongs_per_second']:.0f} pongs/s, over {args.seconds:g} s)")
    ping_cost = figures["pinging"]["daphne"] - figures["not pinging"]["daphne"]
    pings = figures["pinging"]["pongs_per_second"]
    if pings:
        print(f"  the pings cost daphne {ping_cost:.3f} CPU s/s: {ping_cost / pings * 1000:.2f} ms a ping answered "
              f"({pings:.0f} answered a second of the {args.clients / PING_EVERY_SECONDS:.0f} sent)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
