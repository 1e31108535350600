"""Redis failing: every step after a commit runs even when another fails; the worker puts the timers back
as soon as Redis returns; requests are answered `busy` (503) and sockets stay open and recover by
themselves. The live tests kill a Redis of their own (kill -9) and start it again, empty."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from unittest import mock

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from websockets.asyncio.client import connect

from rooms import broadcast, live, services
from rooms.models import Game
from scripts.localredis import KillableRedis
from tests.rooms.helpers import (
    LONG_GRACE,
    Workers,
    room_with,
    started_without_stand_ins,
    timers,
    wait_for,
)
from tests.support import flush_suite_redis

pytestmark = [pytest.mark.django_db(transaction=True)]


def refuse(*args, **kwargs):
    raise RedisConnectionError("Redis is down")


def test_each_step_after_a_commit_runs_when_another_fails():
    code, _tickets = room_with(1, 3)
    with mock.patch.object(broadcast._sync_sender, "send", refuse), mock.patch.object(live, "replace", refuse):
        game = services.start_game(room_code=code, seat=0)  # its broadcasts and its countdown fail
    scheduled = timers()
    assert {f"bot:{game.pk}:1:0", f"bot:{game.pk}:2:0"} <= set(scheduled)  # the bots' turns still set
    assert f"grace:{code}:0" in scheduled  # and the absent host's grace period
    assert Game.objects.get(pk=game.pk).status == Game.Status.PLAYING


@pytest.mark.live
def test_the_worker_puts_the_timers_back_as_soon_as_redis_returns_empty():
    # No stand-ins: a grace period that ran out before the flush would let bots play on, and the countdown
    # the test waits for would be another one.
    code, _tickets, game = started_without_stand_ins(2)
    countdown = f"turn:{game.pk}:0"
    workers = Workers()
    try:
        workers.start(**LONG_GRACE)
        assert countdown in timers()
        flush_suite_redis()  # Redis restarted with nothing in it
        wait_for(lambda: countdown in timers(), what="the countdown back in the index", timeout=3.0)
    finally:
        workers.stop_all()


# --- a live site on a Redis that dies -------------------------------------------------------------

def http(method: str, url: str, body: dict | None = None) -> tuple[int, dict | str]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


@pytest.fixture
def own_redis():
    server = KillableRedis().start()
    yield server
    server.stop()


def seq_of(code: str) -> int:
    return Game.objects.filter(room_code=code).order_by("-number").values_list("seq", flat=True).first()


@pytest.mark.live
def test_a_redis_outage_gets_busy_answers_and_every_game_moves_again_once_it_is_back(live_site_factory, own_redis):
    site = live_site_factory(env={"REDIS_URL": own_redis.url, "WICKWISE_BOT_DELAY_SECONDS": "1.0",
                                  "WICKWISE_GRACE_SECONDS": "0.3"})
    status, host = http("POST", site.url + "/api/rooms/", {"game": "candles", "seats": 3, "name": "Ana"})
    assert status == 201
    code = host["room"]
    closes: list = []

    async def scenario():
        async with connect(site.ws_url + host["socket"], origin=site.url) as seat_socket:
            await seat_socket.send(json.dumps({"type": "auth", "return_code": host["return_code"]}))
            await seat_socket.send(json.dumps({"type": "start"}))
            while json.loads(await seat_socket.recv()).get("type") != "update":
                pass
        # The host leaves: a bot covers the seat, and the game plays itself. A spectator watches.
        async with connect(site.ws_url + host["socket"], origin=site.url) as watcher:
            await asyncio.to_thread(wait_for, lambda: seq_of(code) >= 2, what="the game under way")
            own_redis.kill()
            await asyncio.sleep(1.0)
            status, answer = await asyncio.to_thread(http, "GET", f"{site.url}/api/rooms/{code}/")
            assert status == 503 and answer["error"]["code"] == "busy", (status, answer)
            page_status, _page = await asyncio.to_thread(http, "GET", f"{site.url}/r/{code}/")
            assert page_status in (200, 503)
            await watcher.send(json.dumps({"type": "ping"}))
            busy = await next_of(watcher, lambda m: m["type"] in ("error", "pong"))
            assert busy.get("code") == "busy" or busy["type"] == "pong", busy
            stood = seq_of(code)
            own_redis.start()
            back = time.monotonic()
            await asyncio.to_thread(wait_for, lambda: seq_of(code) > stood, what="the game moving again",
                                    timeout=4.0)
            moved_after = time.monotonic() - back
            # The same socket, never closed, sees the game again: by an update, or by its pong's position.
            update = await next_of(watcher, lambda m: m["type"] == "update" and m["seq"] > stood, timeout=20)
            assert update["seq"] > stood
            closes.append(watcher.close_code)
        return moved_after

    moved_after = asyncio.run(scenario())
    assert moved_after < 4.0 and closes == [None]  # the spectator's socket was never closed


async def next_of(socket, match, *, timeout: float = 10.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError("gave up waiting for a message")
        message = json.loads(await asyncio.wait_for(socket.recv(), timeout=left))
        if match(message):
            return message
