"""docs/protocol.md is enough for an outside program: this client uses only the standard library and a
plain WebSocket library, no project code. It opens a room, takes a seat, lets a second program join,
plays a whole game of candles against the bots, and checks the revealed seed against the fingerprint."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect

from tests.protocol import schema

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def post(base: str, path: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def get(base: str, path: str) -> dict:
    with urllib.request.urlopen(base + path, timeout=10) as response:
        return json.loads(response.read())


async def play_seat(base: str, ws_base: str, ticket: dict, *, host: bool, errors: list) -> dict:
    """Play one seat to the end of the game: a legal candle whenever this seat is asked."""
    async with connect(ws_base + ticket["socket"], origin=base) as ws:
        await ws.send(json.dumps({"type": "auth", "return_code": ticket["return_code"]}))
        acted = set()
        started = False
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout=60))
            schema.check(message, "server")
            if message["type"] == "error":
                errors.append(message)
                continue
            if message["type"] == "snapshot" and message["you"]["seat"] is None:
                continue  # the spectator's snapshot on connect, before auth was answered
            if message["type"] == "snapshot" and host and not started:
                assert message["you"]["seat"] == ticket["seat"]
                assert message["room"]["next_game"]["fingerprint"]
                await ws.send(json.dumps({"type": "client_seed", "value": "outside-program"}))
                await ws.send(json.dumps({"type": "start"}))
                started = True
            if message["type"] not in ("snapshot", "update") or not message.get("game"):
                continue
            game, view = message["game"], message["view"]
            if game["status"] == "finished":
                return message
            if game["status"] != "playing" or ticket["seat"] not in game["to_act"]:
                continue
            if view["my_pick"] is not None or view["round"] in acted:
                continue
            acted.add(view["round"])
            await ws.send(json.dumps({"type": "move", "seq": message["seq"],
                                      "action": {"type": "play", "candle": random.choice(view["hand"])}}))


def test_an_outside_program_plays_a_whole_game(live_site):
    base, ws_base = live_site.url, live_site.ws_url
    status, host = post(base, "/api/rooms/", {"game": "candles", "seats": 4, "name": "Program A"})
    assert status == 201 and host["seat"] == 0 and len(host["return_code"]) == 19
    status, guest = post(base, f"/api/rooms/{host['room']}/join/", {"name": "Program B"})
    assert status == 201 and guest["seat"] == 1

    # Wrong inputs get clear errors and change nothing.
    assert post(base, "/api/rooms/", {"game": "chess", "seats": 4, "name": "x"})[1]["error"]["code"] == "no_such_game"
    assert post(base, "/api/rooms/", {"game": "candles", "seats": 11, "name": "x"})[1]["error"]["code"] == "bad_seats"
    assert post(base, "/api/rooms/ZZZZZZ/join/", {"name": "x"})[0] == 404

    async def both():
        errors: list = []
        guest_task = asyncio.create_task(play_seat(base, ws_base, guest, host=False, errors=errors))
        await asyncio.sleep(0.3)  # the guest is connected before the host starts
        final = await play_seat(base, ws_base, host, host=True, errors=errors)
        await guest_task
        return final, errors

    final, errors = asyncio.run(both())
    assert errors == []
    game = final["game"]
    assert game["status"] == "finished" and len(game["result"]) == 4
    assert [p["bot"] for p in game["players"]] == [False, False, True, True]
    assert hashlib.sha256(bytes.fromhex(game["seed"])).hexdigest() == game["fingerprint"]

    record = get(base, f"/games/{host['room']}/{game['number']}/record.json")
    assert record["seed"] == game["seed"] and record["client_seeds"][0] == "outside-program"
    assert len(record["moves"]) == 24 and record["result"] == game["result"]
