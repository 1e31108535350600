"""The live-play benchmark's baselines: bare Channels consumers on the real Redis channel layer, and the relay
through the worker (the move's road with no game), mounted only with the benchmark's setting."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import pytest
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.core.management import call_command

from bench import echo
from rooms import broadcast, live, move_queue
from tests.rooms.helpers import WAIT_SECONDS, fresh_channel_layer, wait_for  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parent.parent.parent

pytestmark = pytest.mark.usefixtures("fresh_channel_layer")
application = URLRouter(echo.websocket_urlpatterns)  # as rooms/routing.py mounts them for the benchmark


async def connected(path: str) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, path)
    accepted, _ = await socket.connect(timeout=WAIT_SECONDS)
    assert accepted
    return socket


async def test_the_echo_answers_its_own_socket():
    socket = await connected("/ws/echo/")
    await socket.send_to(text_data='{"n":1}')
    assert await socket.receive_from(timeout=WAIT_SECONDS) == '{"n":1}'
    await socket.disconnect()


async def test_the_room_echo_reaches_every_socket_of_its_room_and_no_other():
    room = [await connected("/ws/echo/r1/") for _ in range(4)]
    elsewhere = await connected("/ws/echo/r2/")
    await room[2].send_to(text_data=json.dumps({"round": 0, "seat": 2}))
    for socket in room:
        assert json.loads(await socket.receive_from(timeout=WAIT_SECONDS)) == {"round": 0, "seat": 2}
    await asyncio.sleep(0.2)  # time enough for a stray copy to arrive
    assert await elsewhere.receive_nothing(timeout=0.1)
    for socket in [*room, elsewhere]:
        await socket.disconnect()


async def test_the_room_echo_answers_a_pages_ping_on_its_own_socket_alone():
    room = [await connected("/ws/echo/r1/") for _ in range(2)]
    await room[0].send_to(text_data=echo.PING)  # as the room page sends it (live_load --pings)
    assert json.loads(await room[0].receive_from(timeout=WAIT_SECONDS)) == {"type": "pong", "position": None}
    await asyncio.sleep(0.2)
    assert await room[1].receive_nothing(timeout=0.1)
    for socket in room:
        await socket.disconnect()


# --- the relay through the worker: the move's road with no game -------------------------------------------


@pytest.fixture
def relay_mounted(monkeypatch):
    """As the benchmark's setting has it (rooms/routing.py, the worker command): the worker plays the relay."""
    monkeypatch.setitem(move_queue.BENCH_KINDS, echo.RELAY, echo.play_relay)


@pytest.fixture
def worker(moves_played):
    """The worker's move threads, in this process (tests/conftest.py's `moves_played`)."""
    return moves_played


@pytest.mark.usefixtures("relay_mounted")
async def test_a_relayed_message_reaches_every_socket_of_its_room_through_the_worker(worker):
    room = [await connected("/ws/relay/r1/") for _ in range(4)]
    elsewhere = await connected("/ws/relay/r2/")
    published, sent_for_later = [], []
    real_publish, real_send = broadcast._sync_sender._publish, live._send_for_later

    def send_for_later(pipe, rider):
        sent_for_later.append(([args[0] for args, _options in pipe.command_stack], rider is not None))
        return real_send(pipe, rider)

    with mock.patch.object(broadcast._sync_sender, "_publish",
                           side_effect=lambda name, message: (published.append(name), real_publish(name, message))), \
            mock.patch.object(live, "_send_for_later", side_effect=send_for_later):
        for round_ in range(2):
            await room[1].send_to(text_data=json.dumps({"round": round_, "seat": 1}))
            for socket in room:
                assert json.loads(await socket.receive_from(timeout=WAIT_SECONDS)) == {"round": round_, "seat": 1}
    # Published by the worker's move thread as a move's update is: one round trip, its replies read later, with the
    # request's clearing from the worker's list riding on it.
    assert [name.endswith("__group__relay.r1") for name in published] == [True, True]
    assert sent_for_later == [(["PUBLISH", "LREM"], True)] * 2
    wait_for(lambda: live.client().llen(worker.taken_key) == 0, what="the worker's list cleared")
    await asyncio.sleep(0.2)  # time enough for a stray copy to arrive
    assert await elsewhere.receive_nothing(timeout=0.1)
    for socket in [*room, elsewhere]:
        await socket.disconnect()


async def test_a_worker_without_the_benchmarks_setting_drops_a_relay_and_tells_its_socket_at_once(worker, caplog,
                                                                                                   monkeypatch):
    """A site's worker never relays: the kind is not registered, and a request of it (which no socket of the site
    can hand over) is dropped and cleared from its list, its socket told at once with the refusal a request past
    its deadline gets (its player does not wait the deadline out), and its room's next request still played."""
    assert echo.RELAY not in move_queue.BENCH_KINDS
    room = [await connected("/ws/relay/r3/") for _ in range(2)]
    with pytest.raises(ValueError, match="no such request kind"):  # daphne cannot hand one over either
        await move_queue.hand_over(kind=echo.RELAY, room_code="r3", seat=0, mover="x#1", reply_to="x",
                                   language="en", action="{}")
    played, real_play = [], move_queue.play

    def play(payload, **options):  # the site's kinds recorded, not played (the room has no game)
        if payload["kind"] in move_queue.KINDS:
            played.append(payload["mover"])
        else:
            real_play(payload, **options)

    monkeypatch.setattr(move_queue, "play", play)
    layer = get_channel_layer()
    reply_to = await layer.new_channel()
    now = time.time()
    payload = {"kind": echo.RELAY, "room": "r3", "seat": 0, "seq": None, "action": '{"n":1}', "mover": "x#1",
               "reply_to": reply_to, "language": "pt-br", "ref": "r 1", "sent_at": now, "deadline": now + 5}
    lane = live.key(move_queue.QUEUE)
    live.client().rpush(lane, json.dumps(payload))
    live.client().rpush(lane + ":bell", 1)
    await move_queue.hand_over(kind="move", room_code="r3", seat=0, mover="x#2", seq=1, reply_to=reply_to,
                               language="en", action={"type": "play"})
    refusal = await asyncio.wait_for(layer.receive(reply_to), timeout=WAIT_SECONDS)
    assert time.time() < now + 2  # told at once, well before its deadline
    assert {key: refusal[key] for key in ("type", "mover", "code", "ref")} == {
        "type": "request.refused", "mover": "x#1", "code": "move_unanswered", "ref": "r 1"}
    assert refusal["message"].startswith("O servidor não respondeu")  # in its player's language
    assert live.client().get(move_queue._answer_key("x#1")) == "told"  # its socket's own deadline tells nothing
    assert "request of unknown kind 'relay'" in caplog.text
    wait_for(lambda: played == ["x#2"], what="the room's next request played")
    wait_for(lambda: live.client().llen(worker.taken_key) == 0, what="the worker's list cleared")
    for socket in room:
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()


def test_the_benchmarks_kinds_are_mounted_only_with_its_setting(monkeypatch):
    """The one decision rooms/routing.py and the worker command take (move_queue.mount_bench_kinds): without
    the benchmark's setting, a site's worker registers no kind; with it, the relay."""
    monkeypatch.setattr(move_queue, "BENCH_KINDS", {})
    monkeypatch.delenv("WICKWISE_BENCH_ECHO", raising=False)
    assert move_queue.mount_bench_kinds() is False
    monkeypatch.setenv("WICKWISE_BENCH_ECHO", "0")
    assert move_queue.mount_bench_kinds() is False
    assert move_queue.BENCH_KINDS == {}
    monkeypatch.setenv("WICKWISE_BENCH_ECHO", "1")
    assert move_queue.mount_bench_kinds() is True
    assert list(move_queue.BENCH_KINDS.items()) == [(echo.RELAY, echo.play_relay)]


def test_the_worker_command_takes_that_decision(monkeypatch):
    """The worker command mounts by move_queue.mount_bench_kinds before it plays anything (stopped right there)."""

    class Mounted(Exception):
        pass

    def mounted():
        raise Mounted

    monkeypatch.setattr(move_queue, "mount_bench_kinds", mounted)
    with pytest.raises(Mounted):
        call_command("worker", "--once")


def test_the_relay_is_not_mounted_on_the_site():
    """Without the benchmark's setting, the site's sockets have no relay and its worker plays none."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    env.pop("WICKWISE_BENCH_ECHO", None)
    check = ("import config.asgi\n"
             "from rooms import move_queue, routing\n"
             "print(sorted(str(p.pattern) for p in routing.websocket_urlpatterns), move_queue.BENCH_KINDS)\n")
    done = subprocess.run([sys.executable, "-c", check], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['^ws/rooms/(?P<code>[A-Za-z0-9]{6})/$'] {}"
    with_bench = subprocess.run([sys.executable, "-c", check], cwd=ROOT, env={**env, "WICKWISE_BENCH_ECHO": "1"},
                                capture_output=True, text=True, timeout=60)
    assert "ws/relay/" in with_bench.stdout and "'relay': <function play_relay" in with_bench.stdout
