"""A page whose scripts stop keeps its seat while its socket is open.

Browsers throttle a hidden tab's timers (Chrome wakes them once a minute after five minutes hidden) and
freeze background pages. Here Chromium freezes the room page outright, so not one ping is sent, for
three presence lifetimes of the live site: the seat stays present, no bot takes it, and the page goes on
when it wakes.
"""

from __future__ import annotations

import time

import pytest

from rooms import live
from rooms.models import Seat
from tests.browser import helpers

pytestmark = [pytest.mark.browser, pytest.mark.live]

PRESENCE_SECONDS = 3.0
GRACE_SECONDS = 1.0


@pytest.fixture
def site(live_site_factory):
    return live_site_factory(env={"WICKWISE_PRESENCE_TTL_SECONDS": str(PRESENCE_SECONDS),
                                  "WICKWISE_GRACE_SECONDS": str(GRACE_SECONDS)})


def test_a_frozen_page_keeps_its_seat_and_plays_on_when_it_wakes(site, context, page):
    helpers.start_against_bots(page, site.url)
    code = page.url.rstrip("/").rsplit("/", 1)[-1]
    assert live.connected_seats(code) == {0}

    cdp = context.new_cdp_session(page)
    cdp.send("Page.setWebLifecycleState", {"state": "frozen"})
    try:
        time.sleep(PRESENCE_SECONDS * 3 + GRACE_SECONDS)
        assert live.connected_seats(code) == {0}, "the open socket's seat lapsed while its page slept"
        assert not Seat.objects.get(room__code=code, index=0).stand_in
    finally:
        cdp.send("Page.setWebLifecycleState", {"state": "active"})

    candle = helpers.hand(page)[0]
    helpers.pick_by_mouse(page, candle)
    helpers.wait_for_round(page, 2)
