"""The live-play benchmark's own bookkeeping: a phase starts only once the server is done with the one
before, and a pair has the relay through the worker only when asked."""

from __future__ import annotations

import asyncio
import json
import time
from types import SimpleNamespace

import pytest

from bench import live_load


def test_a_phase_waits_until_daphne_and_the_worker_are_both_quiet(monkeypatch):
    """daphne busy with the sockets that left, then the worker with their grace periods: the wait ends only
    once neither is, and returns daphne's CPU meanwhile."""
    readings = iter([{"daphne": 0.0, "worker": 0.0}, {"daphne": 0.3, "worker": 0.0},
                     {"daphne": 0.31, "worker": 0.2}, {"daphne": 0.32, "worker": 0.21}])
    server = live_load.Server.__new__(live_load.Server)  # no processes: their CPU is read from `readings`
    server.cpu_seconds = lambda: next(readings)
    monkeypatch.setattr(live_load, "time", SimpleNamespace(sleep=lambda seconds: None, monotonic=time.monotonic))
    assert server.settle() == pytest.approx(0.32)


def test_without_proc_the_wait_is_skipped():
    server = live_load.Server.__new__(live_load.Server)
    server.cpu_seconds = dict
    assert server.settle() == 0.0


@pytest.mark.parametrize(("argv", "paths"), [([], ["echo"]), (["--relay"], ["echo", "relay"])])
def test_a_pair_runs_the_relay_through_the_worker_only_when_asked(monkeypatch, argv, paths):
    """Without --relay a pair runs the phases it ran before the relay was added (the echo to every seat, then
    the games), so the target's commands measure what they measured; with it, the relay between them."""
    args = live_load.arguments().parse_args(["--clients", "8", *argv])
    ran = []

    async def room_echo_phase(server, clients, rounds, think, watch=None, path="echo"):
        ran.append(path)
        return [0.001] * clients, 1.0

    async def game_phase(*_args):
        ran.append("games")
        return [0.002] * 8, 8, 1.0, [0.001], {"daphne": 0.0, "worker": 0.0}

    monkeypatch.setattr(live_load, "room_echo_phase", room_echo_phase)
    monkeypatch.setattr(live_load, "game_phase", game_phase)
    server = SimpleNamespace(cpu_seconds=lambda: {"daphne": 0.0, "worker": 0.0}, settle=lambda after=0.0: 0.0)
    pair = live_load.run_pair(server, args)
    assert ran == [*paths, "games"]
    assert (pair.relay is not None) == ("--relay" in argv)
    assert (pair.relay_line() != "") == ("--relay" in argv)


@pytest.mark.parametrize(("move_threads", "flag", "said"), [
    (None, [], "1 move threads, the worker's default"),
    (2, ["--move-threads", "2"], "2 move threads, --move-threads"),
    (0, ["--move-threads", "0"], "no move threads, the intake plays them, --move-threads"),
])
def test_the_worker_is_told_its_move_threads_only_when_they_are_given(monkeypatch, move_threads, flag, said):
    """Without --move-threads the worker picks its own (by database), and the run says which it used, as the
    worker logged it."""
    commands = []

    class Process:
        def __init__(self, command, **_kwargs):
            commands.append(command)

    monkeypatch.setattr(live_load.subprocess, "run", lambda *args, **kwargs: None)
    monkeypatch.setattr(live_load.subprocess, "Popen", Process)
    monkeypatch.setattr(live_load.Server, "wait_listening", lambda self: None)
    server = live_load.Server("redis://127.0.0.1:1/0", move_threads=move_threads, label="test-move-threads")
    try:
        worker = next(command for command in commands if "worker" in command)
        assert worker[worker.index("worker") + 1:] == flag
        logged = 1 if move_threads is None else move_threads
        server.logs.write(f"INFO playing moves in {logged} threads, at most 1 of them on starts\n")
        server.logs.flush()
        assert server.move_threads() == said
    finally:
        server.logs.close()
        live_load.shutil.rmtree(server.log_path.parent, ignore_errors=True)


def test_a_database_s_settings_reach_its_server_alone(monkeypatch):
    """In one run of several databases, SQLite flushed at every commit is SQLite with SQLITE_SYNCHRONOUS=full
    in its server's environment; the others' are as given."""
    monkeypatch.setattr(live_load.subprocess, "run", lambda *args, **kwargs: None)
    monkeypatch.setattr(live_load.subprocess, "Popen", lambda command, **kwargs: None)
    monkeypatch.setattr(live_load.Server, "wait_listening", lambda self: None)
    monkeypatch.delenv("SQLITE_SYNCHRONOUS", raising=False)
    servers = {name: live_load.Server("redis://127.0.0.1:1/0", move_threads=None, label=f"test-{name}",
                                      env=live_load.DATABASE_SETTINGS.get(name))
               for name in ("sqlite", "sqlite-full")}
    try:
        assert servers["sqlite-full"].env["SQLITE_SYNCHRONOUS"] == "full"
        assert "SQLITE_SYNCHRONOUS" not in servers["sqlite"].env
        assert set(live_load.DATABASE_SETTINGS) <= set(live_load.DATABASE_NAMES)
    finally:
        for server in servers.values():
            server.logs.close()
            live_load.shutil.rmtree(server.log_path.parent, ignore_errors=True)


def _compared(database: str, move_p99: float) -> live_load.ComparedPair:
    pair = live_load.Pair(room_echo=[0.01] * 100, room_echo_rate=1.0, room_echo_cpu={}, latencies=[move_p99] * 100,
                          moves=100, elapsed=1.0, loaded_echo=[], cpu={})
    return live_load.ComparedPair(database, pair, {}, "00:00:00", {})


def test_postgresql_is_set_against_sqlite_and_against_sqlite_that_flushes_as_it_does(capsys):
    args = live_load.arguments().parse_args(["--clients", "8", "--think", "3", "--pairs", "1"])
    results = [_compared("sqlite", 0.02), _compared("sqlite-full", 0.03), _compared("postgresql", 0.036)]
    live_load._print_comparison(["sqlite", "sqlite-full", "postgresql"], results, args,
                                {name: "1 move threads" for name in ("sqlite", "sqlite-full", "postgresql")})
    printed = capsys.readouterr().out
    assert "ratio of ratios SQLite+flush / SQLite: 1.50\n" in printed
    assert "ratio of ratios PostgreSQL / SQLite: 1.80   (target <= 1.25)" in printed
    assert "ratio of ratios PostgreSQL / SQLite+flush: 1.20" in printed


def test_with_pings_a_socket_pings_every_15_s_the_first_at_a_random_moment(monkeypatch):
    slept: list = []
    sent: list[str] = []

    async def sleep(seconds):
        slept.append(seconds)

    class Socket:
        async def send(self, text):
            sent.append(text)
            if len(sent) == 3:
                raise ConnectionError("closed")  # as a socket closed at the end of the phase: the loop ends

    monkeypatch.setattr(live_load, "asyncio", SimpleNamespace(sleep=sleep))
    monkeypatch.setattr(live_load.random, "uniform", lambda low, high: ("uniform", low, high))
    with pytest.raises(ConnectionError):
        asyncio.run(live_load.pinged(Socket()))
    assert slept == [("uniform", 0, live_load.PING_EVERY), live_load.PING_EVERY, live_load.PING_EVERY]
    assert sent == [live_load.PING_FRAME] * 3 and live_load.PING_EVERY == 15.0
    assert live_load.arguments().parse_args(["--pings"]).pings


def test_the_ping_is_the_one_the_room_echo_answers():
    from bench import echo

    assert live_load.PING_FRAME == echo.PING


def test_a_seat_a_stand_in_took_is_counted_once_as_an_error(monkeypatch):
    """A seat whose socket the site lost goes to a bot after its grace period: the run says so rather than time a
    bot's turns as play."""
    monkeypatch.setattr(live_load, "ERRORS", {})
    monkeypatch.setattr(live_load, "STOOD_IN", set())
    room = live_load.Room(SimpleNamespace(), games=1, stage=None, think=0.0)
    room.code = "ABCDEF"
    seats = [{"index": 0, "stand_in": False}, {"index": 1, "stand_in": True}]
    for _ in range(2):
        room._note_stand_ins({"seats": seats})
    room._note_stand_ins(None)  # a message with no room
    assert live_load.ERRORS == {"stood_in": 1}
    assert sorted(live_load.STOOD_IN) == [("ABCDEF", 1)]


class _Socket:
    """The messages a seat receives, then the socket closed; what it sends is kept."""

    def __init__(self, messages: list[dict]):
        self.messages = [json.dumps(message) for message in messages]
        self.sent: list[str] = []

    def __aiter__(self):
        return self._each()

    async def _each(self):
        for raw in self.messages:
            await asyncio.sleep(0)
            yield raw

    async def send(self, text: str):
        self.sent.append(text)


def test_a_move_still_being_thought_about_when_the_last_game_ends_is_never_sent(monkeypatch):
    """As when a stand-in's turn ended the game: the thinking task goes with the seat's play, rather than send on
    a socket closed meanwhile."""
    game = {"number": 1, "status": "playing", "to_act": [0]}
    view = {"round": 0, "hand": [3, 5], "my_pick": None}
    socket = _Socket([{"type": "update", "seq": 4, "game": game, "view": view, "events": []},
                      {"type": "update", "seq": 5, "game": {**game, "status": "finished", "to_act": []},
                       "view": view, "events": []}])
    monkeypatch.setattr(live_load.random, "uniform", lambda low, high: 60.0)  # thinks for a minute
    room = live_load.Room(SimpleNamespace(), games=1, stage=None, think=3.0)
    room.code = "ABCDEF"

    thinking: list[asyncio.Task] = []

    async def play():
        play = asyncio.create_task(room._play(socket, 0))
        while not thinking:  # the move being thought about, once the first update has been read
            await asyncio.sleep(0)
            thinking.extend(task for task in asyncio.all_tasks() if "_move_later" in repr(task.get_coro()))
        await play
        await asyncio.sleep(0)  # a cancelled task's last step
        return thinking[0].cancelled()  # before asyncio.run cancels whatever is left

    assert asyncio.run(play())
    assert socket.sent == []


def test_bots_take_seats_of_each_room_and_the_players_alone_are_measured(monkeypatch):
    """--bots is read before the server starts (as --trace is), and a room then holds that many players'
    sockets fewer; a room cannot be all bots."""
    assert live_load.arguments().parse_args(["--bots", "2"]).bots == 2
    with pytest.raises(SystemExit):
        live_load.arguments().parse_args(["--bots", "4"])
    monkeypatch.setattr(live_load, "HUMANS", 2)
    args = live_load.arguments().parse_args(["--clients", "200", "--bots", "2"])
    assert live_load.rooms_of(args) == "100 rooms of 2 players and 2 bots"
    room = live_load.Room(SimpleNamespace(), games=1, stage=None, think=0.0)
    room.sent = {(1, 0, 0): 0.0, (1, 1, 0): 0.0}
    room.seen = {(1, 0, 0): [0.003, 0.005], (1, 1, 0): [0.004]}  # the second not yet seen by both players
    assert room.latencies() == [0.005]
