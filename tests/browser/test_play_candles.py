"""A person plays a whole game of candles against bots, from the home page to the Verify page.

Each round is picked a different way (mouse, digit keys, Enter, arrow keys, touch), the reveal is
waited for, and at the end the ranking, the revealed seed and its fingerprint are checked, and the
Verify page must pass every check. Throughout, nothing another seat holds reaches the page.
"""

from __future__ import annotations

import pytest

from tests.browser import helpers
from tests.browser.helpers import WAIT_MS

pytestmark = [pytest.mark.browser, pytest.mark.live]

ROUNDS = 6
PLAYERS = 4  # the default room size of "Play against bots"


@pytest.fixture
def touch_page(browser):
    """A desktop-sized page that also has a touch screen, so the same player can tap and click."""
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US", has_touch=True)
    yield context.new_page()
    context.close()


def play_round(page, round_number: int) -> int:
    """Round 1 by mouse, 2 by the same digit twice, 3 by a digit then Enter, 4 by arrows then Enter,
    5 by touch, 6 by mouse again. Returns the candle played."""
    cards = helpers.hand(page)
    if round_number in (1, 6):
        candle = cards[-1]
        helpers.pick_by_mouse(page, candle)
        return candle
    if round_number == 2:
        return helpers.pick_by_digit(page, 2, confirm="same digit")
    if round_number == 3:
        return helpers.pick_by_digit(page, len(cards), confirm="Enter")
    if round_number == 4:
        return helpers.pick_by_arrows(page, 2)
    candle = cards[0]
    helpers.pick_by_tap(page, candle)
    return candle


def check_reveals(page, socket, played: list[int]) -> None:
    """Each reveal the table showed named every seat's candle of its round, ours among them.

    Not every round's reveal is required: updates can reach the page out of seq order (the worker's
    threads and the player's socket send them independently), and the page then catches up from a
    snapshot, which tells no story. At least one reveal must have been shown."""
    rounds = {tuple(sorted(event["picks"])): event["round"] for message in socket.messages
              for event in message.get("events") or [] if event.get("type") == "reveal"}
    assert len(rounds) == ROUNDS
    shown = helpers.reveals(page)
    assert shown, "the table showed the candles of at least one round"
    for picks in shown:
        round_number = rounds[tuple(sorted(pick["candle"] for pick in picks))]
        assert len(picks) == PLAYERS
        assert [pick["candle"] for pick in picks if pick["mine"]] == [played[round_number - 1]]


def test_a_whole_game_against_bots(live_site, touch_page):
    with helpers.Evidence("play-candles") as evidence:
        evidence.watch("player", touch_page)
        socket = helpers.SocketLog(touch_page)
        evidence.attach("player-socket", socket.summary)
        play_a_whole_game(live_site, touch_page, socket)


def play_a_whole_game(live_site, page, socket):
    helpers.start_against_bots(page, live_site.url)
    dealt = helpers.hand(page)
    assert len(dealt) == 6, "only this seat's six candles are on the page"
    assert page.locator(".candles-table .ct-card").count() == 6
    assert page.locator(".candles-table .ct-player").count() == PLAYERS
    assert page.text_content(".candles-table .ct-round-text") == "Round 1 of 6"
    helpers.watch_reveals(page)
    assert "Ada" in page.text_content(".candles-table .ct-player.is-me")

    played = []
    for round_number in range(1, ROUNDS + 1):
        helpers.wait_for_round(page, round_number)
        before = helpers.hand(page)
        assert before == sorted(set(dealt) - set(played))
        candle = play_round(page, round_number)
        assert candle in before
        played.append(candle)
        helpers.wait_until_picked(page, candle)
        if round_number < ROUNDS:
            helpers.wait_for_round(page, round_number + 1)
            assert candle not in helpers.hand(page)

    helpers.wait_for_end(page)
    check_reveals(page, socket, played)
    rows = helpers.ranking(page)
    assert len(rows) == PLAYERS
    assert [place for place, _, _ in rows][0] == "1st"
    assert all(place in {"1st", "2nd", "3rd", "4th"} for place, _, _ in rows)
    assert sorted(name for _, name, _ in rows) == ["Ada", "Bot 1", "Bot 2", "Bot 3"]
    badges = dict(zip([name for _, name, _ in rows], helpers.ranking_badges(page), strict=True))
    assert badges == {"Ada": "", "Bot 1": "Bot", "Bot 2": "Bot", "Bot 3": "Bot"}, "every bot has its badge"
    assert all(score.endswith(" wax") for _, _, score in rows)
    assert "over" in page.text_content("#end-title")

    seed = page.text_content("#end-seed").strip()
    fingerprint = page.text_content("#end-fingerprint").strip()
    assert helpers.HEX64.fullmatch(seed) and helpers.HEX64.fullmatch(fingerprint)
    assert helpers.sha256_hex(seed) == fingerprint

    # The socket never carried another seat's hand, and the seed only once the game was over.
    assert socket.views(), "the page saw the game over its socket"
    for view in socket.views():
        assert not helpers.keys_anywhere(view, "hands")
        assert set(view.get("hand", [])) <= set(dealt)
    for game in socket.games():
        assert game["seed"] is None or game["status"] in {"finished", "ended"}
    assert fingerprint in {game["fingerprint"] for game in socket.games()}

    page.click("#verify-link")
    page.wait_for_selector("#verify[data-result]", timeout=WAIT_MS)
    assert page.get_attribute("#verify", "data-result") == "pass"
    assert page.locator("#verify-checks > li.check-fail").count() == 0
    assert page.locator("#verify-checks > li.check-pass").count() == 14
    assert "All 14 checks passed" in page.text_content("[role=status]")
    assert fingerprint in page.text_content("#verify-checks")
