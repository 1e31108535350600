"""The in-browser verifier in Chromium: fairness.js and candles/rules.js reproduce the Python vectors and
replays, and the Verify page checks a finished game served by the live site.

WebCrypto exists only in a secure context, and http://127.0.0.1 is one: the first tests answer every
request to a made-up 127.0.0.1 origin with page.route (nothing listens there); the page tests use the
live site, which also runs on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
from pathlib import Path
from urllib.parse import urlparse

import pytest

from games import fairness, replay
from games.candles import engine as candles
from tests.browser.conftest import CHROMIUM_ARGS, chromium_path
from tests.games.test_replay import play_random_game
from tests.games.test_verify_command import play_finished_game

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ORIGIN = "http://127.0.0.1:9"  # answered by page.route, never contacted
GAME_SCRIPTS = sorted(ROOT.glob("games/*/static/*/rules.js")) + sorted(ROOT.glob("games/*/static/*/present.js"))
FILES = {
    "/fairness.js": ROOT / "static" / "js" / "fairness.js",
    **{f"/{path.parent.name}/{path.name}": path for path in GAME_SCRIPTS},
    "/verify.js": ROOT / "static" / "js" / "verify.js",
    "/vectors.json": ROOT / "games" / "fairness_vectors.json",
}
# Every game's rules and presenter, as the Verify page loads them.
HARNESS = """<!doctype html><meta charset="utf-8"><title>verifier</title>""" + "".join(
    f'<script src="{name}"></script>' for name in FILES if name.endswith(".js"))
VECTORS = json.loads(FILES["/vectors.json"].read_text())


@pytest.fixture(scope="module")
def module_browser(request):
    """Chromium for this module. Its live-site tests run among the transactional tests, before others
    that call asyncio.run, and the shared session browser would leave Playwright's event loop running
    in this thread for those; so this module starts its own and stops it when it is done."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:  # the session's browser already runs: share it, as a second Playwright cannot start here
        yield request.getfixturevalue("browser")
        return
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def module_page(module_browser):
    context = module_browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US")
    yield context.new_page()
    context.close()


@pytest.fixture
def scripts(module_page):
    """A page on a secure 127.0.0.1 origin with fairness.js, rules.js and verify.js loaded."""

    def answer(route):
        path = urlparse(route.request.url).path
        if path == "/":
            route.fulfill(status=200, content_type="text/html", body=HARNESS)
        elif path in FILES:
            kind = "application/json" if path.endswith(".json") else "text/javascript"
            route.fulfill(status=200, content_type=kind, body=FILES[path].read_bytes())
        else:
            route.fulfill(status=404, body="")

    page = module_page
    page.route(f"{ORIGIN}/**", answer)
    page.goto(f"{ORIGIN}/")
    page.wait_for_function("window.WickwiseFairness && window.WickwiseRules && window.WickwiseVerify")
    assert page.evaluate("window.isSecureContext && window.WickwiseFairness.isAvailable()")
    return page


COMPUTE_VECTORS = """async () => {
  const F = window.WickwiseFairness, R = window.WickwiseRules.candles;
  const v = await (await fetch("/vectors.json")).json();
  const vectors = [];
  for (const vec of v.vectors) {
    const p = vec.mix_parts;
    const mix = F.mixString({game: p.game, roomCode: p.room_code, number: p.number, clientSeeds: p.client_seeds});
    const rng = await F.createRng(vec.seed, mix);
    const streams = [];
    for (const s of vec.streams) {
      streams.push({label: s.label, first_64_bytes: F.bytesToHex(await rng.stream(s.label).read(64))});
    }
    const uniform = [];
    for (const u of vec.uniform) {
      const words = [], values = [];
      const raw = rng.stream(u.label), drawn = rng.stream(u.label);
      for (let i = 0; i < u.words.length; i++) words.push(await raw.word());
      for (let i = 0; i < u.values.length; i++) values.push(await drawn.uniform(u.n));
      uniform.push({label: u.label, n: u.n, words, values});
    }
    const deals = [];
    for (const d of vec.candles_deals) {
      const state = await R.setup(d.seats, {round_seconds: 30}, rng);
      deals.push({seats: d.seats, hands: state.hands, shelves: state.shelves});
    }
    vectors.push({
      name: vec.name, seed: vec.seed, mix_parts: p, mix, fingerprint: await F.fingerprint(vec.seed), streams,
      uniform, shuffle_deck: await rng.stream("deck").shuffle(R.DECK), candles_deals: deals,
    });
  }
  const c = v.rejection;
  const rng = await F.createRng(c.seed, c.mix);
  const raw = rng.stream(c.label), drawn = rng.stream(c.label);
  const words = [];
  for (let i = 0; i < 4; i++) words.push(await raw.word());
  const values = [await drawn.uniform(c.n), await drawn.uniform(c.n)];
  return {vectors, rejection: {...c, words, values}};
}"""


def test_the_browser_reproduces_every_vector(scripts):
    computed = scripts.evaluate(COMPUTE_VECTORS)
    assert computed["vectors"] == VECTORS["vectors"]
    assert computed["rejection"] == VECTORS["rejection"]


def test_the_browser_validates_seeds_like_python(scripts):
    candidates = ["a", "x" * 64, "x" * 65, "", "a b", "a,b", "é", "a\n", "Bob_42", "-_-", "a|b"]
    browser = scripts.evaluate("(values) => values.map(WickwiseFairness.isValidClientSeed)", candidates)
    assert browser == [fairness.is_valid_client_seed(value) for value in candidates]
    seeds = ["00" * 32, "AB" * 32, "00" * 31, "0" * 64 + "\n"]
    browser = scripts.evaluate("(values) => values.map(WickwiseFairness.isValidSeed)", seeds)
    assert browser == [bool(fairness.SEED_PATTERN.fullmatch(seed)) for seed in seeds]
    assert scripts.evaluate("""async () => {
      const s = (await WickwiseFairness.createRng("00".repeat(32), "m")).stream("x");
      try { await s.uniform(2 ** 32 + 1); return false; } catch (e) { return e instanceof RangeError; }
    }""")


REPLAY = """async (record) => {
  const F = window.WickwiseFairness, R = window.WickwiseRules[record.game];
  const mix = F.mixString({game: record.game, roomCode: record.room_code, number: record.number,
                           clientSeeds: record.client_seeds});
  let state = await R.setup(record.players.length, record.options, await F.createRng(record.seed, mix));
  const events = [];
  for (const move of record.moves) {
    const applied = R.apply(state, move.seat, move.action);
    state = applied.state;
    events.push(applied.events);
  }
  return {state, events, outcome: R.outcome(state)};
}"""


def python_events(record: dict) -> list[list[dict]]:
    mix = fairness.mix_string(game=record["game"], room_code=record["room_code"], number=record["number"],
                              client_seeds=record["client_seeds"])
    rng = fairness.Rng(record["seed"], mix)
    state = candles.setup(len(record["players"]), record["options"], rng)
    events = []
    for move in record["moves"]:
        state, applied = candles.apply(state, move["seat"], move["action"], rng)
        events.append(applied)
    return json.loads(json.dumps(events))


def test_the_sample_game_replays_to_the_python_state(scripts):
    record = VECTORS["sample_record"]
    result = scripts.evaluate(REPLAY, record)
    assert replay.state_bytes(result["state"]) == replay.state_bytes(VECTORS["sample_final_state"])
    assert result["outcome"] == record["result"]
    assert result["events"] == python_events(record)


@pytest.mark.parametrize("seats", [2, 3, 5, 10])
def test_random_games_replay_to_the_same_state_and_events_in_both(scripts, seats):
    for game in range(3):
        record, live_state = play_random_game(fairness.new_seed(), seats, random.Random(seats * 10 + game))
        result = scripts.evaluate(REPLAY, record)
        assert replay.state_bytes(result["state"]) == replay.state_bytes(live_state)
        assert result["events"] == python_events(record)
        assert result["outcome"] == record["result"]


def failed_checks(page, record) -> list[str]:
    checks = page.evaluate("async (record) => await WickwiseVerify.verify(record)", record)
    return [check["name"] for check in checks if not check["ok"]]


def test_the_browser_checks_agree_with_python_on_tampering(scripts):
    record, _ = play_random_game(f"{5:064x}", 4, random.Random(5))
    tampered = {
        "none": record,
        "seed": {**record, "seed": f"{6:064x}"},
        "result": {**record, "result": [{**record["result"][0], "score": record["result"][0]["score"] + 1},
                                        *record["result"][1:]]},
        "move": copy.deepcopy(record),
        "client seed": {**record, "client_seeds": ["x"] * 4, "players": [{"name": "p", "bot": False}] * 4},
        "not over": {**record, "status": "playing", "seed": None, "moves": None},
        "game": {**record, "game": "chess"},
    }
    tampered["move"]["moves"][2]["action"]["candle"] = 105
    for name, changed in tampered.items():
        python = [check.name for check in replay.verify_record(changed) if not check.ok]
        browser = failed_checks(scripts, changed)
        assert ("move" in python) == ("move" in browser), name
        assert ("result" in python) == ("result" in browser), name
        assert bool(python) == bool(browser), name
        if python:
            assert python[0] == browser[0], name


def test_a_game_ended_early_verifies_in_the_browser(scripts):
    record, _ = play_random_game(f"{9:064x}", 3, random.Random(9), stop_after=7)
    checks = scripts.evaluate("async (record) => await WickwiseVerify.verify(record)", record)
    assert all(check["ok"] for check in checks)
    names = [check["name"] for check in checks]
    assert "ended_early" in names
    early = next(check for check in checks if check["name"] == "ended_early")
    assert "(an administrator ended it)" in early["lines"][0]  # the record's "admin", in words
    unfinished = [c for c in checks if c["name"] == "step" and "not finished" in c["title"]]
    assert unfinished and "1 of 3 picks" in unfinished[0]["lines"][0]


# --- the Verify page, against a game finished in the test database and served by the live site ------

@pytest.fixture
def finished_game(transactional_db):
    """Made before the live site starts (fixtures run in the order a test names them)."""
    return play_finished_game(seats=4)


def result_of(page) -> str:
    page.wait_for_selector("#verify[data-result]")
    return page.get_attribute("#verify", "data-result")


@pytest.mark.live
def test_the_verify_page_checks_a_finished_game(finished_game, live_site, module_page):
    page = module_page
    code = finished_game.room_code
    page.goto(f"{live_site.url}/verify/?room={code}&n=1")
    assert result_of(page) == "pass"
    checks = page.locator("#verify-checks > li")
    assert checks.count() == 7 + 6 + 1  # record .. deal, six rounds, the result
    assert page.locator("#verify-checks > li.check-fail").count() == 0
    assert page.locator("#verify-checks > li.check-pass").count() == 14
    assert "All 14 checks passed" in page.text_content("[role=status]")
    assert "Round 6" in page.text_content("#verify-checks")
    assert finished_game.fingerprint in page.text_content("#verify-checks [data-check=fingerprint]")
    # Bots are numbered among the bots, as the room names them.
    bot_seats = [seat for seat, player in enumerate(finished_game.players) if player["bot"]]
    assert bot_seats, "the test game needs a bot"
    seeds = page.text_content("#verify-checks [data-check=client_seeds]")
    for number, seat in enumerate(bot_seats, start=1):
        assert f"Bot {number} (seat {seat + 1})" in seeds
    # Every bot carries a badge (an element, which no name can imitate); people carry none.
    marked = page.eval_on_selector_all(
        "#verify-players li", "(rows) => rows.map((row) => Boolean(row.querySelector('.badge.bot')))")
    assert marked == [player["bot"] for player in finished_game.players]
    assert page.is_hidden("#verify-error")

    # The fetched record is in the text box: change the result, and the page says where it fails.
    record = json.loads(page.input_value("#verify-record"))
    assert record["seed"] and record["moves"]
    record["result"][0]["score"] += 5
    page.fill("#verify-record", json.dumps(record))
    page.click("#verify-paste button[type=submit]")
    page.wait_for_selector("#verify[data-result=fail]")
    failed = page.locator("#verify-checks > li.check-fail")
    assert failed.count() == 1
    assert failed.get_attribute("data-check") == "result"
    assert "Failed:" in failed.text_content()
    assert "1 of 14 checks failed" in page.text_content("[role=status]")

    # A changed move fails that move.
    record = json.loads(page.input_value("#verify-record"))
    record["result"][0]["score"] -= 5
    record["moves"][0]["action"]["candle"] = 0
    page.fill("#verify-record", json.dumps(record))
    page.click("#verify-paste button[type=submit]")
    page.wait_for_function("() => document.querySelector('#verify-checks > li.check-fail[data-check=move]') !== null")
    assert "Move #1" in page.text_content("#verify-checks > li.check-fail[data-check=move]")


@pytest.mark.live
def test_the_verify_page_explains_what_it_cannot_check(finished_game, live_site, module_page):
    page = module_page
    code = finished_game.room_code
    page.goto(f"{live_site.url}/verify/")

    page.fill("#verify-room", "ZZZZZZ")
    page.fill("#verify-number", "1")
    page.click("#verify-fetch button[type=submit]")
    page.wait_for_selector("#verify-error:not([hidden])")
    assert "There is no game 1 in room ZZZZZZ" in page.text_content("#verify-error")

    # Game 2 waits in the lobby: its seed is still secret.
    page.fill("#verify-room", code.lower())
    page.fill("#verify-number", "2")
    page.click("#verify-fetch button[type=submit]")
    page.wait_for_selector("#verify[data-result=fail]")
    assert "not over yet" in page.text_content("#verify-error") and "secret" in page.text_content("#verify-error")
    assert page.get_attribute("#verify-checks > li.check-fail", "data-check") == "over"

    page.fill("#verify-record", "{not json")
    page.click("#verify-paste button[type=submit]")
    page.wait_for_function("() => document.querySelector('#verify-error').textContent.includes('not valid JSON')")
    assert page.is_hidden("#verify-results")


@pytest.mark.live
def test_the_verify_page_fits_a_phone(finished_game, live_site, module_browser):
    context = module_browser.new_context(viewport={"width": 360, "height": 740}, locale="en-US", has_touch=True)
    try:
        page = context.new_page()
        page.goto(f"{live_site.url}/verify/?room={finished_game.room_code}&n=1")
        assert result_of(page) == "pass"
        overflow = page.evaluate("""() => [...document.querySelectorAll('#verify, #verify *')]
            .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
            .map((el) => el.outerHTML.slice(0, 80))""")
        assert overflow == []
    finally:
        context.close()
