"""`make screenshots`: the main screens at phone and desktop sizes, saved as PNGs in screenshots/.

Starts a Redis if none answers, a fresh SQLite database in var/screenshots/, the site (daphne and a
worker) on a free port, and Chromium; plays real games against bots to reach each screen, and stops
everything on exit or Ctrl-C. Prints the path of each picture.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Error as PlaywrightError  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from config.settings.base import WICKWISE_GAMES  # noqa: E402
from scripts.localredis import started_redis  # noqa: E402
from scripts.ports import free_port, port_open  # noqa: E402
from scripts.run import daphne_command  # noqa: E402
from tests.browser import helpers, pots_helpers, tiles_helpers, trails_helpers  # noqa: E402
from tests.browser.conftest import CHROMIUM_ARGS, chromium_path  # noqa: E402

OUT = ROOT / "screenshots"
WORK = ROOT / "var" / "screenshots"
WAIT_MS = 30_000
SIZES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
              "has_touch": True},
    "desktop": {"viewport": {"width": 1280, "height": 860}},
}
LANGUAGES = {"en": "en-US", "pt-BR": "pt-BR"}
ONLY_TILES = "--tiles" in sys.argv  # just the tiles screens, when working on its table


class Site:
    """The site on a throwaway database and its own Redis key prefix."""

    def __init__(self, redis_url: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.prefix = f"wwshots{os.getpid()}:"
        database = WORK / "wickwise.sqlite3"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.base",
            "DATABASE_URL": f"sqlite:///{database}",
            "REDIS_URL": redis_url,
            "REDIS_PREFIX": self.prefix,
            "WICKWISE_BOT_DELAY_SECONDS": "0.3",   # quick bots, yet a moment to see who is choosing
            "WICKWISE_GRACE_SECONDS": "60",        # no stand-ins while pictures are taken
            "PYTHONUNBUFFERED": "1",
        }
        self.processes: list[subprocess.Popen] = []
        self.logs: list = []

    def run(self, *args: str) -> None:
        subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, check=True,
                       stdout=subprocess.DEVNULL)

    def spawn(self, name: str, command: list[str]) -> None:
        log = open(WORK / f"{name}.log", "w")  # noqa: SIM115 (closed in stop)
        self.logs.append(log)
        self.processes.append(subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT))

    def start(self) -> None:
        self.spawn("daphne", daphne_command(sys.executable, host="127.0.0.1", port=self.port))
        self.spawn("worker", [sys.executable, "manage.py", "worker"])
        deadline = time.time() + 30
        while time.time() < deadline:
            if any(process.poll() is not None for process in self.processes):
                raise RuntimeError(f"the site exited early; see {WORK.relative_to(ROOT)}/*.log")
            if port_open(self.port):
                return
            time.sleep(0.1)
        raise RuntimeError("the site did not start in time")

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for log in self.logs:
            log.close()
        self.forget_keys()

    def forget_keys(self) -> None:
        import redis

        try:
            client = redis.Redis.from_url(self.env["REDIS_URL"])
            keys = list(client.scan_iter(match=self.prefix + "*", count=1000))
            if keys:
                client.delete(*keys)
        except redis.RedisError:
            pass


def fresh_database() -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    for path in WORK.glob("wickwise.sqlite3*"):
        path.unlink()


class Camera:
    """Saves numbered screenshots named <size>-<language>-<screen>.png and prints their paths."""

    def __init__(self):
        OUT.mkdir(exist_ok=True)
        self.saved: list[Path] = []

    def shoot(self, page, size: str, language: str, screen: str, *, full_page: bool = True) -> None:
        path = OUT / f"{size}-{language}-{screen}.png"
        page.screenshot(path=str(path), full_page=full_page, animations="allow")
        self.saved.append(path)
        print(path.relative_to(ROOT), flush=True)


# --- the screens ----------------------------------------------------------------------------------

EVIDENCE = helpers.Evidence("failed", WORK)


def new_page(browser, size: str, language: str):
    context = browser.new_context(locale=LANGUAGES[language], **SIZES[size])
    context.set_default_timeout(WAIT_MS)
    return EVIDENCE.watch(f"{size}-{language}-{len(EVIDENCE.pages)}", context.new_page())


def home(camera, browser, site, size, language):
    page = new_page(browser, size, language)
    page.goto(site.url + "/")
    page.wait_for_load_state("networkidle")
    camera.shoot(page, size, language, "01-home")
    page.context.close()


def lobby(camera, browser, site, size, language):
    """Ana opens a four-seat room and Ben joins: two seats taken, two to be filled by bots."""
    host = new_page(browser, size, language)
    host.goto(site.url + "/")
    host.fill("#id_candles-name", "Ana")
    host.locator("form[action$='/candles/new/'] button[type=submit]").click()
    host.wait_for_selector("#lobby:not([hidden])")
    code = host.text_content("#lobby .big-code").strip()
    guest = new_page(browser, size, language)
    guest.goto(site.url + "/")
    guest.fill("#id_code", code)
    guest.fill("#id_name", "Benedita")
    guest.locator("form[action$='/join/'] button[type=submit]").click()
    guest.wait_for_selector("#lobby:not([hidden])")
    for page in (host, guest):
        page.wait_for_function("document.querySelectorAll('#lobby-seats .badge.ok').length === 2")
    camera.shoot(host, size, language, "02-lobby-host")
    camera.shoot(guest, size, language, "02-lobby-guest")
    host.context.close()
    guest.context.close()


def start_bots_game(page, site, name: str) -> None:
    start_game_against_bots(page, site, "candles", name)
    helpers.wait_for_table(page)
    helpers.wait_for_round(page, 1)


LONG_PRESS = """([selector, phase]) => {
  // A finger held on the candle: the table's own long-press code shows the tooltip.
  const target = document.querySelector(selector);
  const box = target.getBoundingClientRect();
  const touch = new Touch({identifier: 1, target, clientX: box.x + box.width / 2, clientY: box.y + box.height / 2});
  const touches = phase === "touchstart" ? [touch] : [];
  target.dispatchEvent(new TouchEvent(phase, {bubbles: true, cancelable: true, touches, changedTouches: [touch]}));
}"""


def show_tooltip(page, size: str, candle: int):
    """Desktop: the mouse rests on the candle. Phone: a finger held on it. Returns what lifts it again."""
    selector = f'.candles-table .ct-card[data-candle="{candle}"]'
    release = lambda: None  # noqa: E731
    if size == "desktop":
        page.mouse.move(0, 0)
        page.locator(selector).hover()
    else:
        page.evaluate(LONG_PRESS, [selector, "touchstart"])
        release = lambda: page.evaluate(LONG_PRESS, [selector, "touchend"])  # noqa: E731
    try:
        page.wait_for_selector(".candles-table .ct-tooltip:not([hidden])", timeout=5000)
    except PlaywrightError:
        print(f"  note: no tooltip showed on the {size} table", flush=True)
    return release


def table_mid_round(camera, page, size, language) -> int:
    """Round 1 as the page opens; round 2 (the shelves have grown) with a candle selected and its tooltip."""
    camera.shoot(page, size, language, "03-table-start", full_page=False)
    first = helpers.hand(page)[-1]
    if size == "desktop":
        helpers.pick_by_mouse(page, first)
    else:
        helpers.pick_by_tap(page, first)
    helpers.wait_for_round(page, 2)
    candle = helpers.hand(page)[1]
    if size == "desktop":
        page.evaluate("window.scrollTo(0, 0)")
        helpers.card(page, candle).click()
    else:
        helpers.card(page, candle).tap()
    page.wait_for_selector(f'.candles-table .ct-card.is-selected[data-candle="{candle}"]')
    release = show_tooltip(page, size, candle)
    if size != "desktop":
        # The hand and the shelves above it, as a player holding the phone sees them.
        page.locator(".candles-table .ct-area--stage").evaluate("(node) => node.scrollIntoView({block: 'end'})")
    camera.shoot(page, size, language, "03-table", full_page=False)
    release()
    return candle


def whole_game(camera, browser, site, size, language):
    page = new_page(browser, size, language)
    start_bots_game(page, site, "Ana")
    candle = table_mid_round(camera, page, size, language)

    if size == "desktop":
        helpers.play_button(page).click()
    else:
        helpers.play_button(page).tap()
    page.wait_for_selector(".candles-table .ct-reveal:not([hidden]) .ct-pick.is-placed")
    camera.shoot(page, size, language, "04-reveal", full_page=False)
    helpers.wait_until_picked(page, candle)

    page.emulate_media(reduced_motion="reduce")  # the rest of the game only needs to end
    for round_number in range(3, 7):
        helpers.wait_for_round(page, round_number)
        (helpers.pick_by_mouse if size == "desktop" else helpers.pick_by_tap)(page, helpers.hand(page)[0])
    helpers.wait_for_end(page)
    page.emulate_media(reduced_motion="no-preference")
    camera.shoot(page, size, language, "05-end")
    page.locator("#end-panel").scroll_into_view_if_needed()
    camera.shoot(page, size, language, "05-end-screen", full_page=False)

    page.click("#verify-link")
    page.wait_for_selector("#verify[data-result]")
    camera.shoot(page, size, language, "06-verify")
    page.context.close()


def table_only(camera, browser, site, size, language):
    page = new_page(browser, size, language)
    start_bots_game(page, site, "Ana")
    table_mid_round(camera, page, size, language)
    page.context.close()


def how_to_play(camera, browser, site, size, language):
    for number, slug in enumerate(WICKWISE_GAMES):
        page = new_page(browser, size, language)
        page.goto(f"{site.url}/how-to-play/{slug}/")
        page.wait_for_load_state("networkidle")
        camera.shoot(page, size, language, f"07-how-to-play-{number + 1}-{slug}")
        page.context.close()


def start_game_against_bots(page, site, slug: str, name: str) -> None:
    page.goto(site.url + "/")
    page.fill(f"#id_{slug}-name", name)
    # A game with three ways to play has its own "Against the AI" form; the others, one quick button.
    if page.locator(f"#{slug}-against-ai").count():
        page.fill(f"#{slug}-ai-name", name)
        page.locator(f"#{slug}-against-ai button[type=submit]").click()
        return
    page.locator(f'section[aria-labelledby="game-{slug}-title"] .play-bots-form button[type=submit]').click()


def trails_table(camera, browser, site, size, language):
    """A trails turn: the dice on the tray, then the board after a climb with the risk sign."""
    page = new_page(browser, size, language)
    start_game_against_bots(page, site, "trails", "Ana")
    trails_helpers.wait_for_table(page)
    if trails_helpers.wait_for_decision_or_end(page) != "throw":  # the table always opens a turn on a throw
        print("  note: the trails table did not offer a throw", flush=True)
        page.context.close()
        return
    trails_helpers.press_and_wait_sent(page, "r")
    if trails_helpers.wait_for_decision_or_end(page) == "choose":
        camera.shoot(page, size, language, "08-trails-tray", full_page=False)
        trails_helpers.climb_by_keys(page)
        if trails_helpers.wait_for_decision_or_end(page) == "decide":
            camera.shoot(page, size, language, "08-trails-decide", full_page=False)
    camera.shoot(page, size, language, "08-trails-board")
    page.context.close()


def pots_table(camera, browser, site, size, language):
    """A pots hand: the rows after the deal, then after a few draws."""
    page = new_page(browser, size, language)
    start_game_against_bots(page, site, "pots", "Ana")
    pots_helpers.wait_for_table(page)
    pots_helpers.wait_for_decision_or_end(page)
    camera.shoot(page, size, language, "09-pots-deal", full_page=False)
    for _ in range(3):
        decision = pots_helpers.wait_for_decision_or_end(page)
        if decision == "end":
            break
        before = pots_helpers.seq(page)
        if decision == "play":
            page.keyboard.press("d")
        else:  # a snuffer, a bellows or a second saucer: the first player the arrows reach
            page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
        pots_helpers.wait_past(page, before)
    camera.shoot(page, size, language, "09-pots-table")
    page.context.close()


def tiles_lobby(camera, browser, site, size, language):
    """Ana opens a three-seat tiles room: it waits for everyone before the dice."""
    page = new_page(browser, size, language)
    page.goto(site.url + "/")
    page.fill("#id_tiles-name", "Ana")
    page.select_option("#id_tiles-seats", "3")
    page.locator('section[aria-labelledby="game-tiles-title"] form[action$="/tiles/new/"] button[type=submit]').click()
    page.wait_for_selector("#lobby:not([hidden])", timeout=WAIT_MS)
    camera.shoot(page, size, language, "10-tiles-lobby")
    page.context.close()


def tiles_table(camera, browser, site, size, language):
    """A tiles turn: two tiles laid (a bad line, painted), the third making a set (a draft), the pause,
    and the end after a resignation."""
    page = new_page(browser, size, language)
    start_game_against_bots(page, site, "tiles", "Ana")
    tiles_helpers.wait_for_table(page)
    tiles_helpers.begin_if_chosen(page)
    found = None
    while tiles_helpers.my_turn_or_over(page, timeout=WAIT_MS * 2):
        found = tiles_helpers.find_set(tiles_helpers.hand(page))
        if found:
            break
        tiles_helpers.draw(page)
    if found:
        y = tiles_helpers.free_row(page)
        tiles_helpers.place_by_click(page, found[0], 3, y)
        tiles_helpers.place_by_click(page, found[1], 4, y)
        camera.shoot(page, size, language, "10-tiles-bad-line", full_page=False)
        tiles_helpers.place_by_click(page, found[2], 5, y)
        camera.shoot(page, size, language, "10-tiles-draft", full_page=False)
        page.locator(".tiles-table .tl-pause").click()
        page.wait_for_selector(".tiles-table .tl-resume", timeout=WAIT_MS)
        camera.shoot(page, size, language, "10-tiles-pause", full_page=False)
        page.locator(".tiles-table .tl-resume").click()
        page.wait_for_selector(".tiles-table .tl-pause", timeout=WAIT_MS)
        tiles_helpers.resign(page)
        page.wait_for_selector("#end-panel:not([hidden])", timeout=WAIT_MS)
        camera.shoot(page, size, language, "10-tiles-end")
    page.context.close()


PASSING_OR_MY_TURN = """() => { const s = window.WickwiseRoom && window.WickwiseRoom.state();
  return s && s.game && s.game.status === 'playing'
    && (s.passTo !== null || (s.seat !== null && s.game.to_act.includes(s.seat))); }"""


def tiles_pass_device(camera, browser, site, size, language):
    """Ana and Bia share one device: after a move, the screen that covers the table while it changes hands."""
    page = new_page(browser, size, language)
    page.goto(site.url + "/")
    form = page.locator("#tiles-same-device")
    form.locator("#id_tiles-device-player_1").fill("Ana")
    form.locator("#id_tiles-device-player_2").fill("Bia")
    form.locator("button[type=submit]").click()
    page.wait_for_url("**/r/*/", timeout=WAIT_MS)
    for _move in range(3):  # the dice's choice begins, or a draw: then the device goes to the other player
        page.wait_for_function(PASSING_OR_MY_TURN, timeout=WAIT_MS)
        if page.evaluate("() => window.WickwiseRoom.state().passTo") is not None:
            break
        seq = page.evaluate("() => window.WickwiseRoom.state().seq")
        page.wait_for_selector(".tiles-table .tl-begin:visible, .tiles-table .tl-draw:visible", timeout=WAIT_MS)
        begin = page.locator(".tiles-table .tl-begin:visible")
        (begin if begin.count() else page.locator(".tiles-table .tl-draw")).click()
        page.wait_for_function("(seq) => window.WickwiseRoom.state().seq > seq", arg=seq, timeout=WAIT_MS)
    page.wait_for_selector("#pass-device:not([hidden])", timeout=WAIT_MS)
    camera.shoot(page, size, language, "10-tiles-pass-device", full_page=False)
    page.context.close()


def take_all(camera, site) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            with EVIDENCE:
                for size in SIZES:
                    if ONLY_TILES:
                        tiles_lobby(camera, browser, site, size, "en")
                        tiles_table(camera, browser, site, size, "en")
                        tiles_pass_device(camera, browser, site, size, "en")
                        tiles_pass_device(camera, browser, site, size, "pt-BR")
                        continue
                    home(camera, browser, site, size, "en")
                    lobby(camera, browser, site, size, "en")
                    whole_game(camera, browser, site, size, "en")
                    how_to_play(camera, browser, site, size, "en")
                    trails_table(camera, browser, site, size, "en")
                    pots_table(camera, browser, site, size, "en")
                    tiles_lobby(camera, browser, site, size, "en")
                    tiles_table(camera, browser, site, size, "en")
                    tiles_pass_device(camera, browser, site, size, "en")
                    home(camera, browser, site, size, "pt-BR")
                    table_only(camera, browser, site, size, "pt-BR")
                    tiles_pass_device(camera, browser, site, size, "pt-BR")
        finally:
            browser.close()


def stop_on_signals() -> None:
    """Ctrl-C and a plain kill both unwind through the finally blocks that stop the site and Redis
    (also when a shell started this script in the background with SIGINT ignored)."""
    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def main() -> int:
    stop_on_signals()
    fresh_database()
    camera = Camera()
    try:
        with started_redis() as url:
            site = Site(url)
            try:
                site.run("migrate", "--noinput")
                site.start()
                print(f"Taking screenshots of {site.url} into {OUT.relative_to(ROOT)}/", flush=True)
                take_all(camera, site)
            finally:
                site.stop()
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
        return 130
    print(f"{len(camera.saved)} screenshots saved.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
