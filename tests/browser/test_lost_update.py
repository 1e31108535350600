"""An update lost on its way to the browser is caught at the next ping.

Updates are delivered at most once. A lost one usually shows as a gap in seq when the next arrives, but
nothing follows the last update of a round the others have already played, or of a game. Here every
update after the player's pick is dropped between the server and the page (snapshots still pass): the
only way back is the pong, which says where the game stands, and the snapshot the table then asks for.
"""

from __future__ import annotations

import json
import re

import pytest

from rooms.models import Game
from tests.browser import helpers

pytestmark = [pytest.mark.browser, pytest.mark.live]

PING_EVERY_MS = 15000  # static/js/room/socket.js


def test_the_table_catches_up_after_losing_updates(live_site, page):
    dropping = {"on": False, "dropped": 0, "pongs": 0, "snapshots": 0}

    def relay(socket):
        server = socket.connect_to_server()

        def from_server(text):
            kind = json.loads(text).get("type")
            if dropping["on"] and kind == "update":
                dropping["dropped"] += 1
                return
            dropping["pongs"] += kind == "pong"
            dropping["snapshots"] += kind == "snapshot"
            socket.send(text)

        server.on_message(from_server)
        socket.on_message(lambda text: server.send(text))

    page.route_web_socket(re.compile(r".*/ws/rooms/.*"), relay)
    page.clock.install()  # so that the next ping can be brought forward
    helpers.start_against_bots(page, live_site.url)

    dropping["on"] = True
    helpers.pick_by_mouse(page, helpers.hand(page)[0])
    # The bots pick at once and round 1 is revealed, but the page hears none of it. (The relay runs only
    # while Playwright is called, so the waiting is done through the page.)
    for _ in range(300):
        if dropping["dropped"] and Game.objects.filter(status="playing", seq__gte=4).exists():
            break
        page.wait_for_timeout(100)
    assert dropping["dropped"] > 0
    assert len(helpers.hand(page)) == 6  # the page is still on round 1, its pick waiting for the others

    page.clock.fast_forward(PING_EVERY_MS + 2000)  # the ping, then the second look before asking
    helpers.wait_for_round(page, 2)
    assert dropping["pongs"] >= 1 and len(helpers.hand(page)) == 5

    # Caught up, a pong asks for nothing more: the room's fingerprint and the game's position match.
    dropping["on"] = False
    snapshots, pongs = dropping["snapshots"], dropping["pongs"]
    page.clock.fast_forward(PING_EVERY_MS + 2000)
    for _ in range(50):
        if dropping["pongs"] > pongs:
            break
        page.wait_for_timeout(100)
    page.clock.fast_forward(2000)
    page.wait_for_timeout(500)
    assert dropping["pongs"] > pongs and dropping["snapshots"] == snapshots
