"""Two people share a room, each in a browser of their own, with one bot.

A opens a three-seat room and reads its code off the page; B joins with that code from the home page;
both watch the seats fill; A starts; both play every round. Midway B reloads and is back on the same
seat with the same hand; B's return code takes the seat on a fresh "other device"; someone joining
after the start only watches. Both end with the same ranking.
"""

from __future__ import annotations

import pytest

from tests.browser import helpers
from tests.browser.helpers import WAIT_MS

pytestmark = [pytest.mark.browser, pytest.mark.live]

ROUNDS = 6
RELOAD_ROUND = 3
OTHER_DEVICE_ROUND = 4


@pytest.fixture
def evidence():
    return helpers.Evidence("two-players")


@pytest.fixture
def new_page(browser, evidence):
    """Pages in fresh browser contexts: separate cookies, as separate people or devices have."""
    contexts = []

    def make(label: str, **options):
        context = browser.new_context(
            viewport=options.pop("viewport", {"width": 1280, "height": 860}), locale="en-US", **options)
        contexts.append(context)
        page = evidence.watch(label, context.new_page())
        evidence.attach(f"{label}-socket", helpers.SocketLog(page).summary)
        return page

    yield make
    for context in contexts:
        context.close()


def join_by_code(page, url: str, *, code: str, name: str) -> None:
    page.goto(url + "/")
    page.fill("#id_code", code.lower())  # as a friend might type it
    page.fill("#id_name", name)
    page.get_by_role("button", name="Join", exact=True).click()
    page.wait_for_url(f"**/r/{code}/")


def wait_for_lobby_names(page, names: list[str]) -> None:
    page.wait_for_function(
        """(names) => JSON.stringify([...document.querySelectorAll('#lobby-seats .seat-name')]
             .map((node) => node.textContent.trim())) === JSON.stringify(names)""",
        arg=names, timeout=WAIT_MS)


def pick_first(page) -> int:
    candle = helpers.hand(page)[0]
    helpers.pick_by_mouse(page, candle)
    helpers.wait_until_picked(page, candle)
    return candle


def test_two_people_play_a_room_together(live_site, new_page, evidence):
    with evidence:
        play_together(live_site.url, new_page)


def play_together(url: str, new_page) -> None:
    ana = new_page("ana")
    code = helpers.open_room(ana, url, game="candles", name="Ana", seats=3)
    assert len(code) >= 4 and code in ana.text_content(".room-head-code")
    wait_for_lobby_names(ana, ["Ana", "Empty seat", "Empty seat"])

    ben = new_page("ben")
    join_by_code(ben, url, code=code, name="Ben")
    ben.wait_for_selector("#lobby:not([hidden])", timeout=WAIT_MS)
    # The host's page shows Ben arrive without a reload; Ben sees the same seats.
    wait_for_lobby_names(ana, ["Ana", "Ben", "Empty seat"])
    wait_for_lobby_names(ben, ["Ana", "Ben", "Empty seat"])
    assert ben.is_hidden("#start-button") and ben.is_visible("#lobby-waiting")
    assert "1 empty seat will get a bot" in ana.text_content("#start-hint")
    return_code = ben.text_content("#return-code").strip()
    assert len(return_code.replace("-", "")) == 16

    # Each browser sends a client seed on its own; start once both are in, so both are mixed into the deal.
    for page in (ana, ben):
        page.wait_for_function(
            "() => document.querySelectorAll('#lobby-seats .badge.ok').length === 2", timeout=WAIT_MS)
    ana.click("#start-button")
    for page in (ana, ben):
        helpers.wait_for_table(page)
        helpers.wait_for_round(page, 1)
    assert len(set(helpers.hand(ana)) | set(helpers.hand(ben))) == 12, "two different hands of six"
    seeds = ana.evaluate("window.WickwiseRoom.state().game.client_seeds")
    assert seeds[0] and seeds[1] and seeds[2] is None, "both people's client seeds are in the deal, no bot's"
    for page, me in ((ana, "Ana"), (ben, "Ben")):
        names = page.eval_on_selector_all(".ct-player .ct-player-name", "(n) => n.map((x) => x.textContent)")
        assert names == ["Ana", "Ben", "Bot 1"]
        badges = page.eval_on_selector_all(
            ".ct-player", "(chips) => chips.map((c) => c.querySelector('.tk-bot') ? 'bot' : '')")
        assert badges == ["", "", "bot"], "the bot's chip carries a badge, the people's none"
        assert me in page.text_content(".ct-player.is-me")

    latecomer = new_page("latecomer", viewport={"width": 390, "height": 844}, has_touch=True)
    join_by_code(latecomer, url, code=code, name="Cleo")
    helpers.wait_for_table(latecomer)
    assert "You are watching" in latecomer.text_content("body")
    assert latecomer.locator(".candles-table.is-spectator").count() == 1
    assert latecomer.locator(".candles-table .ct-card").count() == 0
    assert latecomer.locator("#your-seat").count() == 0
    assert latecomer.evaluate("window.WickwiseRoom.state().seat") is None

    for round_number in range(1, ROUNDS + 1):
        for page in (ana, ben):
            helpers.wait_for_round(page, round_number)
        if round_number == RELOAD_ROUND:
            reload_after_picking(ben)
        elif round_number == OTHER_DEVICE_ROUND:
            play_from_another_device(ben, new_page("device"), url, return_code)
        else:
            pick_first(ben)
        pick_first(ana)

    for page in (ana, ben):
        helpers.wait_for_end(page)
    assert helpers.ranking(ana) == helpers.ranking(ben)
    assert sorted(name for _, name, _ in helpers.ranking(ana)) == ["Ana", "Ben", "Bot 1"]
    assert ana.text_content("#end-seed") == ben.text_content("#end-seed")
    assert ana.is_visible("#play-again") and ben.is_hidden("#play-again")
    latecomer.wait_for_selector("#end-panel:not([hidden])", timeout=WAIT_MS)
    assert helpers.ranking(latecomer) == helpers.ranking(ana)


def reload_after_picking(page) -> None:
    """Ben picks, then reloads while the round still waits for Ana: the same seat and hand come back.
    (Picking first leaves no decision open, so the one-second grace cannot hand one to a stand-in.)"""
    candle = pick_first(page)
    shown = helpers.hand(page)
    seat = page.evaluate("window.WickwiseRoom.state().seat")
    page.reload()
    helpers.wait_for_table(page)
    page.wait_for_selector(f'.candles-table .ct-card.is-picked[data-candle="{candle}"]', timeout=WAIT_MS)
    assert helpers.hand(page) == shown
    assert helpers.picked_candle(page) == candle
    assert page.evaluate("window.WickwiseRoom.state().seat") == seat
    assert "Ben" in page.text_content(".ct-player.is-me")


def play_from_another_device(ben, device, url: str, return_code: str) -> None:
    """A fresh browser types Ben's return code on "Return to game" and gets Ben's seat and hand: that device
    plays the seat now. Ben's own page is told the seat is played elsewhere, shows no hand, and sees the
    device's pick; then Ben takes the seat back there, and the device is told in turn."""
    hand_before = helpers.hand(ben)
    device.goto(url + "/")
    device.get_by_role("link", name="Return to game", exact=True).first.click()
    device.fill("#id_return_code", return_code.lower().replace("-", " "))
    device.get_by_role("button", name="Return to my seat").click()
    helpers.wait_for_table(device)
    helpers.wait_for_round(device, OTHER_DEVICE_ROUND)
    assert helpers.hand(device) == hand_before
    assert "Ben" in device.text_content("#your-seat")
    ben.wait_for_selector("#seat-elsewhere", timeout=WAIT_MS)
    assert "another device" in ben.text_content("#seat-elsewhere")
    ben.wait_for_function("() => window.WickwiseRoom.state().seat === null", timeout=WAIT_MS)
    assert helpers.hand(ben) == [], "the page that lost the seat watches: it holds no hand"
    candle = pick_first(device)
    ben.get_by_role("button", name="Take my seat back").click()
    ben.wait_for_function("() => window.WickwiseRoom.state().seat === 1", timeout=WAIT_MS)
    ben.wait_for_selector(f'.candles-table .ct-card.is-picked[data-candle="{candle}"]', timeout=WAIT_MS)
    device.wait_for_selector("#seat-elsewhere", timeout=WAIT_MS)
    device.context.close()
