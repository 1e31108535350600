"""The server does what docs/protocol.md says, seen from a plain WebSocket client on a real daphne and
worker; and every message either side sends on the way is held against docs/schemas/."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.protocol import schema
from tests.protocol.test_outside_client import post

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]
WAIT = 30


class Client:
    """A socket whose every frame, sent and received, must match the schemas."""

    def __init__(self, ws):
        self.ws = ws
        self.received: list[dict] = []

    async def send(self, message: dict) -> None:
        schema.check(message, "client")
        await self.ws.send(json.dumps(message))

    async def receive(self) -> dict:
        message = json.loads(await asyncio.wait_for(self.ws.recv(), timeout=WAIT))
        schema.check(message, "server")
        self.received.append(message)
        return message

    async def until(self, match) -> dict:
        while True:
            message = await self.receive()
            if match(message):
                return message


async def seated(site, ticket) -> Client:
    ws = await connect(site.ws_url + ticket["socket"], origin=site.url)
    client = Client(ws)
    await client.receive()  # the spectator's snapshot
    await client.send({"type": "auth", "return_code": ticket["return_code"]})
    await client.until(lambda m: m["type"] == "snapshot" and m["you"]["seat"] == ticket["seat"])
    return client


def new_room(site, game: str, seats: int) -> dict:
    status, ticket = post(site.url, "/api/rooms/", {"game": game, "seats": seats, "name": "Program"})
    assert status == 201, ticket
    return ticket


def is_error(code):
    return lambda m: m["type"] == "error" and m["code"] == code


def playing(m):
    return m["type"] in ("snapshot", "update") and m["game"] and m["game"]["status"] == "playing"


def test_http_errors_are_json_as_documented(live_site):
    status, body = post(live_site.url, "/api/rooms/", {"game": "candles", "seats": 3, "name": "n" * 25})
    assert (status, body["error"]["code"]) == (400, "bad_name"), "a long name is refused, not cut"
    status, body = post(live_site.url, "/api/rooms/", {"game": "candles", "seats": 3, "name": "Bot 1"})
    assert (status, body["error"]["code"]) == (400, "bad_name")
    try:
        urllib.request.urlopen(live_site.url + "/games/ZZZZZZ/1/record.json", timeout=10)
        raise AssertionError("an unknown record was found")
    except urllib.error.HTTPError as error:
        assert error.code == 404
        assert error.headers["Content-Type"].startswith("application/json")
        assert json.loads(error.read())["error"]["code"] == "no_such_record"


def test_an_unknown_room_closes_with_4404_and_a_huge_frame_gets_a_close_frame(live_site):
    async def run():
        ws = await connect(live_site.ws_url + "/ws/rooms/ZZZZZZ/", origin=live_site.url)  # the handshake succeeds
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), timeout=WAIT)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404
        ticket = new_room(live_site, "candles", 3)
        client = await seated(live_site, ticket)
        await client.ws.send("x" * 4500)
        await client.until(is_error("too_large"))
        await client.ws.send("x" * 9000)
        with pytest.raises(ConnectionClosed) as closed:
            await client.until(lambda m: False)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4413, "a close frame, not a dropped line"

    asyncio.run(run())


def test_play_again_in_the_lobby_starts_game_one_and_seqs_are_checked(live_site):
    async def run():
        ticket = new_room(live_site, "candles", 3)
        client = await seated(live_site, ticket)
        await client.send({"type": "play_again", "ref": 1})
        update = await client.until(playing)
        assert update["game"]["number"] == 1
        seq, hand = update["seq"], update["view"]["hand"]
        await client.send({"type": "move", "seq": seq + 5, "action": {"type": "play", "candle": hand[0]}, "ref": "f"})
        error = await client.until(is_error("future_seq"))
        assert error["ref"] == "f" and "not reached" in error["message"]
        await client.until(lambda m: m["type"] == "snapshot")
        move = {"type": "move", "seq": seq, "action": {"type": "play", "candle": hand[0]}}
        await client.send({**move, "ref": "first"})
        await client.send({**move, "ref": "again"})
        error = await client.until(is_error("stale_seq"))
        assert error["ref"] == "again", "a move sent twice: the second answers an old position"

    asyncio.run(run())


@pytest.mark.parametrize("game, moves", [
    ("trails", [{"type": "throw"}, "climb", {"type": "camp"}]),
    ("pots", [{"type": "draw"}, {"type": "stop"}]),
])
def test_trails_and_pots_traffic_matches_the_schemas(live_site, game, moves):
    async def run():
        ticket = new_room(live_site, game, 2)
        client = await seated(live_site, ticket)
        await client.send({"type": "client_seed", "value": "schema-check"})
        await client.send({"type": "start"})
        message = await client.until(lambda m: playing(m) and ticket["seat"] in m["game"]["to_act"])
        for move in moves:
            view = message["view"]
            if move == "climb":
                if view["phase"] != "choose":
                    break  # the throw fell: the turn is over
                move = {"type": "climb", "trails": view["tray"][0]["choices"][0]}
            if game == "pots" and view["phase"] != "play":
                break
            await client.send({"type": "move", "seq": message["seq"], "action": move})
            message = await client.until(lambda m: m["type"] == "update")
            if ticket["seat"] not in message["game"]["to_act"]:
                break
        await client.send({"type": "ping"})
        await client.until(lambda m: m["type"] == "pong")
        await client.send({"type": "sync"})
        await client.until(lambda m: m["type"] == "snapshot")
        kinds = {m["type"] for m in client.received}
        assert {"snapshot", "update", "room", "pong"} <= kinds

    asyncio.run(run())


def _free_cell(table: list[list[int]], width: int, height: int) -> tuple[int, int]:
    """A cell with no tile in it or beside it: a tile put there stands alone."""
    taken = {(x, y) for _, x, y in table}
    for y in range(height - 1, -1, -1):
        for x in range(width):
            if not {(x, y), (x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)} & taken:
                return x, y
    raise AssertionError("the board is full")


def test_tiles_traffic_matches_the_schemas(live_site):
    """Begin, a draft, pause and resume, a draw refused while the draft differs, a play refused with the lines
    that are wrong, and a resignation: every frame of it against the schemas."""
    async def run():
        ticket = new_room(live_site, "tiles", 2)
        me = ticket["seat"]
        client = await seated(live_site, ticket)
        await client.send({"type": "start"})
        message = await client.until(lambda m: playing(m) and me in m["game"]["to_act"])
        if message["view"]["phase"] == "begin":
            await client.send({"type": "move", "seq": message["seq"], "action": {"type": "begin"}})
            message = await client.until(lambda m: m["type"] == "update" and me in m["game"]["to_act"]
                                         and m["view"]["phase"] == "play")
        view, seq = message["view"], message["seq"]
        x, y = _free_cell(view["table"], *view["board"])
        changed = [*view["table"], [view["hand"][0], x, y]]
        await client.send({"type": "draft", "seq": seq, "draft": {"table": changed}})
        await client.until(lambda m: m["type"] == "draft" and m["seat"] == me)
        for kind, said in (("pause", "paused"), ("resume", "resumed")):
            await client.send({"type": kind})
            await client.until(
                lambda m, said=said: m["type"] == "update" and any(e["type"] == said for e in m["events"]))
        await client.send({"type": "move", "seq": seq, "action": {"type": "draw" if view["bag"] else "pass"}})
        await client.until(is_error("undo_draft_first"))
        await client.send({"type": "move", "seq": seq, "action": {"type": "play", "table": changed}})
        refused = await client.until(is_error("illegal:invalid_table"))
        assert {"cells": [[x, y]], "reason": "lone"} in refused["details"]["problems"]
        await client.send({"type": "move", "seq": seq, "action": {"type": "resign"}})
        over = await client.until(lambda m: m["type"] == "update" and m["game"]["status"] == "finished")
        assert any(row["seat"] == me and row["resigned"] for row in over["game"]["result"])

    asyncio.run(run())
