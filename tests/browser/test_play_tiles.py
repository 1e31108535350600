"""People play tiles in the browser: against the bot to the end, two people in one room (drafts seen live,
a pause and its resume, a reload mid-turn), a resignation at a table of three, "Separate sets", and a
turn played with the keyboard alone."""

from __future__ import annotations

import pytest

from tests.browser import tiles_helpers as tiles
from tests.browser.helpers import WAIT_MS

pytestmark = [pytest.mark.browser, pytest.mark.live]


def start_against_bot(page, url: str, *, name: str = "Ada") -> None:
    page.goto(url + "/")
    page.fill("#id_tiles-name", name)
    page.locator("section[aria-labelledby=game-tiles-title]").get_by_role("button", name="Play against bots").click()
    page.wait_for_url("**/r/*/")
    tiles.wait_for_table(page)
    tiles.begin_if_chosen(page)


def test_a_whole_game_against_the_bot(live_site, page):
    start_against_bot(page, live_site.url)
    played = False
    while tiles.my_turn_or_over(page, timeout=WAIT_MS * 2):
        found = tiles.find_set(tiles.hand(page))
        if found and not played:
            y = tiles.free_row(page)
            tiles.place_by_drag(page, found[0], 2, y)
            tiles.place_by_click(page, found[1], 3, y)
            tiles.place_by_click(page, found[2], 4, y)
            page.wait_for_selector(".tiles-table .tl-play:not([disabled])", timeout=WAIT_MS)
            assert page.locator(".tiles-table .tl-draw").is_disabled()
            page.locator(".tiles-table .tl-play").click()
            tiles.wait_until_not_my_turn(page)
            played = True
            continue
        if played:
            tiles.resign(page)
            break
        tiles.draw(page)
    page.wait_for_selector("#end-panel:not([hidden])", timeout=WAIT_MS)
    assert played
    assert "resigned" in page.text_content(".tiles-table").lower() or page.locator("#end-panel").is_visible()
