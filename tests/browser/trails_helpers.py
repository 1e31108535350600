"""What a player sees and does on the trails table, for the browser tests.

Everything waits for a condition on the page; nothing sleeps. The table marks what its seat may do
now in `data-act` ("throw", "choose", "decide", or empty while it is not this seat's decision, a move
is on its way or a throw is being rolled), the same in every language, and counts the moves it sent
in `data-sent`.
"""

from __future__ import annotations

from tests.browser.helpers import WAIT_MS

TABLE = ".trails-table.tt-live"


def wait_for_table(page) -> None:
    page.wait_for_selector(f"{TABLE} .tt-trail", timeout=WAIT_MS)


def wait_for_decision_or_end(page, timeout: int = WAIT_MS) -> str:
    """This seat's next decision ("throw", "choose" or "decide"), or "end" once the ranking shows."""
    handle = page.wait_for_function(
        """(selector) => {
          if (document.querySelector('#end-panel:not([hidden]) #ranking li')) return 'end';
          const table = document.querySelector(selector);
          return (table && table.dataset.act) || false;
        }""", arg=TABLE, timeout=timeout)
    return handle.json_value()


def act(page) -> str:
    return page.get_attribute(TABLE, "data-act") or ""


def tray(page) -> list[list[list[int]]]:
    """The cards on the tray: for each, its buttons' trails ([] for a card that cannot climb)."""
    return page.eval_on_selector_all(f"{TABLE} .tt-card", """(cards) => cards.map((card) =>
        [...card.querySelectorAll('.tt-choice[data-trails]')].map((b) => b.dataset.trails.split(' ').map(Number)))""")


def lanterns_left(page) -> int:
    return page.locator(f"{TABLE} .tt-lamp.is-left").count()


def lanterns_on_map(page) -> list[dict]:
    """The current player's lanterns on the map: trail, drawn size and opacity (as the eye sees it now,
    in the middle of an animation too)."""
    return page.eval_on_selector_all(f"{TABLE} .tt-lantern", """(lanterns) => lanterns.map((lantern) => {
        const box = lantern.getBoundingClientRect();
        return {trail: Number(lantern.closest('.tt-trail').dataset.trail), width: box.width, height: box.height,
                opacity: Number(getComputedStyle(lantern).opacity)};
    })""")


def key_hints_outside_their_buttons(page) -> list[str]:
    """The shown key hints (R, C, 1, A...) that reach past the edge of their button."""
    return page.eval_on_selector_all(f"{TABLE} .tt-keyhint", """(hints) => hints.filter((hint) => {
        if (!hint.offsetParent) return false;
        const box = hint.getBoundingClientRect();
        const button = hint.closest('button').getBoundingClientRect();
        return box.left < button.left || box.right > button.right || box.top < button.top || box.bottom > button.bottom;
    }).map((hint) => hint.textContent)""")


def landmarks(page) -> list[int]:
    return page.eval_on_selector_all(f"{TABLE} .tt-player", """(rows) => rows.map((row) =>
        row.querySelectorAll('.tt-flag.is-raised').length)""")


def moves_sent(page) -> int:
    return int(page.get_attribute(TABLE, "data-sent") or 0)


def press_and_wait_sent(page, key: str) -> None:
    """Press a key that makes a move, and see that the table sent it (counted in `data-sent`: the
    answer may come back before the page is looked at again)."""
    before = moves_sent(page)
    page.keyboard.press(key)
    page.wait_for_function(
        "([selector, before]) => Number(document.querySelector(selector).dataset.sent || 0) > before",
        arg=[TABLE, before], timeout=WAIT_MS)


def climb_by_keys(page) -> list[int]:
    """The first card that can climb: its digit, and A on a card with two trails. Returns the trails."""
    cards = tray(page)
    for index, buttons in enumerate(cards):
        if not buttons:
            continue
        if len(buttons) == 1:
            press_and_wait_sent(page, str(index + 1))
            return buttons[0]
        page.keyboard.press(str(index + 1))
        page.wait_for_selector(f"{TABLE} .tt-card.is-chosen[data-card='{index}']", timeout=WAIT_MS)
        press_and_wait_sent(page, "a")
        return buttons[0]
    raise AssertionError(f"a tray with no climb: {cards}")
