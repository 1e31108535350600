"""Every page of the site runs under its Content-Security-Policy without a single violation: the home page,
the rules, a room in play and the Verify page of every game, the account pages, the error pages and the
admin. Chromium reports each blocked script, style or connection as a `securitypolicyviolation` event."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from games import registry
from rooms import services
from rooms.models import Game

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

WAIT_MS = 20_000

COLLECT_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
});
"""


def finished(slug: str) -> Game:
    """A game of `slug` played to its end through the services, the table choosing for every seat."""
    spec = registry.get(slug)
    ticket = services.create_room(game=slug, seat_count=spec.min_seats, options={}, host_name="Ana")
    game = services.start_game(room_code=ticket.room_code, seat=0)
    for _move in range(2000):
        game.refresh_from_db()
        if game.status != Game.Status.PLAYING:
            return game
        seat = spec.engine.to_act(game.state)[0]
        services.submit_move(room_code=game.room_code, seat=seat, seq=game.seq,
                             action=spec.engine.table_choice(game.state, seat), by="bot")
    raise AssertionError(f"{slug} did not end")


@pytest.fixture
def finished_games(transactional_db):
    """Made before the live site starts."""
    return {slug: finished(slug) for slug in (spec.slug for spec in registry.all_games())}


@pytest.fixture
def staff(transactional_db):
    get_user_model().objects.create_superuser("staff", "staff@example.com", "pw-staff-12345")


def visit(page, url: str, *, ready: str | None = None, status: int | None = 200) -> None:
    response = page.goto(url)
    if status is not None:
        assert response.status == status, url
    assert "script-src 'self'" in response.headers["content-security-policy"], url
    if ready:
        page.wait_for_selector(ready, timeout=WAIT_MS)
    page.wait_for_timeout(300)  # reports are queued: let them arrive


def test_no_page_of_the_site_breaks_its_content_security_policy(finished_games, staff, live_site, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US")
    context.add_init_script(COLLECT_VIOLATIONS)
    page = context.new_page()
    violations: dict[str, list[str]] = {}

    def collect(name: str) -> None:
        found = page.evaluate("window.__violations")
        if found:
            violations[name] = found

    base = live_site.url
    try:
        # The listener hears what the policy blocks: an inline style attribute, as a template might have.
        visit(page, base + "/")
        page.evaluate("document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">x</p>')")
        page.wait_for_function("() => window.__violations.length > 0", timeout=WAIT_MS)
        assert "style-src" in page.evaluate("window.__violations")[0]
        for path in ("/", "/return/", "/my-games/", "/accounts/login/", "/accounts/signup/", "/verify/"):
            visit(page, base + path)
            collect(path)
        visit(page, base + "/no-such-page/", status=404)
        collect("404")
        for slug, game in finished_games.items():
            visit(page, f"{base}/how-to-play/{slug}/")
            collect(f"how to play {slug}")
            visit(page, f"{base}/verify/?room={game.room_code}&n={game.number}", ready="#verify[data-result]")
            assert page.get_attribute("#verify", "data-result") == "pass", slug
            collect(f"verify {slug}")
            # A room in play, from this browser's own seat: the home page's one click against bots (tiles, with
            # its three ways to play, says "the AI").
            visit(page, base + "/")
            page.locator(f"section[aria-labelledby=game-{slug}-title]").get_by_role(
                "button", name=re.compile(r"^Play against (bots|the AI)$")).click()
            page.wait_for_url("**/r/*/", timeout=WAIT_MS)
            page.wait_for_function("() => document.querySelector('[data-connection]') === null || "
                                   "!document.body.textContent.includes('Connecting')", timeout=WAIT_MS)
            page.wait_for_timeout(2500)  # the game starts and its table draws a few moves
            collect(f"room {slug}")
            visit(page, f"{base}/r/{game.room_code}/")  # a room whose game is over, as a visitor
            collect(f"finished room {slug}")

        visit(page, base + "/accounts/login/")
        page.fill("input[name=username]", "staff")
        page.fill("input[name=password]", "pw-staff-12345")
        page.locator("main form button[type=submit], main form input[type=submit]").first.click()
        page.wait_for_load_state()
        game = next(iter(finished_games.values()))
        for path in ("/accounts/password/", "/admin/", "/admin/rooms/game/", f"/admin/rooms/game/{game.pk}/change/",
                     "/admin/rooms/move/", "/admin/rooms/room/", "/admin/candles/candlesgame/"):
            visit(page, base + path)
            collect(path)
    finally:
        context.close()
    assert violations == {}
