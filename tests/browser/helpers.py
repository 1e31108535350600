"""What a player sees and does on the candles table, for the browser tests and scripts/screenshots.py.

Everything waits for a condition on the page; nothing sleeps. The table is asynchronous by design
(moves go over a WebSocket, each reveal is animated), so every step waits for what a person would
wait for: their candles becoming playable, the round counter moving on, the ranking appearing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
from pathlib import Path

# Generous: a loaded CI machine runs Chromium, daphne, a worker and a database on few cores.
WAIT_MS = 30_000


OFFLINE_ORIGIN = "http://127.0.0.1:9"  # answered by page.route, never contacted


def open_room(page, url: str, *, game: str, name: str, seats: int) -> str:
    """Open a room of `game` from the home page's form; its six-character code."""
    page.goto(url + "/")
    page.fill(f"#id_{game}-name", name)
    page.select_option(f"#id_{game}-seats", str(seats))
    page.locator(f"section[aria-labelledby=game-{game}-title]").get_by_role("button", name="Open a room").click()
    page.wait_for_selector("#lobby:not([hidden])", timeout=WAIT_MS)
    return page.text_content("#lobby .big-code").strip()


def serve_offline(page, html: str, files: dict) -> None:
    """Answer every request to OFFLINE_ORIGIN: a site file by its path, anything else with `html`."""
    def answer(route):
        path = route.request.url.removeprefix(OFFLINE_ORIGIN)
        if path in files:
            kind = "text/css" if path.endswith(".css") else "text/javascript"
            route.fulfill(status=200, content_type=kind, body=files[path].read_bytes())
        else:
            route.fulfill(status=200, content_type="text/html", body=html)

    page.route(f"{OFFLINE_ORIGIN}/**", answer)


def hand(page) -> list[int]:
    """The candles shown in this page's hand, the one already picked this round included."""
    return [int(value) for value in page.eval_on_selector_all(
        ".candles-table .ct-card", "(cards) => cards.map((card) => card.dataset.candle)")]


def picked_candle(page) -> int | None:
    value = page.eval_on_selector_all(
        ".candles-table .ct-card.is-picked", "(cards) => cards.map((card) => card.dataset.candle)")
    return int(value[0]) if value else None


def start_against_bots(page, site_url: str, *, name: str = "Ada") -> None:
    """From the home page, "Play against bots" at candles, up to this seat's first pick."""
    page.goto(site_url + "/")
    page.fill("#id_candles-name", name)
    page.locator("section[aria-labelledby=game-candles-title]").get_by_role("button", name="Play against bots").click()
    page.wait_for_url("**/r/*/")
    wait_for_table(page)
    wait_for_round(page, 1)


def wait_for_table(page) -> None:
    page.wait_for_selector(".candles-table", timeout=WAIT_MS)


def wait_for_round(page, number: int) -> None:
    """Round `number` is on and this seat may pick (the previous reveal has been told)."""
    page.wait_for_function(
        """(round) => {
          // The round's pip, not its words: the same in every language.
          const pips = [...document.querySelectorAll('.candles-table .ct-pip')];
          const open = document.querySelector('.candles-table .ct-cards[role=radiogroup]:not([aria-disabled])');
          return Boolean(open && pips.findIndex((pip) => pip.classList.contains('is-now')) === round - 1);
        }""",
        arg=number, timeout=WAIT_MS)


def wait_until_picked(page, candle: int) -> None:
    """The server took the pick: the card is flagged, or the round already moved on without it."""
    page.wait_for_function(
        """(candle) => {
          const flagged = document.querySelector('.candles-table .ct-card.is-picked[data-candle="' + candle + '"]');
          const gone = !document.querySelector('.candles-table .ct-card[data-candle="' + candle + '"]');
          return Boolean(flagged || gone);
        }""",
        arg=candle, timeout=WAIT_MS)


def card(page, candle: int):
    return page.locator(f'.candles-table .ct-card[data-candle="{candle}"]')


def play_button(page):
    return page.locator(".candles-table .ct-play")


# --- the ways to pick a candle ---------------------------------------------------------------------

def pick_by_mouse(page, candle: int) -> None:
    card(page, candle).click()
    page.wait_for_function(
        "(c) => document.querySelector('.candles-table .ct-play').textContent.includes(String(c))", arg=candle)
    play_button(page).click()


def pick_by_tap(page, candle: int) -> None:
    card(page, candle).tap()
    page.wait_for_function(
        "(c) => document.querySelector('.candles-table .ct-play').textContent.includes(String(c))", arg=candle)
    play_button(page).tap()


def pick_by_digit(page, position: int, *, confirm: str = "same digit") -> int:
    """Press 1-6 (the hand's first to sixth candle), then the same digit again or Enter."""
    digit = str(position)
    candle = hand(page)[position - 1]
    page.keyboard.press(digit)
    page.wait_for_function(
        "(c) => document.querySelector('.candles-table .ct-card.is-selected')?.dataset.candle === String(c)",
        arg=candle)
    page.keyboard.press(digit if confirm == "same digit" else "Enter")
    return candle


def pick_by_arrows(page, steps: int) -> int:
    """Focus the hand's tab stop, walk right `steps` times with the arrow key, then Enter."""
    cards = hand(page)
    page.locator(".candles-table .ct-card[tabindex='0']").focus()
    start = int(page.evaluate("document.activeElement.dataset.candle"))
    for _ in range(steps):
        page.keyboard.press("ArrowRight")
    candle = cards[(cards.index(start) + steps) % len(cards)]
    page.wait_for_function(
        "(c) => document.activeElement && document.activeElement.dataset.candle === String(c)", arg=candle)
    page.keyboard.press("Enter")
    return candle


# --- the reveal, however briefly it shows ---------------------------------------------------------

WATCH_REVEALS = """() => {
  // Each time the table shows the picks, note them: the reveal is animated and then hidden again, so
  // the test reads this record instead of racing the animation.
  const reveal = document.querySelector('.candles-table .ct-reveal');
  window.__reveals = [];
  const note = () => {
    if (reveal.hidden || !reveal.querySelector('.ct-pick')) return;
    const picks = [...reveal.querySelectorAll('.ct-pick')].map((pick) => ({
      mine: pick.classList.contains('is-mine'), candle: Number(pick.querySelector('.ct-num').textContent)}));
    const last = window.__reveals[window.__reveals.length - 1];
    if (!last || JSON.stringify(last) !== JSON.stringify(picks)) window.__reveals.push(picks);
  };
  new MutationObserver(note).observe(reveal, {attributes: true, childList: true, subtree: true});
}"""


def watch_reveals(page) -> None:
    page.evaluate(WATCH_REVEALS)


def reveals(page) -> list[list[dict]]:
    """The reveals noted since watch_reveals, each a list of {"mine", "candle"} from lowest to highest."""
    return page.evaluate("window.__reveals")


# --- what the end of a game shows ------------------------------------------------------------------

def wait_for_end(page) -> None:
    page.wait_for_selector("#end-panel:not([hidden]) #ranking li", timeout=WAIT_MS)


def ranking(page) -> list[tuple[str, str, str]]:
    """(place, name, score) per row, as shown; the name without a bot's badge (ranking_badges has those)."""
    return [tuple(row) for row in page.eval_on_selector_all("#ranking li", """(rows) => rows.map((row) =>
        ['.rank-place', '.rank-name', '.rank-score'].map((part) =>
            row.querySelector(part).firstChild.textContent.trim()))""")]


def ranking_badges(page) -> list[str]:
    """The bot badges of the ranking's rows, in order ("" for a person)."""
    return page.eval_on_selector_all("#ranking li", """(rows) => rows.map((row) => {
        const mark = row.querySelector('.rank-name .badge'); return mark ? mark.textContent : ''; })""")


def sha256_hex(seed_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


HEX64 = re.compile(r"[0-9a-f]{64}")


# --- what came over the socket ---------------------------------------------------------------------

class SocketLog:
    """Every message the page received over its WebSockets, parsed; attach before the page navigates."""

    def __init__(self, page):
        self.messages: list[dict] = []
        page.on("websocket", self._watch)

    def _watch(self, socket) -> None:
        socket.on("framereceived", self._frame)

    def _frame(self, payload) -> None:
        with contextlib.suppress(TypeError, ValueError):  # a binary frame: not ours
            message = json.loads(payload)
            message["_received"] = time.monotonic()
            self.messages.append(message)

    def summary(self) -> list[str]:
        """One line per message: when it came, its type and seq, and its events; for failure evidence."""
        start = self.messages[0]["_received"] if self.messages else 0
        return [f"{m['_received'] - start:7.2f}s {m.get('type')} seq={m.get('seq')} "
                f"{[e.get('type') for e in m.get('events') or []]} to_act={(m.get('game') or {}).get('to_act')}"
                for m in self.messages]

    def views(self) -> list[dict]:
        return [m["view"] for m in self.messages if m.get("view")]

    def games(self) -> list[dict]:
        return [m["game"] for m in self.messages if m.get("game")]


def keys_anywhere(value, key: str) -> bool:
    if isinstance(value, dict):
        return key in value or any(keys_anywhere(v, key) for v in value.values())
    if isinstance(value, list):
        return any(keys_anywhere(v, key) for v in value)
    return False


# --- evidence when a test fails ---------------------------------------------------------------------

class Evidence:
    """Keeps each page's console; when the block fails, saves a screenshot, the page's text and what
    the room page holds for every page (into var/test-logs/ by default), so a failure on CI can be understood."""

    def __init__(self, name: str, folder: Path | None = None):
        self.name = name
        self.folder = folder or Path(__file__).resolve().parents[2] / "var" / "test-logs"
        self.pages: dict[str, object] = {}
        self.console: dict[str, list[str]] = {}
        self.extras: dict[str, object] = {}

    def watch(self, label: str, page):
        self.pages[label] = page
        lines = self.console.setdefault(label, [])
        page.on("console", lambda message: lines.append(f"{message.type}: {message.text}"))
        page.on("pageerror", lambda error: lines.append(f"pageerror: {error}"))
        return page

    def attach(self, label: str, describe) -> None:
        """Also save what `describe()` returns (anything JSON can hold) if the block fails."""
        self.extras[label] = describe

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        if kind is not None:
            self.save()
        return False

    def save(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        for label, page in self.pages.items():
            stem = self.folder / f"{self.name}-{label}"
            notes = {"console": self.console.get(label, [])}
            try:
                if page.is_closed():
                    continue
                notes["url"] = page.url
                notes["room"] = page.evaluate("window.WickwiseRoom ? window.WickwiseRoom.state() : null")
                notes["text"] = page.inner_text("body")
                page.screenshot(path=f"{stem}.png", full_page=True)
            except Exception as problem:  # noqa: BLE001 (evidence is best effort)
                notes["evidence_error"] = repr(problem)
            Path(f"{stem}.json").write_text(json.dumps(notes, indent=1, default=str))
        for label, describe in self.extras.items():
            with contextlib.suppress(Exception):
                (self.folder / f"{self.name}-{label}.json").write_text(json.dumps(describe(), indent=1, default=str))
