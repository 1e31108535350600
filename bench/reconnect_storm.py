"""A reconnect storm: every socket of a busy daphne comes back at once after it is killed.

    python bench/reconnect_storm.py --clients 1000 [--storms 2]

--clients sockets take their seats in rooms of four (candles, in the lobby) on one daphne and one worker.
Then daphne is killed with kill -9 and started again at once, the way a supervisor restarts it. Each
socket retries as the room page does (static/js/room/protocol.js, retryDelay: the wait doubles from 0.5 s
up to 10 s, and is between half of that and all of it), opens a new socket, sends its `auth` and counts
as back once its seat's snapshot has arrived. With --as-pages each socket comes back as a room page does
instead: its browser's session holds the seat (taken with the return code on the site's Return page), so
the socket is seated as it opens, with no `auth`; it counts as back at its first snapshot.

Prints, for each storm: the seconds until every seat was back, the p50 and p99 of the seconds each socket
took (from the kill to its snapshot), and the attempts that failed: refused while no daphne listened (the
restart's own gap; every page sees those) and handshakes that failed once daphne listened again (closed
without an answer, refused with an HTTP status, timed out), which the target wants at none.
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import json
import random
import re
import statistics
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus  # noqa: E402

from bench.common import percentile  # noqa: E402
from bench.live_load import Server, connect  # noqa: E402
from scripts.localredis import started_redis  # noqa: E402
from scripts.run import raise_open_files_limit  # noqa: E402

RETRY_BASE_SECONDS = 0.5  # static/js/room/protocol.js: RETRY_BASE_MS and RETRY_CAP_MS
RETRY_CAP_SECONDS = 10.0


def retry_delay(attempt: int, random_value: float) -> float:
    """protocol.js's retryDelay, in seconds."""
    ceiling = min(RETRY_CAP_SECONDS, RETRY_BASE_SECONDS * 2 ** min(attempt, 30))
    return ceiling / 2 + random_value * ceiling / 2


class Tally:
    def __init__(self):
        self.refused_while_down = 0  # no daphne listening yet: the connection is refused by the kernel
        self.failed: dict[str, int] = {}  # handshakes that failed against a listening daphne

    def fail(self, kind: str):
        self.failed[kind] = self.failed.get(kind, 0) + 1


class Seat:
    """One socket on one seat; `sync` opens it, authenticates and returns once the seat's snapshot came."""

    def __init__(self, server: Server, ticket: dict):
        self.server = server
        self.ticket = ticket
        self.ws = None
        self.session = ticket.get("session")  # --as-pages: the cookie of a browser whose session holds the seat

    async def sync(self):
        if self.session is not None:
            return await self._sync_as_a_page()
        ws = await self.server.socket(self.ticket["socket"])
        try:
            await ws.send(json.dumps({"type": "auth", "return_code": self.ticket["return_code"]}))
            while True:  # until the auth's snapshot arrives, this socket is a spectator's
                message = json.loads(await ws.recv())
                if message["type"] == "snapshot" and (message.get("you") or {}).get("seat") == self.ticket["seat"]:
                    break
        except BaseException:
            await ws.close()
            raise
        self.ws = ws

    async def _sync_as_a_page(self):
        ws = await connect(f"ws://127.0.0.1:{self.server.port}{self.ticket['socket']}", origin=self.server.base,
                           max_size=2**20, additional_headers={"Cookie": self.session})
        try:
            message = json.loads(await ws.recv())
            seat = (message.get("you") or {}).get("seat")
            if message["type"] != "snapshot" or seat != self.ticket["seat"]:
                raise RuntimeError(f"the page's first message was not its seat's snapshot: {message}")
        except BaseException:
            await ws.close()
            raise
        self.ws = ws

    async def until_closed(self):
        try:
            async for _ in self.ws:
                pass
        except ConnectionClosed:
            pass

    async def come_back(self, tally: Tally, killed_at: float, server_up: asyncio.Event) -> float:
        """The room page's reconnect loop; returns the seconds from the kill to this seat's snapshot."""
        await self.until_closed()
        attempt = 0
        while True:
            await asyncio.sleep(retry_delay(attempt, random.random()))
            attempt += 1
            listening = server_up.is_set()
            try:
                await self.sync()
                return time.perf_counter() - killed_at
            except ConnectionRefusedError:
                if listening:
                    tally.fail("refused after restart")
                else:
                    tally.refused_while_down += 1
            except InvalidStatus as error:
                tally.fail(f"HTTP {error.response.status_code}")
            except (InvalidHandshake, ConnectionClosed, EOFError):
                tally.fail("closed before the answer")
            except TimeoutError:
                tally.fail("timed out")
            except OSError as error:
                tally.fail(type(error).__name__)


async def seat_all(server: Server, tickets: list[dict], batch: int) -> list[Seat]:
    seats = [Seat(server, ticket) for ticket in tickets]
    for start in range(0, len(seats), batch):  # seating is not measured: paced so that it is quick
        await asyncio.gather(*(seat.sync() for seat in seats[start:start + batch]))
    return seats


async def storm(server: Server, seats: list[Seat]) -> tuple[list[float], float, Tally, float]:
    """Returns each seat's seconds back, when daphne listened again, the failures, and daphne's CPU seconds
    from listening until every seat was back."""
    tally = Tally()
    server_up = asyncio.Event()
    killed_at = time.perf_counter()
    server.kill_daphne()
    comebacks = [asyncio.create_task(seat.come_back(tally, killed_at, server_up)) for seat in seats]
    server.restart_daphne()
    await asyncio.to_thread(server.wait_listening)
    server_up.set()
    listening_after = time.perf_counter() - killed_at
    cpu_listening = server.cpu_seconds().get("daphne", 0.0)
    times = await asyncio.gather(*comebacks)
    return times, listening_after, tally, server.cpu_seconds().get("daphne", 0.0) - cpu_listening


def open_rooms(server: Server, rooms: int) -> list[dict]:
    def one(_):
        host = server.post("/api/rooms/", {"game": "candles", "seats": 4, "name": "host"})
        return [host] + [server.post(f"/api/rooms/{host['room']}/join/", {"name": f"p{i}"}) for i in range(1, 4)]

    with ThreadPoolExecutor(4) as pool:
        return [ticket for room in pool.map(one, range(rooms)) for ticket in room]


_CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def as_a_browser(server: Server, ticket: dict) -> dict:
    """The ticket with the cookie of a browser whose session holds its seat: the return code given on the
    site's Return page, as a player coming to a new device does."""
    jar = http.cookiejar.CookieJar()

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
    form = opener.open(server.base + "/return/", timeout=30).read().decode()
    token = _CSRF_FIELD.search(form).group(1)
    body = urllib.parse.urlencode({"csrfmiddlewaretoken": token, "return_code": ticket["return_code"]}).encode()
    try:
        opener.open(urllib.request.Request(server.base + "/return/", data=body, headers={"Referer": server.base}),
                    timeout=30)
        raise RuntimeError("the Return page did not take the return code")
    except urllib.error.HTTPError as answer:
        if answer.code != 302:
            raise
    cookie = "; ".join(f"{c.name}={c.value}" for c in jar if c.name == "sessionid")
    if not cookie:
        raise RuntimeError("the Return page set no session")
    return {**ticket, "session": cookie}


def as_browsers(server: Server, tickets: list[dict]) -> list[dict]:
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda ticket: as_a_browser(server, ticket), tickets))


def on_seated_rooms(parser, clients: int, play):
    """What the socket benchmarks share: a local Redis, one daphne and one worker as `make run` starts them,
    and `clients` tickets in rooms of four; returns `play(server, tickets)`."""
    if clients < 4 or clients % 4:
        parser.error("--clients must be a multiple of 4")
    raise_open_files_limit()
    with started_redis() as redis_url:
        server = Server(redis_url, move_threads=None)  # the worker's default for its database, as `make run`'s
        try:
            return play(server, open_rooms(server, clients // 4))
        finally:
            server.stop()


async def run(server: Server, tickets: list[dict], storms: int, batch: int):
    seats = await seat_all(server, tickets, batch)
    results = []
    for _ in range(storms):
        await asyncio.sleep(2)
        results.append(await storm(server, seats))
    for seat in seats:
        await seat.ws.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--storms", type=int, default=2,
                        help="kills and restarts, one after the other (a killed daphne's presence lapses after "
                             "45 s: more storms than a seat's socket limit within that leave seats refused)")
    parser.add_argument("--seat-batch", type=int, default=200, help="sockets seated at once before the storms")
    parser.add_argument("--as-pages", action="store_true",
                        help="each socket's session holds its seat, as a room page's does: no auth")
    args = parser.parse_args()

    def play(server, tickets):
        if args.as_pages:
            tickets = as_browsers(server, tickets)
        return asyncio.run(run(server, tickets, args.storms, args.seat_batch))

    results = on_seated_rooms(parser, args.clients, play)
    how = "a page's session holds each seat" if args.as_pages else "each socket sends its return code (auth)"
    print(f"reconnect storm: {args.clients} seated sockets in {args.clients // 4} rooms of four, one daphne "
          f"(killed with kill -9 and started again) + one worker; retries as the room page's retryDelay; {how}")
    for number, (times, listening_after, tally, cpu) in enumerate(results, 1):
        failed = ", ".join(f"{kind} {count}" for kind, count in sorted(tally.failed.items())) or "none"
        print(f"  storm {number}: all {len(times)} back in {max(times):5.2f} s   per socket p50 "
              f"{statistics.median(times):5.2f} s  p99 {percentile(times, 0.99):5.2f} s   (daphne listening "
              f"again after {listening_after:.2f} s; {tally.refused_while_down} attempts refused before that)")
        print(f"           failed handshakes once listening: {failed}")
        print(f"           daphne's CPU from listening until all were back: {cpu:.2f} s, "
              f"{cpu / len(times) * 1000:.1f} ms a socket")
    return 0


if __name__ == "__main__":
    sys.exit(main())
