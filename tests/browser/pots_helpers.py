"""What a player sees and does on the pots table, for the browser tests.

Everything waits for a condition on the page; nothing sleeps. The table tells each update card by card,
so a decision is open only once the story is told: the table's root then carries data-mine="play"
(Draw or Stop) or data-mine="target" / "give" (choose a player), and the room's seq says when the
server took the move.
"""

from __future__ import annotations

from tests.browser.helpers import WAIT_MS

ROOT = ".pots-table.pt-live"

WATCH_WORDS = """() => {
  // Every sentence the room's live region receives (it keeps only the last few): the table announces
  // each card, spill, stop and hand end there.
  window.__said = [];
  const region = document.getElementById('room-announcer');
  new MutationObserver((changes) => changes.forEach((change) => change.addedNodes.forEach((node) => {
    if (node.textContent) window.__said.push(node.textContent);
  }))).observe(region, {childList: true});
}"""


def watch_words(page) -> None:
    page.evaluate(WATCH_WORDS)


def said(page) -> list[str]:
    return page.evaluate("window.__said || []")


def wait_for_table(page) -> None:
    page.wait_for_selector(ROOT, timeout=WAIT_MS)


def wait_for_decision_or_end(page) -> str:
    """'play', 'target' or 'give' once this seat may decide; 'end' once the ranking is shown."""
    handle = page.wait_for_function(
        """(root) => {
          const ranking = document.querySelector('#end-panel:not([hidden]) #ranking li');
          if (ranking) return 'end';
          const table = document.querySelector(root);
          return (table && table.dataset.mine) || false;
        }""",
        arg=ROOT, timeout=WAIT_MS)
    return handle.json_value()


def seq(page) -> int:
    return page.evaluate("window.WickwiseRoom.state().seq")


def wait_past(page, before: int) -> None:
    """The server took this seat's move: the room's seq moved on."""
    page.wait_for_function("(before) => window.WickwiseRoom.state().seq > before", arg=before, timeout=WAIT_MS)


def my_row(page) -> dict:
    """This seat's row as drawn: its status, hand score and the numbers in it."""
    return page.evaluate("""(root) => {
      const row = document.querySelector(root + ' .pt-row.is-me');
      return {
        status: row.dataset.status,
        score: Number(row.querySelector('.pt-score-hand').textContent),
        numbers: [...row.querySelectorAll('.pt-numbers .pt-slot')].map((slot) => slot.dataset.card),
      };
    }""", ROOT)


def my_spill_chance(page) -> str:
    return page.text_content(f"{ROOT} .pt-chance-value") or ""


def targets(page) -> list[int]:
    """The players this seat may choose now (only they are buttons)."""
    return [int(seat) for seat in page.eval_on_selector_all(
        f"{ROOT} .pt-pick", "(picks) => picks.map((pick) => pick.dataset.seat)")]


def row_count(page) -> int:
    return page.locator(f"{ROOT} .pt-row").count()


def pick(page, seat: int):
    return page.locator(f'{ROOT} .pt-pick[data-seat="{seat}"]')


def piles(page) -> dict:
    """The deck and the discard pile as drawn: each one image with words, its size and a caption."""
    return page.evaluate("""(root) => Object.fromEntries(['deck', 'discard'].map((name) => {
      const pile = document.querySelector(`${root} .pt-pile--${name}`);
      return [name, {
        caption: pile.querySelector('.pt-pile-caption').textContent,
        count: pile.querySelector('.pt-pile-count').textContent,
        role: pile.getAttribute('role'),
        label: pile.getAttribute('aria-label'),
      }];
    }))""", ROOT)
