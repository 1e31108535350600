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


# --- tiles: three programs, drafts, an invalid play, a pause, a resignation out of turn -------------------

JOKER_FIRST = 104  # tiles 104 and 105 are the jokers; t < 104 has colour (t % 52) // 13 and number t % 13 + 1


def a_set_in(hand: list[int]) -> list[int] | None:
    """Three tiles of the hand that make a group (one number, three colours) or a run (one colour, n, n+1,
    n+2), jokers left aside."""
    by_number: dict[int, dict[int, int]] = {}
    by_colour: dict[int, dict[int, int]] = {}
    for tile in hand:
        if tile >= JOKER_FIRST:
            continue
        colour, number = (tile % 52) // 13, tile % 13 + 1
        by_number.setdefault(number, {}).setdefault(colour, tile)
        by_colour.setdefault(colour, {}).setdefault(number, tile)
    for colours in by_number.values():
        if len(colours) >= 3:
            return [colours[c] for c in sorted(colours)[:3]]
    for numbers in by_colour.values():
        for number in sorted(numbers):
            if number + 1 in numbers and number + 2 in numbers:
                return [numbers[number], numbers[number + 1], numbers[number + 2]]
    return None


def a_free_place(table: list[list[int]], width: int, height: int) -> tuple[int, int] | None:
    """Where three tiles in a row touch no other tile: every line on the board must be a set of its own."""
    taken = {(x, y) for _tile, x, y in table}
    for y in range(height):
        for x in range(width - 2):
            around = {(x - 1, y), (x + 3, y)} | {(x + i, y + d) for i in range(3) for d in (-1, 0, 1)}
            if not around & taken:
                return x, y
    return None


async def play_tiles_seat(base: str, ws_base: str, ticket: dict, seen: dict) -> dict:
    """One program's seat: it lays a set from its hand when it has one (showing it first as a draft),
    else draws, or passes when the bag is empty. Seat 1 first sends a play that is not valid, reads why,
    and pauses the game; seat 0 resumes it; seat 2 resigns out of turn."""
    me = ticket["seat"]
    async with connect(ws_base + ticket["socket"], origin=base) as ws:
        await ws.send(json.dumps({"type": "auth", "return_code": ticket["return_code"]}))
        answered: set[int] = set()  # the prompts (the seq each decision was posed at) this seat answered
        drafted: set[int] = set()  # the prompts this seat showed a draft for
        last = None
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout=60))
            kind = message["type"]
            if kind == "error":
                seen["errors"].append((me, message))
                if message.get("ref") == "resign":  # not played (a worker far behind, say): resign again later
                    seen["sent"].discard("resign")
                if message["code"] == "illegal:invalid_table":
                    await ws.send(json.dumps({"type": "pause"}))  # read why, think it over...
                if last is not None and message["code"] in ("illegal:invalid_table", "paused"):
                    answered.discard(last["game"]["prompts"].get(str(me)))  # ...and decide again once resumed
                continue
            if kind == "draft":
                seen["drafts"].add((me, message["seat"]))
                continue
            if kind not in ("snapshot", "update") or not message.get("game") or (
                    kind == "snapshot" and message["you"]["seat"] != me):
                continue
            last = message
            game, view = message["game"], message["view"]
            for event in message.get("events", []):
                seen["events"].add(event["type"])
                if event["type"] == "paused" and me == 0:
                    await ws.send(json.dumps({"type": "resume"}))
            if game["status"] == "finished":
                return message
            if game["status"] != "playing" or game["paused_remaining"] is not None:
                continue
            if me == 2 and view["turn"] >= 4 and me not in game["to_act"] and "resign" not in seen["sent"]:
                seen["sent"].add("resign")
                await ws.send(json.dumps({"type": "move", "seq": message["seq"], "action": {"type": "resign"},
                                          "ref": "resign"}))
                continue
            prompt = game["prompts"].get(str(me))
            if prompt is None or prompt in answered:
                continue
            answered.add(prompt)
            await asyncio.sleep(0.25)  # a program keeps to the rate limit (docs/protocol.md), as a player would
            action = choose_tiles_action(view, me, seen)
            if action["type"] == "play":
                drafted.add(prompt)
                await ws.send(json.dumps({"type": "draft", "seq": message["seq"], "draft": {"table": action["table"]}}))
            elif prompt in drafted:  # a draw needs the table as the turn found it: put the refused draft back first
                await ws.send(json.dumps({"type": "draft", "seq": message["seq"], "draft": {"table": view["table"]}}))
            await ws.send(json.dumps({"type": "move", "seq": message["seq"], "action": action}))


def choose_tiles_action(view: dict, me: int, seen: dict) -> dict:
    if view["phase"] == "begin":
        return {"type": "begin"}
    width, height = view["board"]
    table = [list(tile) for tile in view["table"]]
    if me == 1 and "probe" not in seen["sent"]:
        seen["sent"].add("probe")  # two tiles side by side: a line of two is never a set
        x, y = a_free_place(table, width, height)
        return {"type": "play", "table": table + [[view["hand"][0], x, y], [view["hand"][1], x + 1, y]]}
    found, place = a_set_in(view["hand"]), a_free_place(table, width, height)
    if found and place:
        seen["plays"] += 1
        return {"type": "play", "table": table + [[tile, place[0] + i, place[1]] for i, tile in enumerate(found)]}
    return {"type": "draw"} if view["bag"] else {"type": "pass"}


def test_outside_programs_play_a_whole_game_of_tiles(live_site):
    base, ws_base = live_site.url, live_site.ws_url
    status, host = post(base, "/api/rooms/", {"game": "tiles", "seats": 3, "name": "Program A"})
    assert status == 201
    seen = {"errors": [], "drafts": set(), "events": set(), "sent": set(), "plays": 0}

    async def everyone():
        tickets = [host]
        for name in ("Program B", "Program C"):
            status, ticket = post(base, f"/api/rooms/{host['room']}/join/", {"name": name})
            assert status == 201
            tickets.append(ticket)
        # The room starts by itself once the last seat is taken; a program that connects later gets a snapshot.
        return await asyncio.gather(*(play_tiles_seat(base, ws_base, ticket, seen) for ticket in tickets))

    finals = asyncio.run(everyone())
    game = finals[0]["game"]
    assert game["status"] == "finished"
    assert {row["seat"]: row["resigned"] for row in game["result"]} == {0: False, 1: False, 2: True}
    codes = [error["code"] for _seat, error in seen["errors"]]
    assert codes == ["illegal:invalid_table"], seen["errors"]
    probe = next(error for _seat, error in seen["errors"] if error["code"] == "illegal:invalid_table")
    assert probe["details"]["problems"][0]["reason"] == "two_tiles"
    assert {"begun", "paused", "resumed", "resigned", "played"} <= seen["events"]
    assert {(seat, drafter) for seat in range(3) for drafter in range(2)} <= seen["drafts"]
    clocks = game["clocks"]
    assert clocks["total"] > 0 and clocks["since"] is None and all(used >= 0 for used in clocks["used"])

    record = get(base, f"/games/{host['room']}/{game['number']}/record.json")
    assert record["result"] == game["result"] and hashlib.sha256(bytes.fromhex(record["seed"])).hexdigest() == (
        record["fingerprint"])
    assert {"type": "resign"} in [move["action"] for move in record["moves"] if move["seat"] == 2]
