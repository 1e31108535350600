"""The candles table on the screens people use, with the site's real styles around it: on a phone the
shelves, the hand and Play fit one screen; on a desktop the six cards are readable and sit in one row
inside their panel; a player chip never cuts a name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser.helpers import OFFLINE_ORIGIN as ORIGIN
from tests.browser.helpers import serve_offline

ROOT = Path(__file__).resolve().parents[2]
FILES = {
    "/site.css": ROOT / "static" / "css" / "site.css",
    "/tablekit.css": ROOT / "static" / "js" / "tablekit.css",
    "/candles.css": ROOT / "games" / "candles" / "static" / "candles" / "table.css",
    "/tablekit.js": ROOT / "static" / "js" / "tablekit.js",
    "/candles.js": ROOT / "games" / "candles" / "static" / "candles" / "table.js",
}
PAGE = """<!doctype html><html lang="en"><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/site.css"><link rel="stylesheet" href="/tablekit.css">
<link rel="stylesheet" href="/candles.css">
<body class="room-body"><main class="room-page"><div class="room-layout"><div class="room-main">
<section class="panel play-status compact" id="play-status">
<div class="timer"><span class="timer-text">29 s left</span></div></section>
<section class="table-area"><div id="table"></div></section></div>
<aside class="room-side"><section class="panel"><h2>Your seat</h2></section></aside></div></main>
<script>window.gettext = (t) => t; window.ngettext = (a, b, n) => n === 1 ? a : b;
window.interpolate = (f, v) => f.replace(/%\\((\\w+)\\)s/g, (_, k) => String(v[k]));</script>
<script src="/tablekit.js"></script><script src="/candles.js"></script>
<script>
const names = NAMES;
window.table = WickwiseGames.candles.mount(document.getElementById('table'), {
  seat: 0, players: () => names.map((name, i) => ({name, bot: name.startsWith('Bot'), connected: true})),
  playerLabel: (s) => names[s], sendMove: () => true, announce: () => {}, sound: {play() {}}, timeLeft: () => 20,
  settings: {moveAnswerSeconds: 5}});
table.update(VIEW, [], {number: 1, status: 'playing', paused_remaining: null});
</script>"""

MEASURE = """() => {
  const box = (s) => document.querySelector(s).getBoundingClientRect();
  const cards = [...document.querySelectorAll('.ct-card')].map((c) => c.getBoundingClientRect());
  const names = [...document.querySelectorAll('.ct-player-name')];
  return {
    shelvesTop: box('.ct-shelves').top, playBottom: box('.ct-play').bottom, barTop: box('.ct-bar').top,
    statusBar: box('#play-status').height, cardWidth: Math.min(...cards.map((c) => c.width)),
    cardsLeft: Math.min(...cards.map((c) => c.left)), cardsRight: Math.max(...cards.map((c) => c.right)),
    cardBottoms: new Set(cards.map((c) => Math.round(c.bottom))).size, hand: box('.ct-hand'),
    number: parseFloat(getComputedStyle(document.querySelector('.ct-card .ct-num')).fontSize),
    cut: names.filter((n) => n.scrollWidth > n.clientWidth + 1).map((n) => n.textContent),
  };
}"""


def candles_view(seats: int) -> dict:
    return {"game": "candles", "seats": seats, "round": 2, "rounds": 6,
            "shelves": [[5, 12], [35, 38, 40], [94], [49, 78, 81, 88]], "wax": [0] * seats,
            "collected": [[] for _ in range(seats)], "picked": [False] * seats, "hand_sizes": [6] * seats,
            "last_round": [], "finished": False, "ranking": None, "seat": 0, "hand": [1, 17, 56, 64, 79, 99],
            "my_pick": None}


def measured(browser, size: dict, names: list[str], **context) -> dict:
    html = PAGE.replace("NAMES", json.dumps(names)).replace("VIEW", json.dumps(candles_view(len(names))))
    ctx = browser.new_context(viewport=size, **context)
    page = ctx.new_page()

    serve_offline(page, html, FILES)
    page.goto(f"{ORIGIN}/")
    page.wait_for_selector(".ct-card")
    result = page.evaluate(MEASURE)
    ctx.close()
    return result


LONG_NAMES = ["ana_tavares", "Joaquim Silva", "Bot 1", "Bot 2"]


def test_on_a_phone_the_shelves_the_hand_and_play_fit_one_screen(browser):
    m = measured(browser, {"width": 390, "height": 844}, LONG_NAMES, is_mobile=True, has_touch=True)
    # Scrolled to the table, under the sticky status bar: from the round bar to Play.
    assert m["playBottom"] - m["barTop"] + m["statusBar"] + 16 <= 844, m
    assert m["cut"] == [], "no name is cut"


@pytest.mark.parametrize("width, height", [(1366, 768), (1920, 1080)])
def test_on_a_desktop_the_six_cards_are_readable_in_one_row_inside_their_panel(browser, width, height):
    m = measured(browser, {"width": width, "height": height}, ["Ana", "Ben", "Bot 1", "Bot 2", "Bot 3", "Bot 4"])
    assert m["cardWidth"] >= 56 and m["number"] >= 15, m
    assert m["cardBottoms"] <= 2, "one row (a selected card may stand a little higher)"
    assert m["hand"]["left"] <= m["cardsLeft"] and m["cardsRight"] <= m["hand"]["right"], m
