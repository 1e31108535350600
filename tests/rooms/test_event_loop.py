"""daphne's event loop (config/serve.py): started as `make run` and the benchmarks start it, daphne runs on
uvloop unless WICKWISE_EVENT_LOOP=asyncio asks for the standard library's loop, and serves a room's socket
(Twisted's sockets, the consumers, Redis) on either. The loop is read from inside the running daphne,
through the probe (rooms/probe.py)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from config import serve
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


async def first_snapshot(base: str, ws_base: str, ticket: dict) -> dict:
    async with connect(ws_base + ticket["socket"], origin=base) as ws:
        await ws.send(json.dumps({"type": "auth", "return_code": ticket["return_code"]}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
            if message["type"] == "snapshot" and message["you"]["seat"] == ticket["seat"]:
                return message


def loop_inside(site, probe_file: Path) -> str:
    """Which loop the running daphne is on: its probe says, on SIGUSR1 (handled between two of the loop's
    steps, so this also shows that a Python signal handler runs on it)."""
    site.server.send_signal(signal.SIGUSR1)
    wait_for(lambda: probe_file.exists() and probe_file.read_text().endswith("\n"), what="the probe's line")
    return json.loads(probe_file.read_text().splitlines()[-1])["loop"]


@pytest.mark.parametrize("chosen", [None, "uvloop", "asyncio"])
def test_daphne_runs_on_the_chosen_loop_serves_a_room_socket_and_stops_on_sigterm(live_site_factory, tmp_path,
                                                                                  chosen):
    probe_file = tmp_path / "probe.jsonl"
    env = {"WICKWISE_PROBE_FILE": str(probe_file), serve.EVENT_LOOP_VARIABLE: chosen or ""}
    site = live_site_factory(env=env)
    ticket = open_room(site.url)
    snapshot = asyncio.run(first_snapshot(site.url, site.ws_url, ticket))
    assert snapshot["you"]["seat"] == ticket["seat"] == 0 and snapshot["room"]
    assert loop_inside(site, probe_file) == LOOP_TYPES[chosen or serve.DEFAULT_EVENT_LOOP]
    site.server.terminate()  # Twisted's SIGTERM handler, run by either loop: a clean exit, at once
    assert site.server.wait(timeout=10) == 0


def test_a_loop_nobody_knows_stops_daphne_before_it_starts():
    env = {serve.EVENT_LOOP_VARIABLE: "tokio"}
    result = subprocess.run([sys.executable, "-m", "config.serve", "--help"], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, env={**os.environ, **env})
    assert result.returncode != 0 and "WICKWISE_EVENT_LOOP='tokio'" in result.stderr


def test_the_loop_must_be_chosen_before_daphne_makes_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "daphne.server", object())
    with pytest.raises(RuntimeError, match="already made its event loop"):
        serve.use_event_loop("uvloop")


@pytest.mark.parametrize(("value", "name"), [("", serve.DEFAULT_EVENT_LOOP), (" UVLOOP ", "uvloop"),
                                             ("asyncio", "asyncio")])
def test_the_variable_names_the_loop(value, name):
    assert serve.chosen_event_loop({serve.EVENT_LOOP_VARIABLE: value}) == name
    assert serve.chosen_event_loop({}) == serve.DEFAULT_EVENT_LOOP
