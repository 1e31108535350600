"""People play tiles in the browser: against the bot to the end, two people in one room (drafts seen live,
a pause and its resume, a reload mid-turn), a resignation at a table of three, "Separate sets", and a
turn played with the keyboard alone."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.browser import tiles_helpers as tiles
from tests.browser.helpers import OFFLINE_ORIGIN as ORIGIN
from tests.browser.helpers import WAIT_MS, open_room, serve_offline

pytestmark = [pytest.mark.browser, pytest.mark.live]


def start_against_bot(page, url: str, *, name: str = "Ada") -> None:
    page.goto(url + "/")
    page.fill("#id_tiles-name", name)
    page.locator("section[aria-labelledby=game-tiles-title]").get_by_role("button", name="Play against the AI").click()
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
            before = page.evaluate("() => window.WickwiseRoom.state().seq")
            page.locator(".tiles-table .tl-play").click()
            page.wait_for_function("(seq) => window.WickwiseRoom.state().seq > seq", arg=before, timeout=WAIT_MS)
            assert all(tile not in tiles.hand(page) for tile in found)
            played = True
            continue
        if played:
            tiles.resign(page)
            break
        tiles.draw(page)
    page.wait_for_selector("#end-panel:not([hidden])", timeout=WAIT_MS)
    assert played
    ranking = page.text_content("#ranking")
    assert "resigned" in ranking and "points left in hand" in ranking  # the bot's place says what it kept
    assert page.locator(".tiles-table .tl-player.is-me .tl-status").text_content() == "resigned"



# --- people in one room ---------------------------------------------------------------------------------


@pytest.fixture
def new_page(browser):
    """Pages in fresh browser contexts: separate cookies, as separate people have."""
    contexts = []

    def make():
        context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US")
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def join_by_code(page, url: str, *, code: str, name: str) -> None:
    page.goto(url + "/")
    page.fill("#id_code", code)
    page.fill("#id_name", name)
    page.get_by_role("button", name="Join", exact=True).click()
    page.wait_for_url(f"**/r/{code}/")


def to_act(page) -> int:
    return page.evaluate("() => window.WickwiseRoom.state().game.to_act[0]")


def test_two_people_see_tiles_move_pause_resume_and_a_reload_keeps_the_draft(live_site, new_page):
    ada, ben = new_page(), new_page()
    code = open_room(ada, live_site.url, game="tiles", name="Ada", seats=2)
    join_by_code(ben, live_site.url, code=code, name="Ben")  # the room is full: the dice roll at once
    for page in (ada, ben):
        tiles.wait_for_table(page)
    page_of = {0: ada, 1: ben}
    ada.wait_for_function("() => window.WickwiseRoom.state().game.to_act.length === 1", timeout=WAIT_MS)
    chosen = page_of[to_act(ada)]
    starter = "Ada" if chosen is ada else "Ben"
    chosen.locator(".tiles-table .tl-begin").click()
    ada.wait_for_selector(".tiles-table .tl-dice[hidden]", state="attached", timeout=WAIT_MS)
    tiles.my_turn_or_over(page_of[to_act(ada)])

    # The roll stays one click away after the start, for both, with each seat's last die.
    for page in (ada, ben):
        note = page.locator(".tiles-table .tl-dice-note")
        assert note.locator("summary").text_content() == f"The dice: {starter} began."
        note.locator("summary").click()
        last_round = note.locator(".tl-dice-rounds li").last.locator(".tl-dice-roll").all_text_contents()
        assert [re.fullmatch(r"(Ada|Ben): [1-6]", roll)[1] for roll in last_round] == ["Ada", "Ben"], last_round
    player = page_of[to_act(ada)]
    watcher = ben if player is ada else ada

    # One tile laid: the other page sees it on the same cell, and the player's Draw waits for an undo.
    tile = tiles.hand(player)[0]
    tiles.place_by_drag(player, tile, 10, 7)
    watcher.wait_for_selector(f".tiles-table .tl-cell[data-x='10'][data-y='7'] [data-tile='{tile}']", timeout=WAIT_MS)
    assert player.locator(".tiles-table .tl-draw").is_disabled()

    # The watcher pauses; both see it; the player resumes, and the laid tile is still there.
    watcher.locator(".tiles-table .tl-pause").click()
    for page in (ada, ben):
        page.wait_for_selector(".tiles-table .tl-paused:not([hidden])", timeout=WAIT_MS)
    player.locator(".tiles-table .tl-resume").click()
    for page in (ada, ben):
        page.wait_for_selector(".tiles-table .tl-paused[hidden]", state="attached", timeout=WAIT_MS)
    player.wait_for_selector(f".tiles-table .tl-cell[data-x='10'][data-y='7'] [data-tile='{tile}']", timeout=WAIT_MS)

    # A reload mid-turn brings the draft back, and the tile is not in the hand twice.
    player.reload()
    tiles.wait_for_table(player)
    player.wait_for_selector(f".tiles-table .tl-cell[data-x='10'][data-y='7'] [data-tile='{tile}']", timeout=WAIT_MS)
    assert tile not in tiles.hand(player)
    player.locator(".tiles-table .tl-undo").click()
    player.wait_for_selector(f".tiles-table .tl-hand [data-tile='{tile}']", timeout=WAIT_MS)
    watcher.wait_for_selector(f".tiles-table .tl-cell [data-tile='{tile}']", state="detached", timeout=WAIT_MS)
    player.wait_for_selector(".tiles-table .tl-draw:not([disabled])", timeout=WAIT_MS)
    tiles.draw(player)
    assert "Bag: 77 tiles" in watcher.text_content(".tiles-table .tl-bag")


def test_a_resignation_at_a_table_of_three(live_site, new_page):
    ada = new_page()
    open_room(ada, live_site.url, game="tiles", name="Ada", seats=3)
    ada.locator("#start-button").click()  # the host fills the empty seats with bots
    tiles.wait_for_table(ada)
    tiles.begin_if_chosen(ada)
    ada.wait_for_selector(".tiles-table .tl-resign", timeout=WAIT_MS)
    ada.locator(".tiles-table .tl-resign").click()
    ada.locator(".tiles-table .tl-resign-no").click()  # asked first, and taken back
    assert ada.evaluate("() => window.WickwiseRoom.state().game.status") == "playing"
    tiles.resign(ada)
    ada.wait_for_function(
        "() => (window.WickwiseRoom.state().game.to_act || []).indexOf(0) < 0", timeout=WAIT_MS)
    ada.wait_for_selector(".tiles-table .tl-player.is-me .tl-status", timeout=WAIT_MS)
    assert "resigned" in ada.text_content(".tiles-table .tl-player.is-me")
    state = ada.evaluate("() => window.WickwiseRoom.state().game.status")
    if state == "playing":  # the two bots play on while Ada watches
        assert ada.locator(".tiles-table .tl-resign, .tiles-table .tl-pause").count() == 0
        assert ada.locator(".tiles-table .tl-watching").count() == 1
    ada.wait_for_selector("#end-panel:not([hidden])", timeout=WAIT_MS * 6)
    assert "3" in ada.text_content("#end-panel")


# --- the table alone, mounted with a made-up turn (no server): exact tiles, so exact checks -------------

ROOT = Path(__file__).resolve().parents[2]
FILES = {
    "/site.css": ROOT / "static" / "css" / "site.css",
    "/tablekit.css": ROOT / "static" / "js" / "tablekit.css",
    "/tiles.css": ROOT / "games" / "tiles" / "static" / "tiles" / "table.css",
    "/tablekit.js": ROOT / "static" / "js" / "tablekit.js",
    "/rules.js": ROOT / "games" / "tiles" / "static" / "tiles" / "rules.js",
    "/tiles.js": ROOT / "games" / "tiles" / "static" / "tiles" / "table.js",
}
MOUNTED = """<!doctype html><html lang="en"><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/site.css"><link rel="stylesheet" href="/tablekit.css">
<link rel="stylesheet" href="/tiles.css">
<body><main><div id="table"></div></main>
<script>window.gettext = (t) => t; window.ngettext = (a, b, n) => n === 1 ? a : b;
window.interpolate = (f, v) => f.replace(/%\\((\\w+)\\)s/g, (_, k) => String(v[k]));</script>
<script src="/tablekit.js"></script><script src="/rules.js"></script><script src="/tiles.js"></script>
<script>
window.sent = []; window.drafts = [];
window.table = WickwiseGames.tiles.mount(document.getElementById('table'), {
  seat: 0, players: () => [{name: 'Ada', bot: false}, {name: 'Bot 1', bot: true}],
  playerLabel: (s) => ['Ada', 'Bot 1'][s], sendMove: (action) => { window.sent.push(action); return true; },
  sendDraft: (draft) => { window.drafts.push(draft); return true; }, sendPause: () => true, draft: () => null,
  announce: () => {}, sound: {play() {}}, timeLeft: () => 120, settings: {moveAnswerSeconds: 5}});
table.update(VIEW, [], {number: 1, seq: 3, status: 'playing', paused_remaining: null, clocks: null});
</script>"""


def tiles_view(table: list, hand: list[int]) -> dict:
    return {"game": "tiles", "seats": 2, "board": [24, 16], "phase": "play", "dice": [[5, 3]], "chooser": 0,
            "current": 0, "table": table, "jokers": {}, "counts": [len(hand), 10], "bag": 60, "places": {},
            "finished": [], "resigned": [], "in_play": [0, 1], "passes": 0, "turn": 2, "blocked": False,
            "end": None, "ranking": None, "seat": 0, "hand": hand}


@pytest.fixture
def mounted(browser):
    contexts = []

    def mount(table: list, hand: list[int], **options):
        options.setdefault("viewport", {"width": 1280, "height": 860})
        context = browser.new_context(locale="en-US", **options)
        contexts.append(context)
        page = context.new_page()
        html = MOUNTED.replace("VIEW", json.dumps(tiles_view(table, hand)))

        serve_offline(page, html, FILES)
        page.goto(f"{ORIGIN}/")
        page.wait_for_selector(".tiles-table .tl-board .tl-cell", timeout=WAIT_MS)
        return page

    yield mount
    for context in contexts:
        context.close()


BLUE_3, BLUE_4, BLUE_5 = 15, 16, 17
RED_3, RED_4, RED_5 = 41, 42, 43


def tiles_at(page) -> dict[int, tuple[int, int]]:
    return {int(tile): (x, y) for tile, x, y in page.evaluate(
        """() => [...document.querySelectorAll('.tiles-table .tl-cell [data-tile]')].map((el) => {
             const cell = el.closest('.tl-cell');
             return [el.dataset.tile, Number(cell.dataset.x), Number(cell.dataset.y)];
           })""")}


def test_separate_sets_pulls_stacked_runs_apart_only_when_pressed(mounted):
    # Two runs on adjacent rows: each is a set, but their columns read as two-tile lines.
    stacked = [[BLUE_3, 5, 2], [BLUE_4, 6, 2], [BLUE_5, 7, 2], [RED_3, 5, 3], [RED_4, 6, 3], [RED_5, 7, 3]]
    page = mounted(stacked, [3, 70])
    assert page.locator(".tiles-table .tl-cell.is-bad").count() == 6
    assert "only two tiles" in page.text_content(".tiles-table .tl-problems")
    assert tiles_at(page)[RED_3] == (5, 3)  # shown, not yet done
    page.locator(".tiles-table .tl-separate").click()
    page.wait_for_function("() => !document.querySelector('.tiles-table .tl-cell.is-bad')", timeout=WAIT_MS)
    after = tiles_at(page)
    assert after[BLUE_3] == (5, 2) and after[BLUE_5] == (7, 2)  # the first set stays where it was
    assert after[RED_4][0] == after[RED_3][0] + 1 and after[RED_5][0] == after[RED_3][0] + 2
    assert abs(after[RED_3][1] - 2) >= 2 or after[RED_3][0] > 8  # a free cell between the sets
    assert page.locator(".tiles-table .tl-separate").count() == 0
    assert page.evaluate("() => window.drafts.length") >= 1  # the others see it


def test_separate_sets_cuts_a_long_run_in_two(mounted):
    # Blue 1 to 7 in one row: valid as it is, and also two sets (1-2-3 and 4-5-6-7) once cut.
    run = [[13 + i, 4 + i, 6] for i in range(7)]
    page = mounted(run, [3, 70])
    assert page.locator(".tiles-table .tl-cell.is-bad").count() == 0
    page.locator(".tiles-table .tl-separate").click()
    page.wait_for_function("() => window.drafts.length >= 1", timeout=WAIT_MS)
    after = tiles_at(page)
    assert [after[13 + i] for i in range(3)] == [(4, 6), (5, 6), (6, 6)]  # the first set stays where it was
    moved = [after[13 + i] for i in range(3, 7)]
    assert all(cell[1] == moved[0][1] and cell[0] == moved[0][0] + i for i, cell in enumerate(moved))
    assert moved != [(7 + i, 6) for i in range(4)]
    assert page.locator(".tiles-table .tl-cell.is-bad").count() == 0
    assert page.locator(".tiles-table .tl-separate").count() == 0  # 3 and 4 tiles: nothing left to cut


def test_a_structure_that_does_not_split_into_sets_shows_no_separate_button(mounted):
    page = mounted([[BLUE_3, 5, 2], [BLUE_4, 6, 2], [BLUE_5, 7, 2], [RED_3, 5, 3], [RED_4, 6, 3]], [3, 70])
    assert page.locator(".tiles-table .tl-cell.is-bad").count() >= 2
    assert page.locator(".tiles-table .tl-separate").count() == 0


def focus_until(page, selector: str, key: str = "Tab", limit: int = 40) -> None:
    for _ in range(limit):
        if page.evaluate("(s) => Boolean(document.activeElement && document.activeElement.matches(s))", selector):
            return
        page.keyboard.press(key)
    raise AssertionError(f"the keyboard never reached {selector}")


def test_a_turn_played_with_the_keyboard_alone(mounted):
    page = mounted([], [BLUE_3, BLUE_4, BLUE_5, 70])
    for column, tile in zip((3, 4, 5), (BLUE_3, BLUE_4, BLUE_5), strict=True):
        focus_until(page, f".tiles-table .tl-hand [data-tile='{tile}']")
        page.keyboard.press("Enter")
        focus_until(page, ".tiles-table .tl-board", "Shift+Tab")
        if tile == BLUE_3:
            for _ in range(2):
                page.keyboard.press("ArrowDown")
            for _ in range(3):
                page.keyboard.press("ArrowRight")
        else:
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        page.wait_for_selector(f".tiles-table .tl-cell[data-x='{column}'][data-y='2'] [data-tile='{tile}']",
                               timeout=WAIT_MS)
    # G takes the whole run; the arrows and Enter move it two rows down.
    page.keyboard.press("g")
    assert page.locator(".tiles-table .tl-cell .tl-tile.is-selected").count() == 3
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelectorAll('.tiles-table .tl-cell[data-y=\"4\"] [data-tile]').length === 3",
        timeout=WAIT_MS)
    assert tiles_at(page) == {BLUE_3: (3, 4), BLUE_4: (4, 4), BLUE_5: (5, 4)}
    focus_until(page, ".tiles-table .tl-play")
    page.keyboard.press("Enter")
    assert page.evaluate("() => window.sent") == [
        {"type": "play", "table": [[BLUE_3, 3, 4], [BLUE_4, 4, 4], [BLUE_5, 5, 4]]}]


def test_the_hand_sorts_and_keeps_the_order_dragged_into_it(mounted):
    red_1, black_2, blue_9, joker = 39, 1, 21, 104
    page = mounted([], [joker, blue_9, black_2, red_1])
    page.locator(".tiles-table .tl-sort-number").click()
    assert tiles.hand(page) == [red_1, black_2, blue_9, joker]
    page.locator(".tiles-table .tl-sort-colour").click()
    assert tiles.hand(page) == [black_2, blue_9, red_1, joker]
    page.locator(f".tiles-table .tl-hand [data-tile='{joker}']").drag_to(
        page.locator(f".tiles-table .tl-hand [data-tile='{black_2}']"))
    page.wait_for_function(
        "(j) => document.querySelector('.tiles-table .tl-hand [data-tile]').dataset.tile === String(j)",
        arg=joker, timeout=WAIT_MS)
    page.reload()
    page.wait_for_selector(".tiles-table .tl-hand [data-tile]", timeout=WAIT_MS)
    assert tiles.hand(page) == [joker, black_2, blue_9, red_1]


def test_a_phone_held_upright_turns_the_board_and_keeps_the_hand_and_buttons_in_view(mounted):
    page = mounted([[BLUE_3, 5, 2], [BLUE_4, 6, 2], [BLUE_5, 7, 2]], [RED_3, RED_4, RED_5, 70],
                   viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    assert page.locator(".tiles-table.is-turned").count() == 1
    sizes = page.evaluate("""() => {
      const board = document.querySelector('.tiles-table .tl-board').getBoundingClientRect();
      const cell = document.querySelector('.tiles-table .tl-cell').getBoundingClientRect();
      const play = document.querySelector('.tiles-table .tl-play').getBoundingClientRect();
      return {boardRight: board.right, width: innerWidth, cell: cell.width, playBottom: play.bottom,
              height: innerHeight, tall: board.height > board.width};
    }""")
    assert sizes["boardRight"] <= sizes["width"] and sizes["tall"]  # 16 columns across, 24 rows down
    assert sizes["cell"] >= 17
    assert sizes["playBottom"] <= sizes["height"]  # the hand and the buttons stay on the screen
    # The run lies down the screen: row 2 is the third column from the right.
    cells = page.evaluate("""() => [...document.querySelectorAll('.tiles-table .tl-cell [data-tile]')]
      .map((el) => Math.round(el.getBoundingClientRect().left))""")
    assert len(set(cells)) == 1
    # Taps: a hand tile, then a free cell.
    page.locator(f".tiles-table .tl-hand [data-tile='{RED_3}']").tap()
    tiles.cell(page, 5, 4).tap()
    page.wait_for_selector(f".tiles-table .tl-cell[data-x='5'][data-y='4'] [data-tile='{RED_3}']", timeout=WAIT_MS)


def test_a_phone_held_sideways_keeps_the_board_upright_with_tiles_big_enough_to_tap(mounted):
    page = mounted([[BLUE_3, 5, 2], [BLUE_4, 6, 2], [BLUE_5, 7, 2]], [RED_3, RED_4, RED_5, 70],
                   viewport={"width": 844, "height": 390}, is_mobile=True, has_touch=True)
    assert page.locator(".tiles-table.is-turned").count() == 0, "sideways, the board's 24 columns run across"
    sizes = page.evaluate("""() => {
      const board = document.querySelector('.tiles-table .tl-board').getBoundingClientRect();
      const cell = document.querySelector('.tiles-table .tl-cell').getBoundingClientRect();
      return {boardRight: board.right, width: innerWidth, cell: cell.width,
              pageWidth: document.documentElement.scrollWidth};
    }""")
    assert sizes["boardRight"] <= sizes["width"] and sizes["pageWidth"] <= sizes["width"], "no sideways scrolling"
    assert sizes["cell"] >= 20, "a tile a thumb can tap"
    # The run lies across the screen, as on a desktop.
    rows = page.evaluate("""() => [...document.querySelectorAll('.tiles-table .tl-cell [data-tile]')]
      .map((el) => Math.round(el.getBoundingClientRect().top))""")
    assert len(set(rows)) == 1
    # Taps: a hand tile, then a free cell; the hand and the buttons are a scroll away at most.
    hand_tile = page.locator(f".tiles-table .tl-hand [data-tile='{RED_3}']")
    hand_tile.scroll_into_view_if_needed()
    hand_tile.tap()
    target = tiles.cell(page, 5, 4)
    target.scroll_into_view_if_needed()
    target.tap()
    page.wait_for_selector(f".tiles-table .tl-cell[data-x='5'][data-y='4'] [data-tile='{RED_3}']", timeout=WAIT_MS)
    play = page.locator(".tiles-table .tl-play")
    play.scroll_into_view_if_needed()
    assert play.is_visible()
