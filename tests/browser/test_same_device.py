"""Three people play on one device: between players a screen says whom to pass the device to, and no hand is in
the page (nor on the wire) until that player taps. Each plays a turn from the same page.

Candles is the game here because its table is in the browser and every player holds a hand; the screen and the
seat switching are the room page's, the same for every game. "Against the AI" at tiles is clicked from the home
page's three ways to play."""

from __future__ import annotations

import pytest

from tests.browser import helpers
from tests.browser.helpers import WAIT_MS

pytestmark = [pytest.mark.browser, pytest.mark.live]

NAMES = ["Ana", "Bia", "Caio"]


def open_same_device_room(page, site_url: str, game: str, names: list[str]) -> None:
    """The home page's form for playing on one device, posted as a browser would (with its CSRF token)."""
    page.goto(site_url + "/")
    page.evaluate(
        """([game, names]) => {
          const form = document.createElement('form');
          form.method = 'post';
          form.action = '/play/' + game + '/same-device/';
          const add = (name, value) => {
            const input = document.createElement('input');
            input.type = 'hidden'; input.name = name; input.value = value;
            form.append(input);
          };
          add('csrfmiddlewaretoken', document.querySelector('input[name=csrfmiddlewaretoken]').value);
          names.forEach((name, i) => add(game + '-device-player_' + (i + 1), name));
          document.body.append(form);
          form.submit();
        }""",
        [game, names],
    )
    page.wait_for_url("**/r/*/")


def wait_for_pass_screen(page, name: str) -> None:
    page.wait_for_function(
        """(name) => {
          const cover = document.getElementById('pass-device');
          return cover && !cover.hidden && cover.textContent.includes(name);
        }""",
        arg=name, timeout=WAIT_MS)


def hand_cards_in_page(page) -> int:
    return page.locator(".candles-table .ct-card").count()


def test_three_players_pass_one_device_and_no_hand_shows_between_them(live_site, page):
    socket = helpers.SocketLog(page)
    with helpers.Evidence("same-device") as evidence:
        evidence.watch("device", page)
        evidence.attach("device-socket", socket.summary)
        open_same_device_room(page, live_site.url, "candles", NAMES)
        # Everyone picks at once in candles: the device goes round the table, Ana first.
        helpers.wait_for_table(page)
        helpers.wait_for_round(page, 1)
        assert page.locator("#pass-device").is_hidden()
        for turn, name in enumerate(NAMES):
            if turn > 0:
                wait_for_pass_screen(page, name)
                assert hand_cards_in_page(page) == 0, "no hand in the page while the device changes hands"
                assert page.locator("#table-area").is_hidden()
                before = len(socket.messages)
                take = page.get_by_role("button", name=f"I am {name}: show my hand")
                if turn == 1:
                    take.click()
                else:  # the button has the focus: Enter takes the turn, as a tap does
                    page.wait_for_function(
                        "() => document.activeElement && document.activeElement.id === 'pass-device-take'")
                    page.keyboard.press("Enter")
                helpers.wait_for_table(page)
                helpers.wait_for_round(page, 1)
                seat = page.evaluate("() => window.WickwiseRoom.state().seat")
                assert seat == turn
                hands = [m["view"]["hand"] for m in socket.messages[before:] if (m.get("view") or {}).get("hand")]
                assert hands, "the tap brought this player's hand"
            candle = helpers.hand(page)[0]
            helpers.pick_by_mouse(page, candle)
            if turn < len(NAMES) - 1:
                wait_for_pass_screen(page, NAMES[turn + 1])
        # Every pick is in: the round is told, and the device goes back to Ana for round 2.
        wait_for_pass_screen(page, NAMES[0])
        assert hand_cards_in_page(page) == 0
        # On the wire too: between a pass and the snapshot its tap asked for, no message held a hand.
        passing = False
        for message in socket.messages:
            if message.get("type") == "pass_device":
                passing = True
            elif message.get("type") == "snapshot" and message["you"]["seat"] is not None:
                passing = False
            elif passing:
                assert not (message.get("view") or {}).get("hand"), message
        # The game is in this browser's games, to continue from there.
        page.goto(live_site.url + "/my-games/")
        assert "Everyone on this device" in page.content()


def test_against_the_ai_at_tiles_is_one_click(live_site, page):
    page.goto(live_site.url + "/")
    page.fill("#tiles-ai-name", "Ana")
    page.locator("#tiles-against-ai").get_by_role("button", name="Play against the AI").click()
    page.wait_for_url("**/r/*/")
    page.wait_for_function(
        "() => { const s = window.WickwiseRoom && window.WickwiseRoom.state();"
        " return s && s.game && s.game.status === 'playing'; }", timeout=WAIT_MS)
    players = page.evaluate("() => window.WickwiseRoom.state().game.players")
    assert [player["bot"] for player in players] == [False, True]
    assert page.locator(".badge.bot").count() >= 1, "the AI is marked as the AI"


def name_to_act(page) -> str:
    state = page.evaluate("() => window.WickwiseRoom.state()")
    return state["room"]["seats"][state["game"]["to_act"][0]]["name"]


def test_three_play_tiles_on_one_device_and_the_pass_screen_hides_every_hand(live_site, page):
    socket = helpers.SocketLog(page)
    with helpers.Evidence("same-device-tiles") as evidence:
        evidence.watch("device", page)
        evidence.attach("device-socket", socket.summary)
        page.goto(live_site.url + "/")
        form = page.locator("#tiles-same-device")
        for number, name in enumerate(NAMES, start=1):
            form.locator(f"#id_tiles-device-player_{number}").fill(name)
        form.get_by_role("button", name="Play on this device").click()
        page.wait_for_url("**/r/*/")
        page.wait_for_function(
            "() => { const s = window.WickwiseRoom && window.WickwiseRoom.state();"
            " return s && s.game && s.game.status === 'playing'; }", timeout=WAIT_MS)
        played, passes = set(), 0
        for _turn in range(5):  # the dice's choice begins, then each of the three draws
            page.wait_for_function(
                "() => { const s = window.WickwiseRoom.state(); return s.passTo !== null"
                " || (s.seat !== null && s.game.to_act.includes(s.seat)); }", timeout=WAIT_MS)
            name = name_to_act(page)
            if page.evaluate("() => window.WickwiseRoom.state().passTo") is not None:
                wait_for_pass_screen(page, name)
                assert page.locator(".tl-hand .tl-tile, .tl-tile").count() == 0, "no tile in the page while passing"
                assert page.locator("#watching-note").is_hidden(), "the device is passed, nobody is watching"
                page.get_by_role("button", name=f"I am {name}: show my hand").click()
                passes += 1
            page.wait_for_selector(".tiles-table .tl-hand .tl-tile", timeout=WAIT_MS)
            seq = page.evaluate("() => window.WickwiseRoom.state().seq")
            page.wait_for_selector(".tiles-table .tl-begin:visible, .tiles-table .tl-draw:visible", timeout=WAIT_MS)
            begin = page.locator(".tiles-table .tl-begin:visible")
            if begin.count():
                begin.click()
            else:
                page.locator(".tiles-table .tl-draw").click()
                played.add(name)
            page.wait_for_function("(seq) => window.WickwiseRoom.state().seq > seq", arg=seq, timeout=WAIT_MS)
            if played == set(NAMES):
                break
        assert played == set(NAMES), "each of the three drew from the one device"
        assert passes >= 2, "the device was passed between the players"
