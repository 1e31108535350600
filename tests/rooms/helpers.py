"""Shared helpers for the rooms tests: rooms and games made through the services, polling with
generous deadlines, captured broadcasts, sockets that hold a seat, and worker processes."""

from __future__ import annotations

import contextlib
import copy
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection, transaction
from django.test import override_settings
from django.utils import timezone

from games import fairness, registry
from rooms import broadcast, identity, live, services
from rooms.models import Game, Move, Seat
from tests.support import subprocess_env

ROOT = Path(__file__).resolve().parents[2]
WAIT_SECONDS = 20.0  # generous: a slow machine waits longer, a fast one does not
POLL_SECONDS = 0.05
ORIGIN = b"http://testserver"
VIEW_KEYS = {
    "game", "seats", "round", "rounds", "shelves", "wax", "collected", "picked", "hand_sizes",
    "last_round", "finished", "ranking",
}
SEAT_VIEW_KEYS = VIEW_KEYS | {"seat", "hand", "my_pick"}


# --- waiting ------------------------------------------------------------------------------------

def wait_for(condition, *, what: str, timeout: float = WAIT_SECONDS):
    """Poll `condition` until it returns something true, and return that; fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(POLL_SECONDS)


# --- rooms and games through the services -------------------------------------------------------

def new_room(seats: int = 2, *, host: str = "Host", options: dict | None = None, user=None, game: str = "candles"):
    return services.create_room(game=game, seat_count=seats, options=options, host_name=host, user=user)


def room_with(humans: int, seats: int | None = None, *, options: dict | None = None, game: str = "candles"):
    """A room whose first `humans` seats are taken by people; returns (code, tickets by seat)."""
    host = new_room(seats or humans, options=options, game=game)
    tickets = [host]
    for number in range(1, humans):
        tickets.append(services.join_room(room_code=host.room_code, name=f"Player {number + 1}"))
    return host.room_code, tickets


def started_room(humans: int, seats: int | None = None, *, options: dict | None = None, game: str = "candles"):
    """A room with `humans` people (and bots in the other seats) whose first game is in play."""
    code, tickets = room_with(humans, seats, options=options, game=game)
    if latest_game(code).status == Game.Status.LOBBY:  # a game that starts when full has started already
        services.start_game(room_code=code, seat=0)
    return code, tickets, latest_game(code)


# Absent players keep their seats for an hour, so that only the table decides for them in these tests (the
# test settings hand a seat to a bot after 1 s, which a slow start of a worker can outlast). Workers started
# for such a test are told the same.
LONG_GRACE = {"WICKWISE_GRACE_SECONDS": "3600"}


def started_without_stand_ins(humans: int, seats: int | None = None):
    """A game in play with a 15 s countdown whose absent players get no stand-in bot."""
    long_grace = {**settings.WICKWISE, "GRACE_SECONDS": float(LONG_GRACE["WICKWISE_GRACE_SECONDS"])}
    with override_settings(WICKWISE=long_grace):
        return started_room(humans, seats, options={"round_seconds": 15})


def latest_game(code: str) -> Game:
    return Game.objects.filter(room_code=code).order_by("-number").first()


def game_in_play(code: str) -> Game:
    """The latest game that has started (the one after it may wait in the lobby)."""
    return Game.objects.filter(room_code=code).exclude(status=Game.Status.LOBBY).order_by("-number").first()


def lowest_candle(game: str, view: dict, level: str) -> dict:
    """A bot that thinks no time at all: for tests that only need legal moves."""
    return {"type": "play", "candle": min(view["hand"])}


def candle_for(game: Game, seat: int) -> dict:
    return {"type": "play", "candle": game.state["hands"][seat][0]}


def play_pending(code: str, *, seats=None) -> int:
    """Every pending seat of the game in play (or only `seats`) plays its lowest candle as a player."""
    game = game_in_play(code)
    pending = list(registry.get(game.game).engine.to_act(game.state)) if game.status == Game.Status.PLAYING else []
    played = 0
    for seat in pending:
        if seats is not None and seat not in seats:
            continue
        game.refresh_from_db()
        if game.status != Game.Status.PLAYING:
            break
        services.submit_move(room_code=code, seat=seat, seq=game.seq, action=candle_for(game, seat))
        played += 1
    return played


def play_to_end(code: str) -> Game:
    """Play the game in play to its end through submit_move; returns it finished."""
    for _ in range(200):
        game = game_in_play(code)
        if game.is_over:
            return game
        play_pending(code)
    raise AssertionError("the game did not end")


def what_moves_change(code: str) -> dict:
    """Everything a refused move must leave alone, to compare before and after."""
    games = Game.objects.filter(room_code=code).order_by("number")
    return {
        "games": [
            (g.number, g.status, copy.deepcopy(g.state), g.seq, dict(g.prompts), g.deadline_at, g.deadline_seq,
             g.paused_remaining, g.result, dict(g.client_seeds))
            for g in games
        ],
        "moves": list(Move.objects.filter(game__room_code=code).order_by("game__number", "seq")
                      .values_list("game__number", "seq", "seat", "action", "by")),
        "seats": list(Seat.objects.filter(room__code=code).order_by("index")
                      .values_list("index", "name", "is_bot", "stand_in", "return_code_hash")),
    }


def bring_deadline_forward(game: Game, *, at=None) -> None:
    """Move the game's countdown to now (or `at`), in the database and in the Redis index."""
    at = at or timezone.now()
    game.refresh_from_db()
    assert game.deadline_seq is not None, "the game has no countdown"
    Game.objects.filter(pk=game.pk).update(deadline_at=at)
    live.schedule(f"turn:{game.pk}:{game.deadline_seq}", at.timestamp())
    game.refresh_from_db()


def state_at(game: Game, seq: int) -> dict:
    """Replay the move log from the (revealed) seed up to `seq`: the state the game had then."""
    engine = registry.get(game.game).engine
    rng = fairness.Rng(game.seed, fairness.mix_string(
        game=game.game, room_code=game.room_code, number=game.number, client_seeds=game.client_seed_list()))
    state = engine.setup(len(game.players), game.options, rng)
    for move in game.moves.filter(seq__lte=seq).order_by("seq"):
        state, _events = engine.apply(state, move.seat, move.action, rng)
    return state


def socket_on(code: str, channel: str):
    """A room socket's consumer with no connection, for calling its database-thread steps directly."""
    from rooms.consumers import RoomConsumer

    consumer = RoomConsumer()
    consumer.room_code, consumer.channel_name = code, channel
    return consumer


# --- Redis ----------------------------------------------------------------------------------------

def timers() -> dict[str, float]:
    return dict(live.client().zrange(live.key(live.TIMERS), 0, -1, withscores=True))


def expiry_index() -> dict[str, float]:
    return dict(live.client().zrange(live.key(live.EXPIRY), 0, -1, withscores=True))


@contextlib.contextmanager
def game_row_held(game_pk: int, *, for_seconds: float):
    """Another writer, in no hurry, holds the game's row (a thread on a connection of its own) from entering
    this until `for_seconds` later."""
    held, release = threading.Event(), threading.Event()

    def hold_the_game():
        try:
            with transaction.atomic():
                Game.objects.select_for_update().get(pk=game_pk)
                held.set()
                release.wait(5)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_game)
    holder.start()
    assert held.wait(5)
    timer = threading.Timer(for_seconds, release.set)
    timer.start()
    try:
        yield
    finally:
        holder.join()
        timer.cancel()


# --- what was broadcast ---------------------------------------------------------------------------

@contextlib.contextmanager
def captured_broadcasts(*, in_transaction: list[bool] | None = None):
    """Record every (group, message) sent to the channel layer, and still send it. With a list for
    in_transaction, also whether each was sent inside a transaction (an update sent before the commit could
    show what the commit has not yet made true)."""
    sent: list[tuple[str, dict]] = []
    send = broadcast._send

    def record(group, message):
        sent.append((group, json.loads(json.dumps(message))))
        if in_transaction is not None:
            in_transaction.append(connection.in_atomic_block)
        send(group, message)

    with mock.patch.object(broadcast, "_send", record):
        yield sent


def countdown_after_the_last_reveal(game) -> float:
    """A candles round's countdown: its timer, with the time the table takes to tell the reveal before it."""
    placed = [{"type": "place", **placement} for placement in game.state["last_round"]]
    return registry.get("candles").countdown_seconds(game.options, placed)


def game_updates(sent: list[tuple[str, dict]]) -> list[dict]:
    """Each game.update sent, with its seq and the public game (as every seat receives them)."""
    updates = []
    for _group, message in sent:
        if message["type"] == "game.update":
            watcher = json.loads(broadcast.stamped(broadcast.text_for_seat(message, None), 0.0))
            updates.append({**message, "game": watcher["game"]})
    return updates


def room_updates(sent: list[tuple[str, dict]]) -> list[dict]:
    return [message["room"] for _group, message in sent if message["type"] == "room.update"]


def received_by(message: dict, seat: int | None) -> tuple[dict | None, list[dict]]:
    """The view and events a seat's socket forwards from one game.update (spectators: seat None)."""
    update = json.loads(broadcast.stamped(broadcast.text_for_seat(message, seat), 0.0))
    return update["view"], update["events"]


# --- sockets --------------------------------------------------------------------------------------

def session_cookie(ticket) -> bytes:
    """A browser session that holds the ticket's seat, as the lobby pages leave it."""
    seat = Seat.objects.select_related("room").get(room__code=ticket.room_code, index=ticket.seat)
    session = SessionStore()
    identity.remember_seat(session, seat, ticket.return_code)
    session.save()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}".encode()


async def cookie_for(ticket) -> bytes:
    return await database_sync_to_async(session_cookie)(ticket)


async def open_socket(code: str, *, cookie: bytes | None = None, origin: bytes | None = ORIGIN, application=None):
    """A connected socket on the room (with the session `cookie`, if any) and its first snapshot."""
    if application is None:
        from config.asgi import application
    headers = [(b"host", b"testserver")] + ([(b"origin", origin)] if origin else [])
    if cookie:
        headers.append((b"cookie", cookie))
    socket = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=headers)
    connected, close_code = await socket.connect(timeout=WAIT_SECONDS)
    assert connected, f"the socket was refused ({close_code})"
    snapshot = await socket.receive_json_from(timeout=WAIT_SECONDS)
    assert snapshot["type"] == "snapshot", snapshot
    return socket, snapshot


async def receive(socket, *, timeout: float = WAIT_SECONDS) -> dict:
    return await socket.receive_json_from(timeout=timeout)


async def receive_until(socket, match, *, what: str, timeout: float = WAIT_SECONDS) -> tuple[dict, list[dict]]:
    """Read messages until one matches; returns it and the ones read before it."""
    skipped = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"gave up waiting for {what}; got {skipped}")
        message = await socket.receive_json_from(timeout=left)
        if match(message):
            return message, skipped
        skipped.append(message)


def is_update(seq: int | None = None):
    return lambda m: m["type"] == "update" and (seq is None or m["seq"] == seq)


def is_type(kind: str):
    return lambda m: m["type"] == kind


@pytest.fixture
def fresh_channel_layer():
    """The channel layer keeps receive state tied to an event loop: a fresh one for every test."""
    reset_channel_layer()
    yield
    reset_channel_layer()


def reset_channel_layer() -> None:
    """Forget the channel layer: it keeps receive state bound to the event loop it first ran in, and each
    async test runs in a loop of its own (a consumer left waiting in one test broke the next one)."""
    channel_layers.backends.clear()


async def close_all(*sockets) -> None:
    for socket in sockets:
        with contextlib.suppress(Exception):
            await socket.disconnect(timeout=WAIT_SECONDS)


# --- worker processes -----------------------------------------------------------------------------

class Workers:
    """`manage.py worker` in other processes, on the test database and this suite's Redis prefix."""

    def __init__(self):
        self.env = subprocess_env(LOG_LEVEL="INFO")
        self.logs = ROOT / "var" / "test-logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.running: list[tuple[subprocess.Popen, Path]] = []

    def _command(self, *extra: str) -> list[str]:
        return [sys.executable, "manage.py", "worker", *extra]

    def start(self, *args: str, **env: str) -> subprocess.Popen:
        """A worker (`args`: its command's options) that runs until stopped; returns once it has rebuilt the index
        and polls."""
        log_path = self.logs / f"worker-{time.time_ns()}.log"
        with open(log_path, "w") as log:
            process = subprocess.Popen(self._command(*args), cwd=ROOT, env={**self.env, **env},
                                       stdout=log, stderr=subprocess.STDOUT)
        self.running.append((process, log_path))

        def ready():
            if process.poll() is not None:
                raise AssertionError(f"the worker exited early:\n{log_path.read_text()}")
            return "worker started" in log_path.read_text()

        wait_for(ready, what="the worker to start")
        return process

    def stop(self, process: subprocess.Popen) -> None:
        """SIGTERM: the worker finishes what it has claimed, then exits (so this is a barrier too)."""
        process.terminate()
        try:
            process.wait(timeout=WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise AssertionError("the worker did not stop on SIGTERM") from None
        finally:
            self.running = [(p, path) for p, path in self.running if p is not process]

    def run_once(self, **env: str) -> str:
        """`worker --once`: rebuild the index, handle what is due now, wait for it, exit."""
        result = subprocess.run(self._command("--once"), cwd=ROOT, env={**self.env, **env},
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "Traceback" not in result.stderr, result.stderr
        return result.stderr

    def stop_all(self) -> None:
        for process, _path in list(self.running):
            self.stop(process)

    def log_text(self) -> str:
        return "\n".join(path.read_text() for _process, path in self.running)


def remembered_writes_while(play) -> list[tuple[bool, bool]]:
    """Each remembered write (services._written_where_version) tried while `play()` ran, on either database:
    whether the seats a bot plays were unknown to it (it posed a decision, and the game in memory did not know
    them: read in its pipeline on PostgreSQL, after its commit on SQLite), and whether it wrote."""
    tries: list[tuple[bool, bool]] = []
    write = services._written_where_version

    def counted(game, moves, read_version, steps, last_looks=(), *, bots=()):
        unknown = any(each.covered is None for each in bots)
        written, cut_by = write(game, moves, read_version, steps, last_looks, bots=bots)
        tries.append((unknown, bool(written)))
        return written, cut_by

    with mock.patch.object(services, "_written_where_version", counted):
        play()
    return tries
