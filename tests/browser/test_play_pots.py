"""A person plays a whole game of pots against bots, from the home page to the Verify page.

Draw and Stop go by the keys D and S and by the mouse; a snuffer, bellows or second saucer is aimed by
mouse, by touch and by the arrow keys and Enter, and only the allowed players can be chosen. The player
stops early, so the bots take the game to 200 in a few hands. At the end the table shows every hand's
scores, the room the ranking and the seed, and the Verify page passes every check.
"""

from __future__ import annotations

import pytest

from tests.browser import helpers
from tests.browser import pots_helpers as pots
from tests.browser.helpers import WAIT_MS

pytestmark = [pytest.mark.browser, pytest.mark.live]

PLAYERS = 4  # the default room size of "Play against bots"
WINNING_TOTAL = 200


@pytest.fixture
def touch_page(browser):
    """A desktop page with a touch screen too; reduced motion keeps each card's story short."""
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US", has_touch=True,
                                  reduced_motion="reduce")
    yield context.new_page()
    context.close()


def test_a_whole_game_against_bots(live_site, touch_page):
    with helpers.Evidence("play-pots") as evidence:
        evidence.watch("player", touch_page)
        socket = helpers.SocketLog(touch_page)
        evidence.attach("player-socket", socket.summary)
        play_a_whole_game(live_site, touch_page, socket)


def last_view(socket) -> dict:
    return socket.views()[-1]


def decide_draw_or_stop(page, turn: int) -> str:
    """Draw while the hand is small and the risk low, else stop; by key or by mouse in turn."""
    row = pots.my_row(page)
    draw = row["score"] < 14 and len(row["numbers"]) < 3
    if turn % 3 == 2:
        page.locator(f"{pots.ROOT} .pt-draw" if draw else f"{pots.ROOT} .pt-stop").click()
    else:
        page.keyboard.press("d" if draw else "s")
    return "draw" if draw else "stop"


def choose_target(page, socket, choice: int) -> int:
    """Mouse, touch, then the arrow keys and Enter, in turn; only the view's targets are buttons."""
    shown = pots.targets(page)
    pending = last_view(socket)["pending"]
    assert pending and sorted(shown) == sorted(pending["targets"])
    assert len(shown) >= 2, "a single target is chosen by the engine without asking"
    way = choice % 3
    if way == 0:
        seat = shown[-1]
        pots.pick(page, seat).click()
    elif way == 1:
        seat = shown[0]
        pots.pick(page, seat).tap()
    else:
        page.keyboard.press("ArrowDown")  # focuses the first target
        page.keyboard.press("ArrowDown")
        seat = shown[1 % len(shown)]
        page.wait_for_function(
            "(seat) => document.activeElement && document.activeElement.dataset.seat === String(seat)", arg=seat)
        page.keyboard.press("Enter")
    return seat


def play_a_whole_game(live_site, page, socket):
    page.goto(live_site.url + "/")
    page.fill("#id_pots-name", "Ada")
    page.locator("form.play-bots-form[data-name-from='id_pots-name'] button").click()

    page.wait_for_url("**/r/*/")
    pots.wait_for_table(page)
    pots.watch_words(page)
    assert pots.row_count(page) == PLAYERS
    assert "Ada" in page.text_content(f"{pots.ROOT} .pt-row.is-me")

    turns = choices = 0
    ways = set()
    while True:
        decision = pots.wait_for_decision_or_end(page)
        if decision == "end":
            break
        before = pots.seq(page)
        view = last_view(socket)
        assert view["current"] == view["seat"]
        if decision == "play":
            assert page.locator(f"{pots.ROOT} .pt-draw").is_enabled()
            assert not pots.targets(page), "no player can be chosen while drawing or stopping"
            chance = view["spill_chance"][view["seat"]]
            assert pots.my_spill_chance(page).rstrip("%").lstrip("<").isdigit() or chance is None
            ways.add(decide_draw_or_stop(page, turns))
            turns += 1
        else:
            assert page.locator(f"{pots.ROOT} .pt-draw").is_hidden()
            choose_target(page, socket, choices)
            choices += 1
        pots.wait_past(page, before)

    assert turns >= 2 and ways == {"draw", "stop"}
    final = last_view(socket)
    assert final["finished"] and max(final["totals"]) >= WINNING_TOTAL

    # The table: every hand's scores (hands x players), the totals, the rows as the view has them.
    hands = len(final["hands"])
    page.wait_for_selector(f"{pots.ROOT} .pt-scores[open] .pt-scores-table")
    assert page.locator(f"{pots.ROOT} .pt-scores-table tbody tr").count() == hands
    totals = page.eval_on_selector_all(f"{pots.ROOT} .pt-scores-total td",
                                       "(cells) => cells.map((cell) => Number(cell.textContent))")
    assert totals == final["totals"]
    assert page.text_content(f"{pots.ROOT} .pt-hand-number") == "Game over"

    # The room: ranking (highest first, in points), seed and fingerprint.
    rows = helpers.ranking(page)
    assert len(rows) == PLAYERS
    assert rows[0][0] == "1st" and all(score.endswith(" points") for _, _, score in rows)
    assert int(rows[0][2].split()[0]) == max(final["totals"])
    assert sorted(name for _, name, _ in rows) == ["Ada", "Bot 1", "Bot 2", "Bot 3"]
    seed = page.text_content("#end-seed").strip()
    fingerprint = page.text_content("#end-fingerprint").strip()
    assert helpers.HEX64.fullmatch(seed) and helpers.sha256_hex(seed) == fingerprint

    # The live region told the cards, the stops and the hands' ends.
    words = " ".join(pots.said(page))
    assert "draws" in words and "stops with" in words and "Hand 1 is over." in words

    # Nothing secret on the socket: the deck's order never, the seed only once the game was over.
    for view in socket.views():
        assert "deck" not in view and isinstance(view["deck_count"], int)
    for game in socket.games():
        assert game["seed"] is None or game["status"] in {"finished", "ended"}

    page.click("#verify-link")
    page.wait_for_selector("#verify[data-result]", timeout=WAIT_MS)
    assert page.get_attribute("#verify", "data-result") == "pass"
    assert page.locator("#verify-checks > li.check-fail").count() == 0
    checks = page.locator("#verify-checks > li.check-pass").count()
    assert checks == 7 + hands + 1  # record .. deal, one per hand, the result
    assert f"All {checks} checks passed" in page.text_content("[role=status]")
    assert f"Hand {hands}" in page.text_content("#verify-checks")


# --- choosing a player, on a table fed with a made-up view ----------------------------------------------

TABLE_PAGE = """<!doctype html><html lang="en"><meta charset="utf-8"><body><div id="table"></div>
<button id="sound-toggle" type="button">Mute sound</button>
<script>
  window.gettext = (t) => t; window.pgettext = (c, t) => t; window.ngettext = (a, b, n) => n === 1 ? a : b;
  window.interpolate = (f, v) => f.replace(/%\\((\\w+)\\)s/g, (_, k) => String(v[k]));
  window.sent = []; window.said = []; window.muted = false;
  window.WickwiseSound = {toggle: () => (window.muted = !window.muted), isMuted: () => window.muted, play: () => {}};
  document.getElementById('sound-toggle').addEventListener('click', () => window.WickwiseSound.toggle());
</script>
<script src="/js/tablekit.js"></script>
<script src="/pots/table.js"></script>
<script>
  const names = ['Ada', 'Bot 1', 'Bot 2', 'Bot 3'];
  window.table = WickwiseGames.pots.mount(document.getElementById('table'), {
    seat: 0, players: () => names.map((name, i) => ({name, bot: i > 0, connected: true})),
    playerLabel: (s) => names[s], sendMove: (a) => window.sent.push(a), announce: (t) => window.said.push(t),
    sound: {play: () => {}}, timeLeft: () => 20,
  });
</script>"""


def made_up_view(phase: str, targets=(), card: str = "snuffer") -> dict:
    rows = [
        {"numbers": [3, 7], "extras": ["+4"], "saucer": False, "status": "in", "score": 14},
        {"numbers": [5], "extras": [], "saucer": True, "status": "stopped", "score": 5},
        {"numbers": [12, 1], "extras": ["x2"], "saucer": False, "status": "in", "score": 26},
        {"numbers": [9], "extras": [], "saucer": False, "status": "in", "score": 9},
    ]
    return {
        "game": "pots", "seats": 4, "seat": 0, "hand": 2, "dealer": 3, "phase": phase, "current": 0,
        "pending": {"card": card, "by": 0, "targets": list(targets)} if targets else None, "dealing": False,
        "rows": rows, "bellows": None, "queue": [], "totals": [20, 31, 0, 12], "hands": [[20, 31, 0, 12]],
        "deck_count": 70, "discard": [4, 4, "snuffer"], "reshuffles": 0,
        "spill_chance": [0.125, None, 0.0625, 0.05], "finished": False, "ranking": None,
    }


@pytest.fixture
def table_page(browser):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    scripts = {"/pots/table.js": (root / "games" / "pots" / "static" / "pots" / "table.js").read_bytes(),
               "/js/tablekit.js": (root / "static" / "js" / "tablekit.js").read_bytes()}
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US", has_touch=True,
                                  reduced_motion="reduce")
    page = context.new_page()

    def answer(route):
        path = route.request.url.removeprefix("http://127.0.0.1:9")
        if path in scripts:
            route.fulfill(status=200, content_type="text/javascript", body=scripts[path])
        else:
            route.fulfill(status=200, content_type="text/html", body=TABLE_PAGE)

    page.route("http://127.0.0.1:9/**", answer)
    page.goto("http://127.0.0.1:9/")
    yield page
    context.close()


def show(page, view) -> None:
    page.evaluate("(view) => table.update(view, [], {number: 1, status: 'playing', paused_remaining: null})", view)


def sent(page) -> list[dict]:
    return page.evaluate("window.sent")


def test_only_the_allowed_players_can_be_chosen_by_mouse_touch_or_keys(table_page):
    page = table_page
    for way, expected in [("mouse", 3), ("touch", 2), ("keys", 2)]:
        page.evaluate("window.sent = []")
        show(page, made_up_view("target", targets=[0, 2, 3]))
        assert pots.targets(page) == [0, 2, 3], "the stopped player cannot be chosen"
        assert page.locator(f"{pots.ROOT} .pt-draw").is_hidden()
        assert "choose who stops now" in page.text_content(f"{pots.ROOT} .pt-prompt")
        if way == "mouse":
            pots.pick(page, 3).click()
        elif way == "touch":
            pots.pick(page, 2).tap()
        else:
            page.keyboard.press("ArrowRight")  # the first target: Ada herself
            page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
        assert sent(page) == [{"type": "target", "seat": expected}], way
        # Sent: nothing more can be chosen until the server answers (or 5 s go by without an answer).
        assert pots.targets(page) == []
        page.keyboard.press("Enter")
        assert len(sent(page)) == 1


def test_draw_stop_and_mute_keys(table_page):
    page = table_page
    show(page, made_up_view("play"))
    assert pots.targets(page) == []
    assert pots.my_spill_chance(page) == "13%"  # view.spill_chance[seat] as a percentage
    page.keyboard.press("d")
    assert sent(page) == [{"type": "draw"}]
    page.keyboard.press("s")  # the draw is on its way: no second move
    assert sent(page) == [{"type": "draw"}]
    show(page, {**made_up_view("play"), "hand": 3})
    page.keyboard.press("S")
    assert sent(page)[-1] == {"type": "stop"}
    page.keyboard.press("m")
    assert page.evaluate("window.muted") is True
    assert "Sound off." in page.evaluate("window.said")
    # A card's meaning, on pointing at it.
    page.hover(f'{pots.ROOT} .pt-row[data-seat="2"] .pt-slot[data-card="x2"]')
    page.wait_for_selector(f"{pots.ROOT} .pt-tooltip:not([hidden])")
    assert "doubles the sum of the numbers" in page.text_content(f"{pots.ROOT} .pt-tooltip")


def test_the_piles_and_the_statuses_are_labelled(table_page):
    page = table_page
    view = made_up_view("play")
    show(page, {**view, "discard": []})
    piles = pots.piles(page)
    assert piles["deck"] == {"caption": "Deck", "count": "70", "role": "img", "label": "70 cards in the deck"}
    assert piles["discard"] == {"caption": "Discards", "count": "0", "role": "img",
                                "label": "0 cards in the discard pile"}
    show(page, view)
    assert pots.piles(page)["discard"]["label"] == "3 cards in the discard pile, a snuffer on top"
    # Each status is a class of its row (table.css gives each its chip and stripe).
    assert row_classes(page, "is-stopped") == [False, True, False, False]
    # While Ada chooses, the rows she may choose are marked (the others fade); while a bot chooses, the rows
    # it may choose are marked too.
    show(page, made_up_view("target", targets=[0, 2, 3]))
    assert page.get_attribute(pots.ROOT, "data-mine") == "target"
    assert row_classes(page, "is-target") == [True, False, True, True]
    show(page, {**made_up_view("target", targets=[0, 2, 3]), "current": 2,
                "pending": {"card": "bellows", "by": 2, "targets": [0, 2]}})
    assert pots.targets(page) == []
    assert row_classes(page, "is-aimed") == [True, False, True, False]
    assert "Bot 2 is choosing a player for a bellows." in page.text_content(f"{pots.ROOT} .pt-prompt")


def row_classes(page, name: str) -> list[bool]:
    return page.eval_on_selector_all(
        f"{pots.ROOT} .pt-row", "(rows, name) => rows.map((row) => row.classList.contains(name))", name)
