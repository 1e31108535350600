"""One device plays a seat: the one that took it last. The other is told its seat is played elsewhere,
watches, and may take the seat back."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from rooms import live
from tests.rooms.helpers import (
    close_all,
    cookie_for,
    fresh_channel_layer,  # noqa: F401 (a fixture)
    is_type,
    open_socket,
    receive_until,
    room_with,
    session_cookie,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_channel_layer", "moves_played")]


async def test_a_seat_taken_on_another_device_is_played_there_and_the_first_is_told():
    code, tickets = await database_sync_to_async(room_with)(2, 3)
    laptop, first = await open_socket(code, cookie=await cookie_for(tickets[1]))
    assert first["you"] == {"seat": 1}
    # The phone is another browser: a session of its own, holding the same seat (its return code).
    phone, second = await open_socket(code, cookie=await database_sync_to_async(session_cookie)(tickets[1]))
    assert second["you"] == {"seat": 1}
    told, _ = await receive_until(laptop, is_type("seat_elsewhere"), what="the laptop told")
    assert told["seat"] == 1 and "another device" in told["message"]
    watching, _ = await receive_until(laptop, is_type("snapshot"), what="the laptop's spectator snapshot")
    assert watching["you"] == {"seat": None}
    assert not (watching["view"] or {}).get("hand")
    assert live.connected_seats(code) >= {1}
    # Taking it back is taking the seat again: now the phone is told.
    again, third = await open_socket(code, cookie=await cookie_for(tickets[1]))
    assert third["you"] == {"seat": 1}
    told, _ = await receive_until(phone, is_type("seat_elsewhere"), what="the phone told")
    await close_all(laptop, phone, again)


async def test_tabs_of_one_browser_share_the_seat_and_a_watching_page_takes_no_seat():
    code, tickets = await database_sync_to_async(room_with)(2, 3)
    cookie = await cookie_for(tickets[0])
    tab_a, first = await open_socket(code, cookie=cookie)
    tab_b, second = await open_socket(code, cookie=cookie)
    assert first["you"] == second["you"] == {"seat": 0}
    heard = []
    while not await tab_a.receive_nothing(timeout=0.5):
        heard.append((await tab_a.receive_json_from())["type"])
    assert "seat_elsewhere" not in heard, "a tab of the same browser is not pushed out"
    from config.asgi import application

    watcher = WebsocketCommunicator(application, f"/ws/rooms/{code}/?watch=1",
                                    headers=[(b"host", b"testserver"), (b"origin", b"http://testserver"),
                                             (b"cookie", cookie)])
    connected, _ = await watcher.connect()
    assert connected
    snapshot = await watcher.receive_json_from()
    assert snapshot["you"] == {"seat": None}, "?watch=1 watches even with the seat's session"
    await close_all(tab_a, tab_b, watcher)
