"""The table kit: what the three tables share lives once in static/js/tablekit.{css,js}, and the values the
server and a table must agree on reach the table from the server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from games import registry
from games.candles import spec as candles_spec
from games.trails import spec as trails_spec
from rooms import services

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("candles", "trails", "pots")
KIT_CSS = (ROOT / "static" / "js" / "tablekit.css").read_text()


def table_file(slug: str, ext: str) -> str:
    return (ROOT / "games" / slug / "static" / slug / f"table.{ext}").read_text()


@pytest.mark.parametrize("slug", GAMES)
def test_a_table_css_keeps_only_its_own_game(slug):
    css = table_file(slug, "css")
    prefix = slug[0] + "t"
    # The palette, hidden text, focus, buttons and folding panels are the kit's.
    for shared in ("bg", "panel", "line", "text", "muted", "honey", "ink", "focus", "radius"):
        assert f"--{prefix}-{shared}:" not in css
        assert f"--tk-{shared}:" in KIT_CSS
    kit_rules = ("visually-hidden", f"{slug}-table :focus-visible {{", "[hidden]", " details {", " summary {",
                 "box-sizing")
    for rule in kit_rules:
        assert rule not in css, rule
    assert f"{prefix}-visually-hidden" not in table_file(slug, "js")


@pytest.mark.parametrize("slug", GAMES)
def test_a_table_js_leaves_binding_mounting_and_the_move_lock_to_the_kit(slug):
    js = table_file(slug, "js")
    assert f'registerTable("{slug}",' in js
    assert "window.WickwiseGames =" not in js
    assert "PENDING_MS" not in js
    assert "bindEvents() {" not in js
    assert "this.sendLocked(" in js
    assert "ww-table tk-live" in js


@pytest.mark.parametrize("slug", GAMES)
def test_the_rule_page_loads_the_kit_before_the_table(client, slug):
    html = client.get(reverse("how_to_play", args=[slug])).content.decode()
    assert html.index("js/tablekit.css") < html.index(f"{slug}/table.css")
    assert re.search(rf'class="{slug}-table {slug}-rules ww-table"', html)


def room_config(client, game: str) -> dict:
    host = services.create_room(game=game, seat_count=2, options={}, host_name="Ana")
    page = client.get(reverse("room", args=[host.room_code])).content.decode()
    assert page.index("js/tablekit.css") < page.index(f"{game}/table.css")
    found = re.search(r'<script id="room-config" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


@pytest.mark.django_db
def test_the_room_hands_the_table_the_servers_move_answer_time(client, settings):
    settings.WICKWISE = {**settings.WICKWISE, "MOVE_ANSWER_SECONDS": 7}
    config = room_config(client, "trails")
    assert config["table"] == {"moveAnswerSeconds": 7, "pace": trails_spec.TABLE_PACE}


@pytest.mark.django_db
def test_the_candles_table_gets_the_reveal_pace_the_countdown_counts(client):
    config = room_config(client, "candles")
    assert config["table"]["moveAnswerSeconds"] == settings.WICKWISE["MOVE_ANSWER_SECONDS"]
    pace = config["table"]["revealPace"]
    assert pace == candles_spec.REVEAL_PACE
    assert registry.get("candles").table_settings == {"revealPace": pace}
    # Two placements, one of them collecting a shelf of three: the countdown's extra time is that pace.
    events = [{"type": "place", "taken": []}, {"type": "place", "taken": [1, 2, 3]}]
    expected = pace["reveal"] + 2 * pace["step"] + pace["tip"] + 2 * pace["tipStagger"] + pace["settle"]
    assert candles_spec.reveal_seconds(events) == pytest.approx(expected)
    # The table writes no pace of its own at full motion.
    assert "750" not in table_file("candles", "js")


@pytest.mark.django_db
def test_the_room_page_runs_its_modules_and_no_inline_script(client):
    host = services.create_room(game="pots", seat_count=2, options={}, host_name="Ana")
    page = client.get(reverse("room", args=[host.room_code])).content.decode()
    assert '<script type="module" src="/static/js/room/main.js"></script>' in page
    inline = re.findall(r"<script(?![^>]*\bsrc=)([^>]*)>", page)
    assert inline == [' id="room-config" type="application/json"'], "only data, no code, is written in the page"
    room_dir = ROOT / "static" / "js" / "room"
    for module in room_dir.glob("*.js"):
        source = module.read_text()
        assert "var " not in source and "function (" not in source, f"{module.name}: one modern dialect"
        for imported in re.findall(r'from "\./([\w-]+\.js)"', source):
            assert (room_dir / imported).exists(), f"{module.name} imports {imported}"
