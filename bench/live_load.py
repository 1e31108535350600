"""Live-play load: many WebSocket clients in rooms of four playing candles on one daphne and one worker.

    python bench/live_load.py --clients 200 [--games 2] [--think 0] [--pairs 5] [--move-threads N] [--echo-messages 30]
                              [--relay] [--pings] [--bots K]

Prints decisions per second, the server's CPU per move, and the time from a move being sent to every seat
of its room receiving the update (p50, p99), next to bare Channels consumers on the same server in the
same run:

- echo to every seat: the same traffic as play with no game behind it. The same number of sockets in
  rooms of four (with --bots, of the rooms' players alone) each send one message a round at the same pace
  as the players, and a bare consumer relays it through the channel layer to the sockets of its room. The
  target compares against this one.
- relay through the worker: the same sockets and pace as the echo to every seat, but each message takes the
  move's road (bench/echo.py): daphne pushes it onto the worker's list of moves, the worker's intake takes it
  and hands it to a move thread, which publishes it to the room in the round trip a move's update goes in,
  with no game, no database and no claim: its figures beside the echo's and the move's tell the road from
  the game's work (its consumer, like the echo's, pays Channels' dispatch hop a frame that the room's does
  not). Only with --relay, between each pair's echo and games; without it a run has the phases it had before.
- a one-socket echo: with as many sockets before play, and 20 sockets pausing between round trips while
  the games are played (how responsive the server stays for everything else).

The echo to every seat and the games run in pairs, one right after the other, --pairs times on the same
server. The ratio of their p99s is the median over the pairs: the machine's speed drifts between runs, and
a pair measures both sides within seconds of each other.

Every socket is seated before its phase starts and stays open until the phase ends, so connecting and
leaving are not measured. Each phase starts once daphne and the worker are done with the sockets of the phase
before (Server.settle), their grace periods included (the site's 20 s, waited out): their leaving (some
milliseconds of daphne's CPU a socket, then the worker's grace periods) used to fall into the next phase, the
next pair's echo above all, and daphne's part is printed apart ("a socket leaving").

All the clients run in this one process's event loop, so a stall of this process stalls every socket at
once and lengthens whatever is in flight. Its garbage collector is off during each timed phase (a gen-2
collection over a thousand sockets' objects took ~110 ms) and runs between phases, the same for both
phases of a pair; --client-gc leaves it on, as before. Under each pair a "client:" line prints, for each
phase's timed part, this process's collections by generation (count, longest) and its loop's lag (a task
sleeping 5 ms: how much longer it slept, p99, longest, how often over 20 ms), so a client pause shows.

Clients act as soon as they may, like bots (--think 0): the server then runs flat out, and a move waits
behind every move sent before it (its latency is the moves in flight over the moves per second). With
--think S a client waits between 0 and 2*S seconds before each move, like a quick player. Every room's host
presses Start at the same moment unless --stagger-starts (with --think) has each host think first: a
start costs the worker several moves, and the first round's moves wait behind all the starts sent at once.

With --pings each socket pings every 15 s, the first at a random moment of the first 15 s, as an open room
page does (static/js/room/socket.js): in the games the site answers (presence renewed, the room's position
read), the load a real table adds beside its moves; in the echo to every seat a bare consumer sends a frame
back, so both phases carry the same frames and the ratio says what the site's answers cost the moves.

With --probe daphne reports after each pair what it holds (rooms/probe.py): its resident memory, its live
objects by generation, its tasks and timers, its connections and the channel layer's channels and groups,
and the types that grew most since the pair before. With --against-fresh one server lives through the whole
run and each of its pairs is set against a new server's second pair, alternating (against_fresh): whether
daphne's CPU grows with its age, apart from the machine's drift.

With --sample-worker the worker samples its threads' stacks and CPU during each games phase (rooms/sampler.py,
about every millisecond) and the script prints where its CPU went, by thread and by what it was doing
(bench/stacks_report.py); the samples are kept in var/bench/worker-stacks.jsonl.

With --trace the server stamps each move's stages (rooms/trace.py): the script prints where the time of the
slowest 5 % of moves went, stage by stage, next to all moves', then the hand-over (daphne's push to the
worker's take) split by where the request waited (in daphne, in Redis's list and what the worker's intake did
meanwhile, the take's reply), keeps every traced move's stamps in var/bench/traced-moves.json, and the
server's log (var/bench/server.log) has each process's garbage collections and daphne's event-loop lag
every 10 s.

Uses DATABASE_URL if set, else a fresh SQLite file in var/bench/, and a Redis at REDIS_URL (started locally
when none answers).

Two databases in one run (issue 18: PostgreSQL's ratio within 1.25 times SQLite's "in the same run"):

    python bench/live_load.py --databases sqlite,postgresql [--postgres-url URL] --clients 200 ...

starts a server on each at once (a fresh SQLite file in var/bench-sqlite/; a database wwbench_PID made on
--postgres-url's server, by default postgres://postgres@127.0.0.1:5432/postgres, for the run and dropped at
its end), warms both with the idle echo, then runs their pairs alternating, A B B A A B ..., --pairs of
each. It prints every pair in the order run (with what PostgreSQL's backends waited on, its checkpoints
and WAL flushes, and the CPU the other server used meanwhile), each database's ratio (the median over its
own pairs) and the ratio of ratios. Both servers run at once rather than one after the other: the one
waiting has no sockets, and restarting one for each pair would measure every pair on a cold server
(compare_databases). Two more can join them: sqlite-full, SQLite flushing its log at every commit as
PostgreSQL does (SQLITE_SYNCHRONOUS=full), and postgresql-unflushed, PostgreSQL with its commits not
waiting for the flush (the site never runs so): with both, the run splits PostgreSQL's extra time into
the flush and the rest (DATABASE_SETTINGS).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import connect  # noqa: E402

from bench.common import fresh_postgres_database, percentile  # noqa: E402
from config.serve import chosen_event_loop  # noqa: E402
from scripts.localredis import started_redis  # noqa: E402
from scripts.ports import free_port, port_open  # noqa: E402
from scripts.run import daphne_command, raise_open_files_limit  # noqa: E402

ERRORS: dict = {}
REFUSALS: dict = {}  # (the refused request's kind, the code) -> count: says what was refused, not just how often
CANDLES_ROUNDS = 6  # a game of candles is six rounds: each socket moves once a round
UNANSWERED = ("move_unanswered", "busy")  # refusals of a request that was not played: it may be sent again
TRACE = "--trace" in sys.argv  # read before the server starts (main's parser documents it)
PROBE = "--probe" in sys.argv  # the same
PINGS = "--pings" in sys.argv  # the same
PING_EVERY = 15.0  # seconds, as the room page pings (static/js/room/socket.js, PING_EVERY_MS)
PING_FRAME = '{"type":"ping"}'  # as the page sends it; bench/echo.py's PING, which its room echo answers
PONGS: list[int] = [0]  # the games' pongs received, with --pings
# Seats a stand-in bot took during play: (room, seat). The site keeps an open socket present whether it pings or
# not (rooms/presence_keeper.py; before, a socket that never pinged lapsed after 45 s), so a seat goes to a bot
# only when the site lost its socket past the grace period. The bot's turns then hold the worker's writer while
# the client's moves answer rounds the bot played (refused as stale_seq).
STOOD_IN: set[tuple[str, int]] = set()
STAND_IN_ADVICE = "the site lost their sockets for longer than the grace period, and bots played their turns"
SAMPLE = "--sample-worker" in sys.argv  # the same
SEATS = 4  # a room's seats; --bots of them are left to bots, which fill them when the host starts
BOTS = int(sys.argv[sys.argv.index("--bots") + 1]) if "--bots" in sys.argv[:-1] else 0  # the same
HUMANS = SEATS - BOTS  # a room's sockets, in the games and in the echo that is their baseline
GRACE_SECONDS = 20.0  # the site's grace period for a seat whose socket left: the wait after a games phase outlasts it
TRACED: list[dict] = []  # with --trace: each move's stamps, from the client's send to the last seat's receipt
RELAYS_TRACED: list[dict] = []  # the same for the relay through the worker's messages


def refused_kind(ref) -> str:
    """The kind of request a refusal answers, from the ref this bench gave it."""
    ref = str(ref)
    return "move" if ref.startswith("move ") else {"start": "start", "again": "play_again"}.get(ref, "other")


MOVE_THREADS_LOGGED = re.compile(r"playing moves in (\d+) threads")  # MovePlayer.start's line


class Server:
    """daphne + one worker on a fresh database, with the echo baseline mounted. The worker plays the
sockets' moves (rooms/move_queue.py), so the game's work is counted in the worker's CPU."""

    def __init__(self, redis_url: str, *, move_threads: int | None, database_url: str | None = None,
                 label: str = "", env: dict | None = None):
        """`label` gives a second server at once its own folder and Redis prefix (see compare_databases).
        `move_threads`: the worker's --move-threads, or None for its default (by database). `env`: more of
        the server's environment (a database's settings, see DATABASE_SETTINGS)."""
        self.move_threads_asked = move_threads
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        workdir = ROOT / "var" / (f"bench-{label}" if label else "bench")
        shutil.rmtree(workdir, ignore_errors=True)
        workdir.mkdir(parents=True)
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "DATABASE_URL": database_url or os.environ.get("DATABASE_URL", f"sqlite:///{workdir / 'bench.sqlite3'}"),
            "REDIS_URL": redis_url,
            "REDIS_PREFIX": f"wwbench{os.getpid()}{label}:",
            "DEBUG": "false",
            "ALLOWED_HOSTS": "127.0.0.1",
            "WICKWISE_BENCH_ECHO": "1",
            "WICKWISE_BOT_DELAY_SECONDS": "0",
            "WICKWISE_PER_ADDRESS_SCALE": "1000",  # every client comes from 127.0.0.1
            "WICKWISE_GRACE_SECONDS": str(GRACE_SECONDS),  # the site's own, which settle() waits out
            "LOG_LEVEL": "WARNING",
            "WICKWISE_MOVES_LOG_LEVEL": "INFO",  # the worker's counts at stop, in server.log
            **({"WICKWISE_TRACE_MOVES": "1"} if TRACE else {}),
            **({"WICKWISE_PROBE_FILE": str(workdir / "probe.jsonl")} if PROBE else {}),
            **(env or {}),
        }
        self.probe_file = workdir / "probe.jsonl"
        self.stacks_file = workdir / "worker-stacks.jsonl"  # with --sample-worker (rooms/sampler.py)
        worker_env = {**self.env, **({"WICKWISE_SAMPLE_STACKS": str(self.stacks_file)} if SAMPLE else {})}
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=self.env, check=True)
        self.log_path = workdir / "server.log"
        self.logs = open(self.log_path, "w")  # noqa: SIM115
        threads = ["--move-threads", str(move_threads)] if move_threads is not None else []
        self.processes = [
            self.start_daphne(),
            subprocess.Popen([sys.executable, "manage.py", "worker", *threads],
                             cwd=ROOT, env=worker_env, stdout=self.logs, stderr=subprocess.STDOUT),
        ]
        self.wait_listening()

    def wait_listening(self, seconds: float = 30):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if port_open(self.port):
                return
            time.sleep(0.05)
        raise RuntimeError("daphne did not start")

    def move_threads(self) -> str:
        """The worker's move threads as it logged them at its start (rooms/move_queue.py), and whether they were
        asked for or its default."""
        try:
            found = MOVE_THREADS_LOGGED.search(self.log_path.read_text(errors="replace"))
        except OSError:
            found = None
        asked = self.move_threads_asked
        count = found.group(1) if found else (str(asked) if asked is not None else "?")
        how = "the worker's default" if asked is None else "--move-threads"
        return f"{'no move threads, the intake plays them' if count == '0' else f'{count} move threads'}, {how}"

    def kill_daphne(self):
        """kill -9, as a crash or an out-of-memory kill would: no socket is closed cleanly."""
        self.processes[0].kill()
        self.processes[0].wait()

    def restart_daphne(self):
        self.processes[0] = self.start_daphne()

    def start_daphne(self) -> subprocess.Popen:
        """Started as `make run` starts it (scripts/run.py): its listen queue, handshake timeout and
        open-files limit are part of what is measured."""
        return subprocess.Popen(daphne_command(sys.executable, host="127.0.0.1", port=self.port, extra=("-v", "0")),
                                cwd=ROOT, env=self.env, stdout=self.logs, stderr=subprocess.STDOUT,
                                preexec_fn=raise_open_files_limit)

    def post(self, path: str, body: dict) -> dict:
        request = urllib.request.Request(
            self.base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def socket(self, path: str):
        return connect(f"ws://127.0.0.1:{self.port}{path}", origin=self.base, max_size=2**20)

    def cpu_seconds(self) -> dict[str, float]:
        """CPU time (user + system) used so far by daphne and by the worker; empty where /proc is missing.
        Redis and the database are not counted; the echo sockets measured during play are."""
        ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        used = {}
        for name, process in zip(("daphne", "worker"), self.processes):
            try:
                fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                return {}
            used[name] = (int(fields[11]) + int(fields[12])) / ticks
        return used

    def probe(self, collect: bool = False) -> dict:
        """What daphne holds now (rooms/probe.py), with --probe; after a full collection if `collect`."""
        lines = len(self.probe_file.read_text().splitlines()) if self.probe_file.exists() else 0
        self.processes[0].send_signal(signal.SIGUSR2 if collect else signal.SIGUSR1)
        deadline = time.time() + 30
        while time.time() < deadline:
            time.sleep(0.1)
            if self.probe_file.exists():
                text = self.probe_file.read_text().splitlines()
                if len(text) > lines:
                    try:
                        return json.loads(text[lines])
                    except ValueError:
                        continue
        raise RuntimeError("daphne did not answer the probe")

    def settle(self, window: float = 0.5, busy: float = 0.05, longest: float = 60.0, after: float = 0.0) -> float:
        """Wait until daphne and the worker are done with the sockets that just closed: each one's CPU over the
        last `window` seconds under `busy` of a core. Each socket leaves its room (Redis, a database thread,
        the room's update): some milliseconds of daphne's CPU a socket, which without this fell into the next
        phase's CPU and delayed its messages. After a games phase, `after` seconds first: the worker fires each
        seat's grace period GRACE_SECONDS after its socket left, a thousand at once at 1,000 clients, which
        kept the worker busy for seconds in the middle of the next phase. Returns the CPU daphne used meanwhile
        (0 without /proc)."""
        start = last = self.cpu_seconds()
        if not start:
            return 0.0
        time.sleep(after)
        deadline = time.monotonic() + longest
        while True:
            time.sleep(window)
            now = self.cpu_seconds()
            if all(now[name] - last[name] < busy * window for name in now):
                break
            if time.monotonic() >= deadline:
                print(f"  the server was still busy {longest:g} s after the phase: the next one starts anyway",
                      flush=True)
                break
            last = now
        return now["daphne"] - start["daphne"]

    def stop(self):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
        self.logs.close()


class ClientWatch:
    """The benchmark client's own stalls in one phase: all sockets are served by this one event loop, so
    while it is busy (its garbage collector, or a burst of work) no client sends or reads, and every
    latency measured across the stall grows by it. Times each of its garbage collections by generation
    (gc.callbacks) and the loop's lag: a task sleeping `every` seconds records how much longer it slept."""

    def __init__(self, every: float = 0.005):
        self.every = every
        self.collections: list[tuple[float, int, float]] = []  # (ended, generation, seconds)
        self.lags: list[tuple[float, float]] = []  # (woke, seconds overslept)
        self.window = (0.0, 0.0)  # the timed part of the phase (perf_counter), set by the phase
        self._collecting = 0.0

    def _on_gc(self, phase: str, info: dict) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._collecting = now
        else:
            self.collections.append((now, info["generation"], now - self._collecting))

    async def _probe(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(self.every)
            woke = time.perf_counter()
            self.lags.append((woke, woke - before - self.every))

    async def watching(self, phase):
        """Runs the phase's coroutine with the probe alongside and its collections timed."""
        gc.callbacks.append(self._on_gc)
        probe = asyncio.create_task(self._probe())
        try:
            return await phase
        finally:
            probe.cancel()
            gc.callbacks.remove(self._on_gc)

    def summary(self) -> str:
        """What happened within the timed window: collections by generation (count, longest), the loop's
        lag (p99, longest and when it ended, how often over 20 ms)."""
        start, end = self.window
        collected = [(gen, took) for ended, gen, took in self.collections if start <= ended <= end]
        timed = [(lag, woke) for woke, lag in self.lags if start <= woke <= end]
        lags = [lag for lag, _woke in timed]
        longest, woke = max(timed, default=(0.0, start))
        by_gen = []
        for gen in range(3):
            took = [t for g, t in collected if g == gen]
            if took:
                by_gen.append(f"gen{gen} {len(took)}x max {max(took) * 1000:.0f}")
        over = sum(1 for lag in lags if lag > 0.020)
        return (f"GC {', '.join(by_gen) or 'none'} ms; loop lag p99 {percentile(lags, 0.99) * 1000:.0f} max "
                f"{longest * 1000:.0f} ms (ended {woke - start:.1f} s into {end - start:.1f} s), {over} over 20 ms")


@contextmanager
def client_collector(keep_gc: bool):
    """The client's garbage collector for one timed phase. Unless `keep_gc`, it is off for the phase and
    run once after it: a collection over a thousand sockets' objects stops every client at once (see
    ClientWatch), which is the client's pause, not the server's. Reference counting still frees what
    the phase drops; only cycles wait for the collection after the phase."""
    if keep_gc:
        yield
        return
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


async def echo_phase(server: Server, clients: int, messages: int) -> list[float]:
    rtts: list[float] = []

    async def one(index: int):
        async with server.socket("/ws/echo/") as ws:
            await asyncio.sleep(random.random() * 0.5)
            for n in range(messages):
                sent = time.perf_counter()
                await ws.send(json.dumps({"type": "echo", "n": n, "client": index}))
                await ws.recv()
                rtts.append(time.perf_counter() - sent)
                await asyncio.sleep(random.random() * 0.2)

    await asyncio.gather(*(one(i) for i in range(clients)))
    return rtts


async def room_echo_phase(server: Server, clients: int, rounds: int, think: float,
                          watch: ClientWatch | None = None, path: str = "echo") -> tuple[list[float], float]:
    """The same traffic as play, on bare Channels: the same sockets in rooms of four, each sending one
    message a round (at once, or after thinking as the players do), relayed by a bare consumer to all four
    sockets of its room through the channel layer. A socket's round ends once it has seen the four messages
    of that round, as a candles round does. Returns (message sent -> the last of its room's four sockets
    received it) and the seconds from the first round to the end of the last. `path` "relay": the relay
    through the worker (bench/echo.py), each message handed to the worker and published by a move thread."""
    seen: dict[tuple, list[float]] = {}
    sent: dict[tuple, float] = {}
    traces: dict[tuple, dict] = {}  # traced relays (--trace): the worker's stamps and each seat's receipt
    waiting = [clients]
    all_connected = asyncio.Event()
    started = [0.0]

    async def one(room: int, seat: int):
        async with server.socket(f"/ws/{path}/r{room}/") as ws:
            received: dict[int, int] = {}
            round_over = asyncio.Event()
            current = [0]
            closed = [False]

            async def read():  # reads all along, thinking or not, as the players' sockets do
                try:
                    async for raw in ws:
                        message = json.loads(raw)
                        if message.get("type") == "pong":  # --pings: the echo's bare answer
                            continue
                        seen.setdefault((room, message["round"], message["seat"]), []).append(time.perf_counter())
                        if "trace" in message:
                            entry = traces[(room, message["round"], message["seat"])]
                            entry["seats"].append({**message["trace"], "client": time.time()})
                            if len(entry["seats"]) == HUMANS:
                                RELAYS_TRACED.append(entry)
                        received[message["round"]] = received.get(message["round"], 0) + 1
                        if received.get(current[0]) == HUMANS:
                            round_over.set()
                finally:  # closed by the server: fail the phase rather than wait for this round for ever
                    closed[0] = True
                    round_over.set()

            reader = asyncio.create_task(read())
            waiting[0] -= 1
            if waiting[0] == 0:
                started[0] = time.perf_counter()
                all_connected.set()
            await all_connected.wait()
            pinging = asyncio.create_task(pinged(ws)) if PINGS and path == "echo" else None
            try:
                for round_ in range(rounds):
                    current[0] = round_
                    round_over.clear()
                    if think:
                        await asyncio.sleep(random.uniform(0, 2 * think))
                    sent[(room, round_, seat)] = time.perf_counter()
                    if TRACE and path == "relay":
                        traces[(room, round_, seat)] = {"client_sent": time.time(), "seats": []}
                    await ws.send(json.dumps({"round": round_, "seat": seat}))
                    if received.get(round_) != 4:
                        await round_over.wait()
                    if closed[0]:
                        raise RuntimeError(f"an echo socket of room {room} was closed during the phase")
            finally:
                reader.cancel()
                if pinging is not None:
                    pinging.cancel()

    await asyncio.gather(*(one(room, seat) for room in range(clients // HUMANS) for seat in range(HUMANS)))
    elapsed = time.perf_counter() - started[0]
    if watch is not None:
        watch.window = (started[0], started[0] + elapsed)
    return [max(seen[key]) - at for key, at in sent.items() if len(seen.get(key, ())) == HUMANS], elapsed


async def pinged(ws):
    """As an open room page does (--pings): a ping every PING_EVERY seconds, the first at a random moment of the
    first PING_EVERY, as pages are opened at different times. Until cancelled."""
    await asyncio.sleep(random.uniform(0, PING_EVERY))
    while True:
        await ws.send(PING_FRAME)
        await asyncio.sleep(PING_EVERY)


class Stage:
    """What every room shares: the games start once all sockets are seated, and the sockets stay open
    until every room has finished, so connecting and leaving are not measured as play."""

    def __init__(self, sockets: int):
        self.unseated = sockets
        self.all_seated = asyncio.Event()
        self.rooms_left = sockets // HUMANS
        self.all_done = asyncio.Event()
        self.play_started = 0.0
        self.play_ended = 0.0

    def seated(self):
        self.unseated -= 1
        if self.unseated == 0:
            self.play_started = time.perf_counter()
            self.all_seated.set()

    def room_done(self):
        self.rooms_left -= 1
        if self.rooms_left == 0:
            self.play_ended = time.perf_counter()
            self.all_done.set()


class Room:
    """Four clients in one room; records when each move was sent and when each seat saw it."""

    def __init__(self, server: Server, games: int, stage: Stage, think: float, stagger_starts: bool = False):
        self.stagger_starts = stagger_starts
        self.server = server
        self.games = games
        self.think = think
        self.stage = stage
        self.sent: dict[tuple, float] = {}
        self.seen: dict[tuple, list[float]] = {}
        self.moves = 0
        self.finished_seats = 0
        self.traces: dict[tuple, dict] = {}  # with --trace: the server's stamps and each seat's receipt, a move

    async def setup(self):
        host = self.server.post("/api/rooms/", {"game": "candles", "seats": 4, "name": "host"})
        self.code = host["room"]
        self.tickets = [host] + [self.server.post(f"/api/rooms/{self.code}/join/", {"name": f"p{i}"})
                                 for i in range(1, HUMANS)]

    async def play(self):
        await asyncio.gather(*(self._seat(ticket) for ticket in self.tickets))

    async def _seat(self, ticket: dict):
        seat = ticket["seat"]
        async with self.server.socket(ticket["socket"]) as ws:
            await ws.send(json.dumps({"type": "auth", "return_code": ticket["return_code"]}))
            while True:  # until the auth's snapshot arrives, this socket is a spectator's
                message = json.loads(await ws.recv())
                if message["type"] == "snapshot" and message["you"]["seat"] == seat:
                    break
            self.stage.seated()
            await self.stage.all_seated.wait()
            pinging = asyncio.create_task(pinged(ws)) if PINGS else None
            try:
                if seat == 0:
                    if self.stagger_starts and self.think:  # a host presses Start after thinking, as players move
                        await asyncio.sleep(random.uniform(0, 2 * self.think))
                    await ws.send(json.dumps({"type": "start", "ref": "start"}))
                await self._play(ws, seat)
                self.finished_seats += 1
                if self.finished_seats == HUMANS:
                    self.stage.room_done()
                await self.stage.all_done.wait()
            finally:
                if pinging is not None:
                    pinging.cancel()

    async def _play(self, ws, seat: int):
        thinking: set[asyncio.Task] = set()  # kept referenced until done
        try:
            await self._play_until_done(ws, seat, thinking)
        finally:  # a move still being thought about when the seat's last game ended is never sent
            for task in thinking:
                task.cancel()

    async def _play_until_done(self, ws, seat: int, thinking: set[asyncio.Task]):
        acted: set[tuple] = set()
        finished_games = 0
        async for raw in ws:
            now = time.perf_counter()
            message = json.loads(raw)
            kind = message["type"]
            if kind == "error":
                ERRORS[message["code"]] = ERRORS.get(message["code"], 0) + 1
                refused = (refused_kind(message.get("ref")), message["code"])
                REFUSALS[refused] = REFUSALS.get(refused, 0) + 1
                if str(message.get("ref")).startswith("move ") and message["code"] in UNANSWERED:
                    number, round_ = message["ref"].split()[1:]  # the snapshot that follows asks for it again
                    acted.discard((int(number), int(round_)))
                elif message.get("ref") in ("start", "again") and message["code"] in UNANSWERED:
                    # Not played (the worker had not reached it in time): the host presses again. Counted
                    # in the errors all the same; without this the room would wait for ever.
                    await ws.send(json.dumps({"type": "start" if message["ref"] == "start" else "play_again",
                                              "ref": message["ref"]}))
                continue
            if kind == "pong":
                PONGS[0] += 1
                continue
            self._note_stand_ins(message.get("room"))
            if kind not in ("snapshot", "update") or message.get("game") is None:
                continue
            game, view = message["game"], message["view"]
            events = message.get("events", [])
            reveal = [e["round"] for e in events if e["type"] == "reveal"]
            round_ = reveal[0] if reveal else (view or {}).get("round")
            for event in events:
                if event["type"] == "picked":
                    self.seen.setdefault((game["number"], event["seat"], round_), []).append(now)
                    if TRACE and "trace" in message:
                        self._traced((game["number"], event["seat"], round_), message["trace"])
            if game["status"] in ("finished", "ended"):
                if kind == "update" and game["number"] > finished_games:
                    finished_games = game["number"]
                    if finished_games >= self.games:
                        return
                    if seat == 0:
                        await ws.send(json.dumps({"type": "play_again", "ref": "again"}))
                continue
            if game["status"] != "playing" or seat not in game["to_act"] or view.get("my_pick") is not None:
                continue
            key = (game["number"], view["round"])
            if key in acted:
                continue
            acted.add(key)
            move = {"type": "move", "seq": message["seq"], "ref": f"move {key[0]} {key[1]}",
                    "action": {"type": "play", "candle": random.choice(view["hand"])}}
            if self.think:  # think in a task of its own: this socket keeps reading meanwhile
                task = asyncio.create_task(self._move_later(ws, seat, view["round"], game["number"], move))
                thinking.add(task)
                task.add_done_callback(thinking.discard)
            else:
                await self._move(ws, seat, view["round"], game["number"], move)

    def _note_stand_ins(self, room: dict | None):
        """Counted once a seat, as an error: a seat played by a bot is not a player's, and the run's figures
        are not play."""
        for entry in (room or {}).get("seats", ()):
            if entry.get("stand_in") and (self.code, entry["index"]) not in STOOD_IN:
                STOOD_IN.add((self.code, entry["index"]))
                ERRORS["stood_in"] = ERRORS.get("stood_in", 0) + 1

    async def _move_later(self, ws, seat: int, round_: int, number: int, move: dict):
        await asyncio.sleep(random.uniform(0, 2 * self.think))
        await self._move(ws, seat, round_, number, move)

    async def _move(self, ws, seat: int, round_: int, number: int, move: dict):
        if (number, seat, round_) not in self.sent:  # timed from the first try, if a try went unanswered
            self.sent[(number, seat, round_)] = time.perf_counter()
            self.moves += 1
            if TRACE:
                self.traces.setdefault((number, seat, round_), {"client_sent": time.time(), "seats": []})
        await ws.send(json.dumps(move))

    def _traced(self, key: tuple, stamps: dict):
        entry = self.traces.get(key)
        if entry is not None:
            entry["seats"].append({**stamps, "client": time.time()})
            if len(entry["seats"]) == HUMANS:
                TRACED.append(entry)

    def latencies(self) -> list[float]:
        """Move sent -> the last of the room's players' sockets received the update naming it."""
        return [max(self.seen[key]) - sent for key, sent in self.sent.items()
                if len(self.seen.get(key, ())) == HUMANS]


async def echo_while(server: Server, clients: int, stage: Stage) -> list[float]:
    """Echo round trips while the games are played (sent between the start and the end of play)."""
    rtts: list[tuple[float, float]] = []

    async def one():
        async with server.socket("/ws/echo/") as ws:
            while not stage.all_done.is_set():
                sent = time.perf_counter()
                await ws.send('{"type":"echo"}')
                await ws.recv()
                rtts.append((sent, time.perf_counter() - sent))
                await asyncio.sleep(0.05 + random.random() * 0.2)

    await asyncio.gather(*(one() for _ in range(clients)))
    return [rtt for sent, rtt in rtts if stage.play_started <= sent <= stage.play_ended]


async def game_phase(server: Server, clients: int, games: int, echo_clients: int, think: float,
                     stagger_starts: bool = False, watch: ClientWatch | None = None):
    stage = Stage(clients)
    rooms = [Room(server, games, stage, think, stagger_starts) for _ in range(clients // HUMANS)]
    for room in rooms:
        await room.setup()
    echo_task = asyncio.create_task(echo_while(server, echo_clients, stage))
    playing = asyncio.gather(*(room.play() for room in rooms))
    await asyncio.wait_for(stage.all_seated.wait(), timeout=120)
    if SAMPLE:  # the worker's sampler counts from here (SIGUSR2: forget what came before)
        server.processes[1].send_signal(signal.SIGUSR2)
    cpu_before = server.cpu_seconds()
    await asyncio.wait_for(stage.all_done.wait(), timeout=600)
    cpu = {name: used - cpu_before[name] for name, used in server.cpu_seconds().items()}
    if SAMPLE:  # to here (SIGUSR1: write what was counted)
        server.processes[1].send_signal(signal.SIGUSR1)
    elapsed = stage.play_ended - stage.play_started
    if watch is not None:
        watch.window = (stage.play_started, stage.play_ended)
    await playing
    loaded_echo = await echo_task
    latencies = [value for room in rooms for value in room.latencies()]
    moves = sum(room.moves for room in rooms)
    if len(latencies) < moves:
        print(f"  {moves - len(latencies)} moves were not seen by all the room's players and are left out")
    return latencies, moves, elapsed, loaded_echo, cpu


@dataclass
class Pair:
    """One echo-to-every-seat phase and the games played right after it, on the same server."""

    room_echo: list[float]
    room_echo_rate: float
    room_echo_cpu: dict
    latencies: list[float]
    moves: int
    elapsed: float
    loaded_echo: list[float]
    cpu: dict
    room_echo_client: str = ""  # the client's stalls in each phase (ClientWatch.summary)
    client: str = ""
    left: dict | None = None  # by phase: daphne's CPU seconds as that phase's sockets left (Server.settle)
    # The relay through the worker, run between the echo and the games (only with --relay): its times, its
    # messages a second, the CPU of its phase by process, and the client's stalls in it.
    relay: list[float] | None = None
    relay_rate: float = 0.0
    relay_cpu: dict | None = None
    relay_client: str = ""

    @property
    def daphne_a_relay(self) -> float:
        return self.room_echo_cpu["daphne"] / len(self.room_echo)

    def daphne_a_leaving(self, args) -> float:
        """daphne's CPU seconds a games phase's socket left with (the players' and the echo sockets beside them)."""
        return self.left["games"] / (args.clients + args.echo_clients)

    @property
    def ratio(self) -> float:
        return percentile(self.latencies, 0.99) / percentile(self.room_echo, 0.99)

    @property
    def relay_ratio(self) -> float:
        """The relay through the worker's p99 over the echo to every seat's: the move's road with no game."""
        return percentile(self.relay, 0.99) / percentile(self.room_echo, 0.99)

    def relay_line(self) -> str:
        """The relay's figures beside the echo's and the move's, with its CPU a message; empty without it."""
        if not self.relay:
            return ""
        ms = 1000.0
        cpu = (f"; CPU a relay: daphne {self.relay_cpu['daphne'] / len(self.relay) * ms:.2f}, worker "
               f"{self.relay_cpu['worker'] / len(self.relay) * ms:.2f} ms") if self.relay_cpu else ""
        return (f"relay through the worker p50 {statistics.median(self.relay) * ms:5.1f} p99 "
                f"{percentile(self.relay, 0.99) * ms:5.1f} ms ({self.relay_rate:5.1f}/s) | ratio to the echo "
                f"{self.relay_ratio:4.2f}, move over relay {self.ratio / self.relay_ratio:4.2f}{cpu}")


def run_pair(server: Server, args) -> Pair:
    """The echo to every seat, the relay through the worker (only with --relay), then the games. Every phase
    gets the same client: its collector set by client_collector, its stalls watched. Each phase
    starts once daphne and the worker are done with the sockets of the phase before (Server.settle): daphne's
    CPU of their leaving is counted apart (`left`), not in the next phase's."""
    echo_watch, game_watch = ClientWatch(), ClientWatch()
    cpu_before = server.cpu_seconds()
    with client_collector(args.client_gc):
        room_echo, room_echo_elapsed = asyncio.run(echo_watch.watching(
            room_echo_phase(server, args.clients, args.games * CANDLES_ROUNDS, args.think, echo_watch)))
    room_echo_cpu = {name: used - cpu_before[name] for name, used in server.cpu_seconds().items()}
    echo_left = server.settle()
    relay = relay_cpu = None
    relay_rate, relay_watch = 0.0, ClientWatch()
    if getattr(args, "relay", False):
        cpu_before = server.cpu_seconds()
        with client_collector(args.client_gc):
            relay, relay_elapsed = asyncio.run(relay_watch.watching(
                room_echo_phase(server, args.clients, args.games * CANDLES_ROUNDS, args.think, relay_watch,
                                path="relay")))
        relay_cpu = {name: used - cpu_before[name] for name, used in server.cpu_seconds().items()}
        relay_rate = len(relay) / relay_elapsed
        server.settle()
    with client_collector(args.client_gc):
        latencies, moves, elapsed, loaded, cpu = asyncio.run(game_watch.watching(
            game_phase(server, args.clients, args.games, args.echo_clients, args.think, args.stagger_starts,
                       game_watch)))
    games_left = server.settle(after=GRACE_SECONDS + 1)  # its seats' grace periods run out meanwhile
    return Pair(room_echo, len(room_echo) / room_echo_elapsed, room_echo_cpu, latencies, moves, elapsed, loaded, cpu,
                echo_watch.summary(), game_watch.summary(), {"echo": echo_left, "games": games_left},
                relay, relay_rate, relay_cpu, relay_watch.summary() if relay else "")


# --- One run, two databases (--databases sqlite,postgresql) ------------------------------------------------

DATABASE_NAMES = {"sqlite": "SQLite", "sqlite-full": "SQLite+flush", "postgresql": "PostgreSQL",
                  "postgresql-unflushed": "PG-noflush"}
# What a database's server is given beyond its URL. sqlite-full flushes SQLite's log at every commit, as
# PostgreSQL does (SQLITE_SYNCHRONOUS=full, an operator's choice: README): the two then keep the same
# promise, and what is left between them is PostgreSQL's own. postgresql-unflushed is PostgreSQL with its
# commits not waiting for the flush: what the flush costs there. The site never runs so (a PostgreSQL
# crash could lose moves players have seen).
DATABASE_SETTINGS = {"sqlite-full": {"SQLITE_SYNCHRONOUS": "full"},
                     "postgresql-unflushed": {"PGOPTIONS": "-c synchronous_commit=off"}}
POSTGRES_BASE_URL = "postgres://postgres@127.0.0.1:5432/postgres"


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--databases", metavar="sqlite,postgresql",
                        help="compare databases in one run: a server on each at once, their pairs alternating "
                             f"(any two or more of {', '.join(DATABASE_NAMES)})")
    parser.add_argument("--postgres-url", default=POSTGRES_BASE_URL,
                        help="with --databases: the PostgreSQL server on which a database is made for the run")


class PostgresWatch:
    """What PostgreSQL's backends of the run's database wait on, sampled every `every` seconds from a
    connection of its own while a pair plays, with the checkpoints and WAL flushes of the pair. It costs a
    few small queries a second on the PostgreSQL side only."""

    STATS = """select (select checkpoints_timed + checkpoints_req from pg_stat_bgwriter),
                      (select wal_sync from pg_stat_wal), (select wal_bytes from pg_stat_wal),
                      (select count(*) from pg_stat_activity where backend_type = 'autovacuum worker'),
                      (select xact_commit from pg_stat_database where datname = %s)"""
    # The game's row: its updates, and those that stayed on the row's page (HOT), from the run's database.
    GAME_UPDATES = """select coalesce(sum(n_tup_upd), 0), coalesce(sum(n_tup_hot_upd), 0) from pg_stat_user_tables
                      where relname = 'rooms_game'"""
    WAITS = """select coalesce(wait_event_type || ':' || wait_event, 'CPU'), count(*) from pg_stat_activity
               where datname = %s and pid <> pg_backend_pid() and state = 'active' group by 1"""
    # Its processes that work for the run: the database's backends, and the WAL writer, checkpointer and
    # background writer (shared with anything else the server serves meanwhile).
    PROCESSES = """select pid from pg_stat_activity where (datname = %s and pid <> pg_backend_pid())
                   or backend_type in ('walwriter', 'checkpointer', 'background writer')"""

    def __init__(self, url: str, database: str, every: float = 0.25):
        import psycopg

        self.connection = psycopg.connect(url, autocommit=True)
        self.run_database = psycopg.connect(url, dbname=database, autocommit=True)
        self.database, self.every = database, every
        self.waits: dict[str, int] = {}
        self.samples = 0
        self.autovacuum_seen = 0
        self.stop_event = threading.Event()

    def _cpu(self) -> dict[int, float]:
        """CPU seconds by process, read in /proc where the server runs on this machine, else nothing."""
        ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        used = {}
        for (pid,) in self.connection.execute(self.PROCESSES, (self.database,)).fetchall():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            used[pid] = (int(fields[11]) + int(fields[12])) / ticks
        return used

    def __enter__(self):
        self.before = self.connection.execute(self.STATS, (self.database,)).fetchone()
        self.game_before = self._game_updates()
        self.cpu_before = self._cpu()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop_event.set()
        self.thread.join()
        after = self.connection.execute(self.STATS, (self.database,)).fetchone()
        game_after = self._game_updates()
        self.commits = after[4] - self.before[4]
        self.game_updates = game_after[0] - self.game_before[0]
        self.hot_updates = game_after[1] - self.game_before[1]
        # a backend that left during the pair is not counted (the site keeps its connections for a minute)
        self.cpu = sum(used - self.cpu_before.get(pid, 0.0) for pid, used in self._cpu().items())
        self.checkpoints, self.wal_syncs = after[0] - self.before[0], after[1] - self.before[1]
        self.wal_bytes = after[2] - self.before[2]
        self.connection.close()
        self.run_database.close()

    def _game_updates(self) -> tuple[int, int]:
        """The counts as the backends last reported them (each reports within a second or so of its commits)."""
        self.run_database.execute("select pg_stat_clear_snapshot()")
        return self.run_database.execute(self.GAME_UPDATES).fetchone()

    def _sample(self):
        while not self.stop_event.wait(self.every):
            self.samples += 1
            for wait, count in self.connection.execute(self.WAITS, (self.database,)).fetchall():
                self.waits[wait] = self.waits.get(wait, 0) + count
            if self.connection.execute("select count(*) from pg_stat_activity "
                                       "where backend_type = 'autovacuum worker'").fetchone()[0]:
                self.autovacuum_seen += 1

    def summary(self, moves: int) -> str:
        busy = sum(self.waits.values())
        top = sorted(self.waits.items(), key=lambda item: -item[1])[:4]
        waits = ", ".join(f"{wait} {count / self.samples:.2f}" for wait, count in top) or "none"
        return (f"CPU a move {self.cpu / max(moves, 1) * 1000:.2f} ms (the whole pair's); active backends a sample "
                f"{busy / max(self.samples, 1):.2f} ({waits}; {self.samples} samples), "
                f"checkpoints {self.checkpoints}, WAL flushes a move {self.wal_syncs / max(moves, 1):.2f}, "
                f"WAL {self.wal_bytes / max(moves, 1) / 1024:.1f} kB a move, commits a move "
                f"{self.commits / max(moves, 1):.2f}, the game's row updated {self.game_updates / max(moves, 1):.2f} "
                f"a move ({self.hot_updates / max(self.game_updates, 1):.0%} on its page), "
                f"autovacuum seen {self.autovacuum_seen}")


@dataclass
class ComparedPair:
    database: str
    pair: Pair
    errors: dict
    started: str  # UTC, to match a pair with the database server's log
    idle_cpu: dict  # CPU used meanwhile by the other database's server, which had no sockets
    postgres: str = ""


def compare_databases(args) -> int:
    """Each database's ratio (move -> every seat p99 over echo to every seat p99, median over its pairs) and
    PostgreSQL's over SQLite's, from one run: both servers (daphne + worker each, a fresh SQLite file and a
    fresh PostgreSQL database) run at once on one Redis with their own prefixes, and their pairs alternate
    in the order A B B A A B ..., so that the machine's drift during the run falls on both alike.

    Both run at once rather than one after another: the server that waits has no sockets and its worker
    only looks at Redis twice a second (its CPU meanwhile is printed), while stopping and starting one
    each pair would measure every pair on a cold server, unlike the single-database mode whose pairs
    share one warm server."""
    databases = [name.strip().lower() for name in args.databases.split(",")]
    if len(databases) < 2 or len(set(databases)) != len(databases) or not set(databases) <= set(DATABASE_NAMES):
        raise SystemExit("--databases takes two or more of: " + ", ".join(DATABASE_NAMES))
    raise_open_files_limit()
    results: list[ComparedPair] = []
    with ExitStack() as stack:
        redis_url = stack.enter_context(started_redis())
        urls = {}
        for name in databases:
            if name.startswith("postgresql"):  # a database of its own for each
                suffix = "" if name == "postgresql" else "_" + name.split("-", 1)[1]
                urls[name] = stack.enter_context(fresh_postgres_database(args.postgres_url, suffix))
            else:
                urls[name] = (None, "")  # the Server's own fresh SQLite file, in its label's folder
        servers: dict[str, Server] = {}
        for name in databases:
            servers[name] = Server(redis_url, move_threads=args.move_threads, database_url=urls[name][0],
                                   label=name, env=DATABASE_SETTINGS.get(name))
            stack.callback(servers[name].stop)
        for server in servers.values():  # a warm-up, as the single mode's idle echo is
            asyncio.run(echo_phase(server, args.clients, args.echo_messages))
            server.settle()
        for round_ in range(args.pairs):
            for name in databases if round_ % 2 == 0 else databases[::-1]:
                results.append(_compared_pair(name, servers, urls[name][1], args))
                print(f"  {DATABASE_NAMES[name]:12} {_pair_line(results[-1].pair)}", flush=True)
                if results[-1].pair.relay:
                    print(f"             {results[-1].pair.relay_line()}", flush=True)
                print(f"             client: echo phase {results[-1].pair.room_echo_client} | games "
                      f"{results[-1].pair.client}", flush=True)
    _print_comparison(databases, results, args, {name: server.move_threads() for name, server in servers.items()})
    return 0


def _compared_pair(name: str, servers: dict, postgres_database: str, args) -> ComparedPair:
    others = [server for other, server in servers.items() if other != name]
    idle_before = [server.cpu_seconds() for server in others]
    ERRORS.clear()
    started = time.strftime("%H:%M:%S", time.gmtime())
    if name.startswith("postgresql"):
        with PostgresWatch(args.postgres_url, postgres_database) as watch:
            pair = run_pair(servers[name], args)
    else:
        watch, pair = None, run_pair(servers[name], args)
    idle_cpu: dict[str, float] = {}
    for server, before in zip(others, idle_before):
        for process, used in server.cpu_seconds().items():
            idle_cpu[process] = idle_cpu.get(process, 0.0) + used - before[process]
    return ComparedPair(name, pair, dict(ERRORS), started, idle_cpu, watch.summary(pair.moves) if watch else "")


def _pair_line(pair: Pair) -> str:
    ms = 1000.0
    cpu = (f" | CPU a move: daphne {pair.cpu['daphne'] / pair.moves * ms:.2f}, worker "
           f"{pair.cpu['worker'] / pair.moves * ms:.2f} ms") if pair.cpu else ""
    move, echo = pair.latencies, pair.room_echo
    return (f"move p50 {statistics.median(move) * ms:6.1f} p99 {percentile(move, 0.99) * ms:6.1f} ms "
            f"({pair.moves / pair.elapsed:5.1f}/s) | echo to every seat p50 {statistics.median(echo) * ms:5.1f}"
            f" p99 {percentile(echo, 0.99) * ms:5.1f} ms | ratio {pair.ratio:4.2f}{cpu}")


def rooms_of(args) -> str:
    """The rooms' words for the run's first line: how many, of how many players, and their bots."""
    bots = f" and {args.bots} bots" if args.bots else ""
    return f"{args.clients // HUMANS} rooms of {HUMANS} players{bots}"


def _print_comparison(databases: list[str], results: list[ComparedPair], args, threads: dict[str, str]) -> None:
    ms = 1000.0
    pace = f"thinking 0-{2 * args.think:g} s before each move" if args.think else "acting at once"
    print(f"live play, databases compared in one run: {args.clients} clients in {rooms_of(args)}, "
          f"{args.games} games each, {pace}, one daphne + one worker a database "
          f"({'; '.join(f'{DATABASE_NAMES[name]} {threads[name]}' for name in databases)}); {args.pairs} pairs a "
          f"database, alternating")
    for number, result in enumerate(results, 1):
        print(f"  {number:2} {result.started} {DATABASE_NAMES[result.database]:12} {_pair_line(result.pair)}"
              f" | the other server's CPU: {', '.join(f'{k} {v:.2f} s' for k, v in result.idle_cpu.items())}")
        if result.postgres:
            print(f"     PostgreSQL: {result.postgres}")
        if result.errors:
            print(f"     errors: {', '.join(f'{code} {count}' for code, count in sorted(result.errors.items()))}")
    medians = {}
    for name in databases:
        pairs = [result.pair for result in results if result.database == name]
        errors: dict[str, int] = {}
        for result in results:
            if result.database == name:
                for code, count in result.errors.items():
                    errors[code] = errors.get(code, 0) + count
        latencies = [value for pair in pairs for value in pair.latencies]
        room_echo = [value for pair in pairs for value in pair.room_echo]
        moves, elapsed = sum(pair.moves for pair in pairs), sum(pair.elapsed for pair in pairs)
        ratios = sorted(pair.ratio for pair in pairs)
        medians[name] = statistics.median(ratios)
        cpu = (f", CPU a move daphne {sum(p.cpu['daphne'] for p in pairs) / moves * ms:.2f} / worker "
               f"{sum(p.cpu['worker'] for p in pairs) / moves * ms:.2f} ms") if pairs[0].cpu else ""
        print(f"  {DATABASE_NAMES[name]}: {moves / elapsed:.1f} decisions/s{cpu}; move -> every seat p50 "
              f"{statistics.median(latencies) * ms:.1f} p99 {percentile(latencies, 0.99) * ms:.1f} ms; echo to every "
              f"seat p50 {statistics.median(room_echo) * ms:.1f} p99 {percentile(room_echo, 0.99) * ms:.1f} ms; "
              f"ratio {medians[name]:.2f} (median of {len(ratios)} pairs, {ratios[0]:.2f} to {ratios[-1]:.2f}); "
              f"errors: {', '.join(f'{code} {count}' for code, count in sorted(errors.items())) or 'none'}")
    # Each against the site's default (SQLite, else the first named), and PostgreSQL against SQLite that
    # flushes as it does; the target is PostgreSQL's over the default's.
    first = "sqlite" if "sqlite" in databases else databases[0]
    for name in databases:
        if name != first:
            target = "   (target <= 1.25)" if (first, name) == ("sqlite", "postgresql") else ""
            print(f"  ratio of ratios {DATABASE_NAMES[name]} / {DATABASE_NAMES[first]}: "
                  f"{medians[name] / medians[first]:.2f}{target}")
    if {"sqlite-full", "postgresql"} <= set(databases) and first != "sqlite-full":
        print(f"  ratio of ratios PostgreSQL / SQLite+flush: {medians['postgresql'] / medians['sqlite-full']:.2f}")


# --- A server's age (--against-fresh) ---------------------------------------------------------------------

def against_fresh(args) -> int:
    """Does daphne's CPU grow with its age? One server lives through the whole run; next to each of its pairs
    a new server plays one warm-up pair and then one measured pair, in the order aged, fresh, fresh, aged, ...
    so that the machine's drift falls on both alike. Prints each measured pair's CPU a relay and a move, and
    the median over the rounds of aged / fresh."""
    raise_open_files_limit()
    rows: list[tuple[str, int, Pair]] = []
    with ExitStack() as stack:
        redis_url = stack.enter_context(started_redis())
        aged = Server(redis_url, move_threads=args.move_threads, label="aged")
        stack.callback(aged.stop)
        asyncio.run(echo_phase(aged, args.clients, args.echo_messages))
        aged.settle()
        aged_pairs = 0
        for round_ in range(args.pairs):
            for side in ("aged", "fresh") if round_ % 2 == 0 else ("fresh", "aged"):
                if side == "aged":
                    aged_pairs += 1
                    rows.append(("aged", aged_pairs, run_pair(aged, args)))
                else:
                    fresh = Server(redis_url, move_threads=args.move_threads, label=f"fresh{round_}")
                    try:
                        asyncio.run(echo_phase(fresh, args.clients, args.echo_messages))
                        fresh.settle()
                        run_pair(fresh, args)  # its warm-up: the game's code runs for the first time
                        rows.append(("fresh", 2, run_pair(fresh, args)))
                    finally:
                        fresh.stop()
                side_, age, pair = rows[-1]
                print(f"  round {round_ + 1} {side_:5} (pair {age:2} of its server): {_age_line(pair, args)}",
                      flush=True)
    ms = 1000.0
    print(f"a server's age: {args.clients} clients, {args.games} games a pair, think {args.think:g}; {args.pairs} "
          f"rounds of (the one aged server's next pair, a fresh server's second pair)")
    for what, cpu in (("a relay", lambda p: p.daphne_a_relay),
                      ("a move", lambda p: p.cpu["daphne"] / p.moves),
                      ("a socket leaving", lambda p: p.daphne_a_leaving(args))):
        aged_cpu = [cpu(p) for side, _age, p in rows if side == "aged"]
        fresh_cpu = [cpu(p) for side, _age, p in rows if side == "fresh"]
        ratios = sorted(a / f for a, f in zip(aged_cpu, fresh_cpu) if f) or [float("nan")]
        print(f"  daphne's CPU {what}: aged median {statistics.median(aged_cpu) * ms:.2f} ms (first "
              f"{aged_cpu[0] * ms:.2f}, last {aged_cpu[-1] * ms:.2f}), fresh median "
              f"{statistics.median(fresh_cpu) * ms:.2f} ms; aged / fresh {statistics.median(ratios):.2f} (median of "
              f"{len(ratios)} rounds, {ratios[0]:.2f} to {ratios[-1]:.2f})")
    return 0


def _age_line(pair: Pair, args) -> str:
    ms = 1000.0
    return (f"daphne CPU a relay {pair.daphne_a_relay * ms:.2f} ms, a move "
            f"{pair.cpu['daphne'] / pair.moves * ms:.2f} ms, a socket leaving "
            f"{pair.daphne_a_leaving(args) * ms:.2f} ms; worker a move "
            f"{pair.cpu['worker'] / pair.moves * ms:.2f} ms | move p99 {percentile(pair.latencies, 0.99) * ms:.0f} ms, "
            f"echo to every seat p99 {percentile(pair.room_echo, 0.99) * ms:.0f} ms")


def arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--games", type=int, default=2, help="games each room plays")
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds a client waits before each move (0: at once)")
    parser.add_argument("--echo-messages", type=int, default=30, help="echo round trips per client, idle")
    parser.add_argument("--echo-clients", type=int, default=20, help="echo sockets measured during the games")
    parser.add_argument("--move-threads", type=int, default=None,
                        help="moves the worker plays at once (its --move-threads; on PostgreSQL, rooms in parallel); "
                             "by default the worker's own, by database")
    parser.add_argument("--stagger-starts", action="store_true",
                        help="with --think, each host waits as long as a move before pressing Start (else all at once)")
    parser.add_argument("--pairs", type=int, default=5,
                        help="echo-to-every-seat phases, each followed by its games; the ratio is their median")
    parser.add_argument("--relay", action="store_true",
                        help="add the relay through the worker (the move's road with no game) between each pair's "
                             "echo and games; without it, a run has the phases it had before")
    add_compare_arguments(parser)
    parser.add_argument("--client-gc", action="store_true",
                        help="leave this client's garbage collector on during the timed phases, as before "
                             "(its collections then stall every socket at once)")
    parser.add_argument("--against-fresh", action="store_true",
                        help="a server's age: one server for the whole run, each of its pairs next to a fresh "
                             "server's second pair (--pairs rounds)")
    parser.add_argument("--probe", action="store_true",
                        help="after each pair, print what daphne holds (rooms/probe.py): its memory, live objects, "
                             "tasks, timers, connections and channel layer entries, and the types that grew")
    parser.add_argument("--sample-worker", action="store_true",
                        help="the worker samples its threads' stacks and CPU (rooms/sampler.py) during each games "
                             "phase: print where its CPU went (bench/stacks_report.py)")
    parser.add_argument("--bots", type=int, default=0, choices=range(SEATS),
                        help="seats of each room of four left to bots (filled when the host starts, as on the site): "
                             "--clients counts the players' sockets, and the echo's rooms are as many sockets")
    parser.add_argument("--pings", action="store_true",
                        help="every socket pings every 15 s, as the room page does: the site answers the players', "
                             "the echo's consumer sends a bare frame back; the games' pongs are counted. Without it "
                             "the sockets send nothing between moves, and the site keeps them present by itself")
    parser.add_argument("--trace", action="store_true",
                        help="the server stamps each move's stages (rooms/trace.py): print where the slowest "
                             "moves' time went, and log pauses to var/bench/server.log")
    return parser


def main() -> int:
    parser = arguments()
    args = parser.parse_args()
    if args.clients < HUMANS or args.clients % HUMANS:
        parser.error(f"--clients must be a multiple of {HUMANS}, the players of a room")
    if args.databases:
        return compare_databases(args)
    if args.against_fresh:
        return against_fresh(args)
    raise_open_files_limit()
    pairs: list[Pair] = []
    with started_redis() as redis_url:
        server = Server(redis_url, move_threads=args.move_threads)
        try:
            cpu_before = server.cpu_seconds()
            echo = asyncio.run(echo_phase(server, args.clients, args.echo_messages))
            echo_cpu = {name: used - cpu_before[name] for name, used in server.cpu_seconds().items()}
            server.settle()
            probed = [server.probe()] if PROBE else []
            if PROBE:
                print_probe(0, None, probed[0], None)
            for _pair in range(args.pairs):
                pairs.append(run_pair(server, args))
                if PROBE:
                    probed.append(server.probe())
                    print_probe(len(pairs), pairs[-1], probed[-1], probed[-2])
            if PROBE:
                print_probe("collected", None, server.probe(collect=True), probed[-1])
        finally:
            server.stop()
    ms = 1000.0
    database = "PostgreSQL" if server.env["DATABASE_URL"].startswith("postgres") else "SQLite"
    pace = f"thinking 0-{2 * args.think:g} s before each move" if args.think else "acting at once"
    print(f"live play: {args.clients} clients in {rooms_of(args)}, {args.games} games each, "
          f"{pace}, one daphne (on {chosen_event_loop(server.env)}) + one worker ({server.move_threads()}), "
          f"{database}; {args.pairs} pairs of (echo to every seat, "
          f"{'relay through the worker, ' if args.relay else ''}games)")
    for number, pair in enumerate(pairs, 1):
        cpu = (f"   CPU a move: daphne {pair.cpu['daphne'] / pair.moves * ms:.2f} ms, worker "
               f"{pair.cpu['worker'] / pair.moves * ms:.2f} ms; a relay: daphne "
               f"{pair.daphne_a_relay * ms:.2f} ms; a socket leaving: echo "
               f"{pair.left['echo'] / args.clients * ms:.2f}, games "
               f"{pair.daphne_a_leaving(args) * ms:.2f} ms") if pair.cpu else ""
        print(f"  pair {number}: move p50 {statistics.median(pair.latencies) * ms:6.0f} p99 "
              f"{percentile(pair.latencies, 0.99) * ms:6.0f} ms ({pair.moves / pair.elapsed:5.1f}/s) | echo to "
              f"every seat p50 {statistics.median(pair.room_echo) * ms:5.0f} p99 "
              f"{percentile(pair.room_echo, 0.99) * ms:5.0f} ms ({pair.room_echo_rate:5.1f}/s) | ratio "
              f"{pair.ratio:4.2f}{cpu}")
        if pair.relay:
            print(f"          {pair.relay_line()}")
        print(f"          client: echo phase {pair.room_echo_client} | games {pair.client}"
              + (f" | relay {pair.relay_client}" if pair.relay else ""))
    latencies = [value for pair in pairs for value in pair.latencies]
    room_echo = [value for pair in pairs for value in pair.room_echo]
    loaded = [value for pair in pairs for value in pair.loaded_echo]
    moves, elapsed = sum(pair.moves for pair in pairs), sum(pair.elapsed for pair in pairs)
    print("  all pairs together:")
    print(f"  decisions per second      {moves / elapsed:8.1f}   ({moves} moves in {elapsed:.1f} s)")
    if pairs[0].cpu:
        daphne = sum(pair.cpu["daphne"] for pair in pairs)
        worker = sum(pair.cpu["worker"] for pair in pairs)
        relay = sum(pair.room_echo_cpu["daphne"] for pair in pairs)
        left = sum(pair.left["games"] for pair in pairs) / (len(pairs) * (args.clients + args.echo_clients))
        print(f"  server CPU per move       {daphne / moves * ms:8.2f} ms daphne, {worker / moves * ms:.2f} ms worker"
              f"   (a relay to every seat: {relay / len(room_echo) * ms:.2f} ms daphne; a game's socket leaving: "
              f"{left * ms:.2f} ms daphne)")
    print(f"  move -> every seat  p50   {statistics.median(latencies) * ms:8.2f} ms   "
          f"p99 {percentile(latencies, 0.99) * ms:8.2f} ms   (n={len(latencies)})")
    print(f"  echo to every seat  p50   {statistics.median(room_echo) * ms:8.2f} ms   "
          f"p99 {percentile(room_echo, 0.99) * ms:8.2f} ms   (n={len(room_echo)})")
    relayed = [value for pair in pairs if pair.relay for value in pair.relay]
    if relayed:
        cpu = ""
        if pairs[0].relay_cpu:
            cpu = (f"   (CPU a relay: daphne {sum(p.relay_cpu['daphne'] for p in pairs) / len(relayed) * ms:.2f}, "
                   f"worker {sum(p.relay_cpu['worker'] for p in pairs) / len(relayed) * ms:.2f} ms)")
        print(f"  relay through the worker p50 {statistics.median(relayed) * ms:5.2f} ms   "
              f"p99 {percentile(relayed, 0.99) * ms:8.2f} ms   (n={len(relayed)}){cpu}")
    print(f"  echo, idle server   p50   {statistics.median(echo) * ms:8.2f} ms   "
          f"p99 {percentile(echo, 0.99) * ms:8.2f} ms   (n={len(echo)}, {args.clients} sockets"
          + (f", {echo_cpu['daphne'] / len(echo) * ms:.2f} ms CPU each)" if echo_cpu else ")"))
    print(f"  echo, during games  p50   {statistics.median(loaded) * ms:8.2f} ms   "
          f"p99 {percentile(loaded, 0.99) * ms:8.2f} ms   (n={len(loaded)}, {args.echo_clients} sockets)")
    ratios = sorted(pair.ratio for pair in pairs)
    print(f"  ratio p99 move / echo to every seat   {statistics.median(ratios):6.2f}   (target <= 1.5; median of "
          f"{len(ratios)} pairs, {ratios[0]:.2f} to {ratios[-1]:.2f})")
    if relayed:
        relay_ratios = sorted(pair.relay_ratio for pair in pairs)
        over_relay = sorted(pair.ratio / pair.relay_ratio for pair in pairs)
        print(f"  ratio p99 relay through the worker / echo to every seat   {statistics.median(relay_ratios):6.2f}   "
              f"(the move's road with no game; median of {len(relay_ratios)} pairs, {relay_ratios[0]:.2f} to "
              f"{relay_ratios[-1]:.2f})")
        print(f"  ratio p99 move / relay through the worker   {statistics.median(over_relay):6.2f}   (median of "
              f"{len(over_relay)} pairs, {over_relay[0]:.2f} to {over_relay[-1]:.2f}); medians: move / echo "
              f"{statistics.median(latencies) / statistics.median(room_echo):.2f}, relay / echo "
              f"{statistics.median(relayed) / statistics.median(room_echo):.2f}")
    move_p99 = percentile(latencies, 0.99)
    print(f"  ratio p99 move / echo during games    {move_p99 / percentile(loaded, 0.99):6.2f}   "
          f"(idle echo: {move_p99 / percentile(echo, 0.99):.1f})")
    if TRACE:
        print_stages(TRACED)
        print_hand_over(TRACED)
        if RELAYS_TRACED:
            print("  the relay through the worker:")
            print_stages(RELAYS_TRACED)
            print_hand_over(RELAYS_TRACED)
            print_medians({"move": TRACED, "relay": RELAYS_TRACED})
        kept = ROOT / "var" / "bench" / "traced-moves.json"  # every move's stamps, to look at again
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text(json.dumps(TRACED))
        print(f"  every traced move's stamps: {kept.relative_to(ROOT)}")
    if PINGS:
        print(f"  the players' pings: {PONGS[0]} pongs received over the run's games phases")
    print(f"  errors: {', '.join(f'{code} {count}' for code, count in sorted(ERRORS.items())) or 'none'}")
    if REFUSALS:
        refused = sorted(REFUSALS.items())
        print(f"  refused, by request: {', '.join(f'{kind} {code} {count}' for (kind, code), count in refused)}")
    if STOOD_IN:
        print(f"  {len(STOOD_IN)} seats were played by a stand-in bot: {STAND_IN_ADVICE}")
    if SAMPLE:
        print_worker_stacks(server, pairs)
    return 0


def print_worker_stacks(server: Server, pairs: list[Pair]) -> None:
    """With --sample-worker: where the worker's CPU went in each games phase (its sampler's entries, one a
    phase, in order; the last, written as it stopped, is the time after)."""
    from bench.stacks_report import report

    lines = server.stacks_file.read_text().splitlines() if server.stacks_file.exists() else []
    for number, (pair, line) in enumerate(zip(pairs, lines), 1):
        print(f"\n  the worker's stacks, games of pair {number} (kept in {server.stacks_file.relative_to(ROOT)}):")
        report(json.loads(line), None, 15, None, pair.moves)


def print_probe(label, pair: Pair | None, now: dict, before: dict | None) -> None:
    """One line of what daphne holds (--probe), with the pair's CPU, and the types that grew most since."""
    layer = next(iter(now["layer"].values()), {})
    cpu = ""
    if pair is not None and pair.cpu:
        cpu = (f" | CPU a relay {pair.daphne_a_relay * 1000:.2f} ms, a move "
               f"{pair.cpu['daphne'] / pair.moves * 1000:.2f} ms daphne")
    print(f"  probe {label}: RSS {now['rss_kb'] / 1024:.1f} MB, objects {now['objects']} (gens "
          f"{'/'.join(map(str, now['generations']))}, frozen {now['frozen']}), tasks {now['tasks']}, timers "
          f"{now['timers']}, daphne connections {now['daphne_connections']}, layer channels {layer.get('channels')} "
          f"groups {layer.get('groups')} subscribed {layer.get('subscribed')} pubsub {layer.get('pubsub_channels')}"
          f"{cpu}" + (f", collected {now['collected']}" if now.get("collected") is not None else ""), flush=True)
    if before is not None:
        grown = sorted(((count - before["types"].get(name, 0), name) for name, count in now["types"].items()),
                       reverse=True)[:8]
        print("    grown: " + ", ".join(f"{name} {delta:+d}" for delta, name in grown if delta), flush=True)


# A move's stages in order: the client's send, daphne's consumer (sent), the push landing in Redis (landed,
# Redis's clock), the take that took it run by Redis (took, Redis's clock), its reply read by the worker's
# intake (replied), the intake handing it to its room (taken), a move
# thread (begun, claimed, locked: SQLite's writer lock, committed, steps: the after-commit lock, marked: the
# game's part of the position kept, then the publish), daphne handing the update to the last seat's consumer (received),
# and the last seat's client.
STAGES = ("client_sent", "sent", "landed", "took", "replied", "taken", "begun", "claimed", "locked", "committed",
          "steps", "marked", "received", "client")


def print_stages(traced: list[dict], above: float = 0.95) -> None:
    """Where the time went of the moves slower than the `above` percentile, next to all moves: the mean
    of each gap between consecutive stages a move went through (a move played under the room's lock is
    claimed after taking the writer's lock), so the gaps of one row add up to its mean latency."""
    def gaps(entry: dict) -> dict[str, float]:
        last_seat = max(entry["seats"], key=lambda seat: seat["client"])
        stamps = {"client_sent": entry["client_sent"], **{name: last_seat.get(name) for name in STAGES[1:-2]},
                  "received": max(seat["received"] for seat in entry["seats"]), "client": last_seat["client"]}
        ordered = sorted((at, name) for name, at in stamps.items() if at is not None)
        return {f"{a}>{b}": t_b - t_a for (t_a, a), (t_b, b) in zip(ordered, ordered[1:])}

    if not traced:
        print("  no traced moves")
        return
    tail, cut = _slowest(traced, above)
    everyone = traced
    columns = {}
    for label, entries in (("all", everyone), ("tail", tail)):
        summed: dict[str, float] = {}
        for entry in entries:
            for name, took in gaps(entry).items():
                summed[name] = summed.get(name, 0.0) + took
        columns[label] = {name: took / len(entries) for name, took in summed.items()}
    order = {name: index for index, name in enumerate(STAGES)}
    names = sorted(set(columns["all"]) | set(columns["tail"]),
                   key=lambda gap: (order[gap.split(">")[0]], order[gap.split(">")[1]]))
    print(f"  where the time went, mean ms a move: all {len(everyone)} moves | the {len(tail)} moves at or above "
          f"p{above * 100:g} ({cut * 1000:.1f} ms)")
    for name in names:
        all_ms, tail_ms = (columns[label].get(name, 0.0) * 1000 for label in ("all", "tail"))
        print(f"    {name:22} {all_ms:7.2f} | {tail_ms:7.2f}")


def print_medians(traced: dict[str, list[dict]]) -> None:
    """The median of each gap between consecutive stages, for each kind of request traced side by side (a median
    a gap: they do not add up to the median of the whole)."""
    names = ("client_sent", "sent", "landed", "took", "replied", "taken", "begun", "committed", "marked",
             "received", "client")
    columns = {}
    for label, entries in traced.items():
        gaps: dict[str, list[float]] = {}
        for entry in entries:
            last_seat = max(entry["seats"], key=lambda seat: seat["client"])
            stamps = {"client_sent": entry["client_sent"], **{name: last_seat.get(name) for name in names[1:-2]},
                      "received": max(seat["received"] for seat in entry["seats"]), "client": last_seat["client"]}
            present = [(name, stamps[name]) for name in names if stamps.get(name) is not None]
            for (a, t_a), (b, t_b) in zip(present, present[1:]):
                gaps.setdefault(f"{a}>{b}", []).append(t_b - t_a)
            total = last_seat["client"] - entry["client_sent"]
            gaps.setdefault("whole", []).append(total)
        columns[label] = {name: statistics.median(values) for name, values in gaps.items()}
    rows = list(dict.fromkeys(name for column in columns.values() for name in column))
    print("  median ms a stage: " + " | ".join(f"{label} ({len(traced[label])})" for label in columns))
    for name in rows:
        print(f"    {name:22} " + " | ".join(f"{column[name] * 1000:7.2f}" if name in column else "      -"
                                            for column in columns.values()))


def _slowest(traced: list[dict], above: float) -> tuple[list[dict], float]:
    """The moves at or above the `above` percentile of their whole latency (to the last seat's client), and
    that percentile."""
    totals = sorted(((max(seat["client"] for seat in entry["seats"]) - entry["client_sent"], entry)
                     for entry in traced), key=lambda pair: pair[0])
    cut = totals[int(len(totals) * above)][0]
    return [entry for total, entry in totals if total >= cut], cut


# What the worker's intake did while a request waited in the list, from the push's landing to the take
# that took it: the parts of that span each of its intervals covers (IntakeStamps in rooms/trace.py).
HAND_OVER = ("daphne: its stamp to the push landed", "list: left by the take before (no slot for it)",
             "list: the take before's reply, its hand-over",
             "list: the intake waiting for a free slot", "list: the intake's upkeep", "list: the take built",
             "list: the take on its way, or Redis busy", "list: the take sent already (the bell rang)",
             "the take's reply read by the intake", "the intake: parsed, handed to its room")


def hand_over_parts(stamps: dict) -> dict[str, float] | None:
    """A move's hand-over (daphne's `sent` to the intake's `taken`) in the parts of HAND_OVER, or None if
    it was not stamped so."""
    names = ("sent", "landed", "ready", "upkeep", "looked", "slot", "asked", "took", "replied", "taken")
    if any(stamps.get(name) is None for name in names):
        return None
    landed, took = stamps["landed"], stamps["took"]

    def within(start: float, end: float) -> float:  # the part of landed -> took in [start, end)
        return max(0.0, min(end, took) - max(start, landed))

    parts = dict.fromkeys(HAND_OVER, 0.0)
    parts[HAND_OVER[0]] = landed - stamps["sent"]
    prior = stamps.get("prior") or float("-inf")
    parts[HAND_OVER[1]] = within(float("-inf"), prior)  # in the list as the take before ran: it took others
    if stamps["asked"] <= max(landed, prior):
        parts[HAND_OVER[7]] = took - max(landed, prior)
    else:
        parts[HAND_OVER[2]] = within(prior, stamps["ready"])
        parts[HAND_OVER[3]] = within(stamps["ready"], stamps["upkeep"]) + within(stamps["looked"], stamps["slot"])
        parts[HAND_OVER[4]] = within(stamps["upkeep"], stamps["looked"])
        parts[HAND_OVER[5]] = within(stamps["slot"], stamps["asked"])
        parts[HAND_OVER[6]] = within(stamps["asked"], took)
    parts[HAND_OVER[8]] = stamps["replied"] - took
    parts[HAND_OVER[9]] = stamps["taken"] - stamps["replied"]
    return parts


def print_hand_over(traced: list[dict], tails: tuple[float, ...] = (0.95, 0.99)) -> None:
    """The hand-over split: where the moves waited between daphne's stamp and the worker's intake handing
    them to their rooms, all moves next to the slowest (as print_stages, at each of `tails`)."""
    if not traced:
        return
    if not any(hand_over_parts(entry["seats"][0]) for entry in traced):
        print("  the hand-over: no move carries its split (a server on code that does not stamp it)")
        return
    groups = [("all", traced)] + [(f"p{above * 100:g}", _slowest(traced, above)[0]) for above in tails]
    columns, counted = [], []
    for _label, entries in groups:
        stamped = [entry["seats"][0] for entry in entries]
        split = [parts for parts in map(hand_over_parts, stamped) if parts is not None]
        left = sum(1 for parts in split if parts[HAND_OVER[1]] > 0)
        counted.append(f"{left}/{len(split)}")
        columns.append({name: sum(parts[name] for parts in split) / max(1, len(split)) for name in HAND_OVER})
    print("  the hand-over, mean ms a move: " + " | ".join(f"{label} ({len(entries)})" for label, entries in groups)
          + " (the slowest moves by their whole latency)")
    for name in HAND_OVER:
        print(f"    {name:46} " + " | ".join(f"{column[name] * 1000:7.2f}" for column in columns))
    print(f"    {'moves left in the list by a take':46} " + " | ".join(counted))


if __name__ == "__main__":
    sys.exit(main())
