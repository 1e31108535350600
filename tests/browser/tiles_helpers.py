"""What a player sees and does on the tiles table, for the browser tests and scripts/screenshots.py.

Every step waits for a condition on the page; nothing sleeps.
"""

from __future__ import annotations

import itertools

from tests.browser.helpers import WAIT_MS


def colour(tile: int) -> int:
    return (tile % 52) // 13


def number(tile: int) -> int:
    return tile % 13 + 1


def find_set(hand: list[int]) -> list[int] | None:
    """Three tiles of the hand that make a run or a group, in the order they lie, or None."""
    plain = [tile for tile in hand if tile < 104]
    for a, b, c in itertools.permutations(plain, 3):
        if colour(a) == colour(b) == colour(c) and number(b) == number(a) + 1 and number(c) == number(b) + 1:
            return [a, b, c]
    for a, b, c in itertools.combinations(plain, 3):
        if number(a) == number(b) == number(c) and len({colour(a), colour(b), colour(c)}) == 3:
            return [a, b, c]
    jokers = [tile for tile in hand if tile >= 104]
    if jokers:
        for a, b in itertools.permutations(plain, 2):
            if colour(a) == colour(b) and number(b) == number(a) + 1 and number(a) > 1:
                return [jokers[0], a, b]
    return None


def hand(page) -> list[int]:
    return [int(value) for value in page.eval_on_selector_all(
        ".tiles-table .tl-hand [data-tile]", "(tiles) => tiles.map((tile) => tile.dataset.tile)")]


def view(page) -> dict:
    return page.evaluate("() => window.WickwiseRoom.state().game")


def wait_for_table(page) -> None:
    page.wait_for_selector(".tiles-table", timeout=WAIT_MS)


def begin_if_chosen(page) -> None:
    """Past the dice: whoever the dice chose starts (this page presses "Start the game" if it is chosen)."""
    page.wait_for_function(
        """() => document.querySelector('.tiles-table .tl-begin')
             || (document.querySelector('.tiles-table .tl-dice') || {}).hidden""", timeout=WAIT_MS)
    button = page.locator(".tiles-table .tl-begin")
    if button.count():
        button.click()
    page.wait_for_selector(".tiles-table .tl-dice[hidden]", state="attached", timeout=WAIT_MS)


def my_turn_or_over(page, timeout: int = WAIT_MS) -> bool:
    """Waits until it is this page's turn (True) or the game is over (False)."""
    page.wait_for_function(
        """() => {
          const game = window.WickwiseRoom.state().game;
          return Boolean(document.querySelector('.tiles-table.is-my-turn .tl-draw:not([disabled])'))
            || Boolean(game && game.status !== 'playing');
        }""", timeout=timeout)
    return page.evaluate("() => window.WickwiseRoom.state().game.status === 'playing'")


def cell(page, x: int, y: int):
    return page.locator(f".tiles-table .tl-cell[data-x='{x}'][data-y='{y}']")


def free_row(page) -> int:
    """A row of the board with nothing on it or on the rows beside it (the lowest such)."""
    rows = page.evaluate(
        """() => [...document.querySelectorAll('.tiles-table .tl-cell')]
             .filter((cell) => cell.querySelector('[data-tile]')).map((cell) => Number(cell.dataset.y))""")
    used = set(rows)
    for y in range(15, -1, -1):
        if not used & {y - 1, y, y + 1}:
            return y
    raise AssertionError("no free row on the board")


def place_by_click(page, tile: int, x: int, y: int) -> None:
    page.locator(f".tiles-table .tl-hand [data-tile='{tile}']").click()
    cell(page, x, y).click()
    page.wait_for_selector(f".tiles-table .tl-cell[data-x='{x}'][data-y='{y}'] [data-tile='{tile}']", timeout=WAIT_MS)


def place_by_drag(page, tile: int, x: int, y: int) -> None:
    page.locator(f".tiles-table .tl-hand [data-tile='{tile}']").drag_to(cell(page, x, y))
    page.wait_for_selector(f".tiles-table .tl-cell[data-x='{x}'][data-y='{y}'] [data-tile='{tile}']", timeout=WAIT_MS)


def draw(page) -> None:
    seq = page.evaluate("() => window.WickwiseRoom.state().seq")
    page.locator(".tiles-table .tl-draw").click()
    page.wait_for_function("(seq) => window.WickwiseRoom.state().seq > seq", arg=seq, timeout=WAIT_MS)


def resign(page) -> None:
    page.locator(".tiles-table .tl-resign").click()
    page.locator(".tiles-table .tl-resign-yes").click()

