"""A person plays a whole game of trails against a bot with the keyboard alone, from the home page to the
Verify page.

The player throws with R, takes the first card that climbs with its digit (and A on a card with two
trails), and camps with C after two climbs, so the game keeps moving and ends; M mutes and unmutes.
After each climb the lanterns of the turn must be plainly on the map and the key hints inside their buttons.
Every throw the player makes is checked against the socket's events; at the end the ranking, the seed
and its fingerprint are checked, and the Verify page must pass every check.
"""

from __future__ import annotations

import pytest

from games.trails.engine import LANDMARKS_TO_WIN
from tests.browser import helpers
from tests.browser import trails_helpers as trails
from tests.browser.helpers import WAIT_MS

pytestmark = [pytest.mark.browser, pytest.mark.live]

PLAYERS = 2  # the default room size of "Play against bots" for trails
MOST_DECISIONS = 600  # far more than a game takes: a loop that never ends fails instead of hanging
CLIMBS_BEFORE_CAMP = 2
MIN_LANTERN_PX = 12  # a lantern on the map at desktop size, drawn at about 16 px


def test_a_whole_game_against_a_bot_by_keyboard(live_site, page):
    with helpers.Evidence("play-trails") as evidence:
        evidence.watch("player", page)
        socket = helpers.SocketLog(page)
        evidence.attach("player-socket", socket.summary)
        play_a_whole_game(live_site, page, socket)


def start_from_the_home_page(live_site, page) -> None:
    page.goto(live_site.url + "/")
    page.focus("#id_trails-name")
    page.keyboard.type("Ada")
    # Back from the name field over "How to play" to the card's "Play against bots".
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.textContent.trim()") == "Play against bots"
    assert page.evaluate("document.activeElement.closest('form').action").endswith("/trails/bots/")
    page.keyboard.press("Enter")
    page.wait_for_url("**/r/*/")
    trails.wait_for_table(page)


def play_a_whole_game(live_site, page, socket):
    start_from_the_home_page(live_site, page)
    assert page.locator(f"{trails.TABLE} .tt-trail").count() == 11
    assert page.locator(f"{trails.TABLE} .tt-player").count() == PLAYERS
    assert "Ada" in page.text_content(f"{trails.TABLE} .tt-player.is-me")
    assert "Bot" in page.text_content(f"{trails.TABLE} .tt-player:not(.is-me)")
    heights = page.eval_on_selector_all(f"{trails.TABLE} .tt-steps", "(cols) => cols.map((c) => c.children.length)")
    assert heights == [3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3]

    # M mutes through the room's own sound button, so its label follows; M again turns the sound back on.
    sound_was = page.text_content("#sound-toggle").strip()
    page.keyboard.press("m")
    page.wait_for_function("(was) => document.querySelector('#sound-toggle').textContent.trim() !== was",
                           arg=sound_was, timeout=WAIT_MS)
    page.keyboard.press("m")
    page.wait_for_function("(was) => document.querySelector('#sound-toggle').textContent.trim() === was",
                           arg=sound_was, timeout=WAIT_MS)

    climbs = 0
    throws = 0
    for _ in range(MOST_DECISIONS):
        # A whole bot turn is animated throw by throw: give it time.
        decision = trails.wait_for_decision_or_end(page, timeout=4 * WAIT_MS)
        if decision == "end":
            break
        if decision == "throw":
            climbs = 0
            assert page.is_visible(f"{trails.TABLE} .tt-sign"), "the risk sign shows before a throw"
            trails.press_and_wait_sent(page, "r")
            throws += 1
        elif decision == "choose":
            assert trails.tray(page), "a throw that can climb shows its cards"
            trails.climb_by_keys(page)
            climbs += 1
        elif climbs >= CLIMBS_BEFORE_CAMP or trails.lanterns_left(page) == 0:
            see_the_climb(page)
            trails.press_and_wait_sent(page, "c")
        else:
            see_the_climb(page)
            trails.press_and_wait_sent(page, "r")
            throws += 1
    else:
        pytest.fail("the game did not end")

    helpers.wait_for_end(page)
    mine = [event for message in socket.messages for event in message.get("events") or []
            if event.get("type") == "thrown" and event.get("seat") == message_seat(socket)]
    assert len(mine) == throws, "every R was one throw"
    assert any(event.get("type") == "won" for message in socket.messages for event in message.get("events") or [])

    rows = helpers.ranking(page)
    assert len(rows) == PLAYERS
    assert [place for place, _, _ in rows] == ["1st", "2nd"]
    assert sorted(name for _, name, _ in rows) == ["Ada", "Bot 1"]
    assert all(score.endswith(" landmarks") or score.endswith(" landmark") for _, _, score in rows)
    # A camp claims every landmark its lanterns reach at once, so the winner has three or more, the other fewer.
    shown = [int(score.split()[0]) for _, _, score in rows]
    assert shown[0] >= LANDMARKS_TO_WIN > shown[1]

    seed = page.text_content("#end-seed").strip()
    fingerprint = page.text_content("#end-fingerprint").strip()
    assert helpers.HEX64.fullmatch(seed) and helpers.sha256_hex(seed) == fingerprint
    for game in socket.games():
        assert game["seed"] is None or game["status"] in {"finished", "ended"}

    page.focus("#verify-link")
    page.keyboard.press("Enter")
    page.wait_for_selector("#verify[data-result]", timeout=WAIT_MS)
    assert page.get_attribute("#verify", "data-result") == "pass"
    assert page.locator("#verify-checks > li.check-fail").count() == 0
    total = page.locator("#verify-checks > li.check-pass").count()
    assert total > 8
    assert f"All {total} checks passed" in page.text_content("[role=status]")
    assert page.locator("#verify-checks > li[data-check=step]").count() == total - 8  # one step a turn
    assert "Turn 1" in page.text_content("#verify-checks")


def see_the_climb(page) -> None:
    """Just after a climb, while the new lanterns may still be landing: every lantern of this turn is on
    the map, fully opaque and big enough to see; and the buttons' key hints stay inside the buttons."""
    lanterns = trails.lanterns_on_map(page)
    assert len(lanterns) == 3 - trails.lanterns_left(page), lanterns
    for lantern in lanterns:
        assert lantern["opacity"] == 1, lantern
        assert lantern["width"] >= MIN_LANTERN_PX and lantern["height"] >= MIN_LANTERN_PX, lantern
    assert trails.key_hints_outside_their_buttons(page) == []


def message_seat(socket) -> int:
    """This page's seat, from the first view it received."""
    return next(view["seat"] for view in socket.views() if "seat" in view)
