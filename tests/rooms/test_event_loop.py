"""daphne's event loop (config/serve.py): started as `make run` and the benchmarks start it, daphne runs on
uvloop unless WICKWISE_EVENT_LOOP=asyncio asks for the standard library's loop, and serves a room's socket
(Twisted's sockets, the consumers, Redis) on either. The loop is read from inside the running daphne,
through the probe (rooms/probe.py), as are its garbage collector's thresholds. daphne's handshake timeout,
which runs on Twisted's timers, holds on either loop."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from config import serve
from scripts.ports import free_port, port_open
from scripts.run import daphne_command
from tests.rooms.helpers import wait_for

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent.parent
LOOP_TYPES = {"uvloop": "uvloop.Loop", "asyncio": "asyncio.unix_events._UnixSelectorEventLoop"}


def open_room(base: str) -> dict:
    request = urllib.request.Request(base + "/api/rooms/", headers={"Content-Type": "application/json"},
                                     data=json.dumps({"game": "candles", "seats": 4, "name": "Loop"}).encode())
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 201
        return json.loads(response.read())


async def seated_until_stopped(site, ticket: dict) -> tuple[dict, object]:
    """Take the seat, wait for its snapshot, then stop daphne (SIGTERM) with the socket still open: the
    socket is closed by daphne, which then exits."""
    async with connect(site.ws_url + ticket["socket"], origin=site.url) as ws:
        await ws.send(json.dumps({"type": "auth", "return_code": ticket["return_code"]}))
        while True:
            snapshot = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
            if snapshot["type"] == "snapshot" and snapshot["you"]["seat"] == ticket["seat"]:
                break
        site.server.terminate()  # Twisted's SIGTERM handler, which either loop must run at once
        with pytest.raises(ConnectionClosed):
            while True:
                await asyncio.wait_for(ws.recv(), timeout=10)
    return snapshot, ws.close_code


def probed(site, probe_file: Path) -> dict:
    """What the running daphne says of itself: its probe's line, on SIGUSR1 (handled between two of the loop's
    steps, so this also shows that a Python signal handler runs on it)."""
    site.server.send_signal(signal.SIGUSR1)
    wait_for(lambda: probe_file.exists() and probe_file.read_text().endswith("\n"), what="the probe's line")
    return json.loads(probe_file.read_text().splitlines()[-1])


@pytest.mark.parametrize("chosen", [None, "uvloop", "asyncio"])
def test_daphne_runs_on_the_chosen_loop_serves_a_room_socket_and_stops_on_sigterm(live_site_factory, tmp_path,
                                                                                  chosen):
    probe_file = tmp_path / "probe.jsonl"
    env = {"WICKWISE_PROBE_FILE": str(probe_file), serve.EVENT_LOOP_VARIABLE: chosen or ""}
    site = live_site_factory(env=env)
    ticket = open_room(site.url)
    inside = probed(site, probe_file)
    assert inside["loop"] == LOOP_TYPES[chosen or serve.DEFAULT_EVENT_LOOP]
    # the collector's thresholds, daphne's own (config/serve.py, config/asgi.py; docs/architecture.md)
    assert inside["gc_threshold"] == [serve.YOUNG_COLLECTION_AFTER, 10, 100]
    snapshot, close_code = asyncio.run(seated_until_stopped(site, ticket))
    assert snapshot["you"]["seat"] == ticket["seat"] == 0 and snapshot["room"]
    assert site.server.wait(timeout=10) == 0 and close_code is not None


async def refused_after(url: str) -> float:
    started = time.monotonic()
    with pytest.raises((InvalidHandshake, ConnectionClosed, OSError, EOFError)):
        async with connect(url, open_timeout=20):
            pass
    return time.monotonic() - started


@pytest.mark.parametrize("chosen", ["uvloop", "asyncio"])
def test_a_handshake_the_application_never_answers_is_dropped_after_the_timeout(chosen):
    """--websocket_connect_timeout runs on Twisted's timers, which either loop schedules: 3 s here. autobahn's
    own handshake timer (given the same seconds) fires on the whole second before it, daphne's check of it
    up to 2 s after: between 2 and 5 s."""
    port = free_port()
    command = daphne_command(sys.executable, host="127.0.0.1", port=port)
    command[command.index("--websocket_connect_timeout") + 1] = "3"
    command[-1] = "tests.rooms.never_accepting:application"
    server = subprocess.Popen(command, cwd=ROOT, env={**os.environ, serve.EVENT_LOOP_VARIABLE: chosen},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: port_open(port), what="daphne to listen")
        waited = asyncio.run(refused_after(f"ws://127.0.0.1:{port}/ws/"))
        assert 1.9 <= waited <= 8, waited
        assert server.poll() is None  # the server goes on
    finally:
        server.terminate()
        assert server.wait(timeout=10) == 0


def test_a_loop_nobody_knows_stops_daphne_before_it_starts():
    env = {serve.EVENT_LOOP_VARIABLE: "tokio"}
    result = subprocess.run([sys.executable, "-m", "config.serve", "--help"], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, env={**os.environ, **env})
    assert result.returncode != 0 and "WICKWISE_EVENT_LOOP='tokio'" in result.stderr


def test_the_young_threshold_is_set_and_the_others_left(monkeypatch):
    monkeypatch.setattr(serve.gc, "get_threshold", lambda: (700, 10, 100))
    set_to = []
    monkeypatch.setattr(serve.gc, "set_threshold", lambda *thresholds: set_to.append(thresholds))
    serve.collect_young_after()
    assert set_to == [(serve.YOUNG_COLLECTION_AFTER, 10, 100)]


def test_the_loop_must_be_chosen_before_daphne_makes_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "daphne.server", object())
    with pytest.raises(RuntimeError, match="already made its event loop"):
        serve.use_event_loop("uvloop")


@pytest.mark.parametrize(("value", "name"), [("", serve.DEFAULT_EVENT_LOOP), (" UVLOOP ", "uvloop"),
                                             ("asyncio", "asyncio")])
def test_the_variable_names_the_loop(value, name):
    assert serve.chosen_event_loop({serve.EVENT_LOOP_VARIABLE: value}) == name
    assert serve.chosen_event_loop({}) == serve.DEFAULT_EVENT_LOOP
