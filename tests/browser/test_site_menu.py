"""The site's header on a phone: the links fold behind a Menu button that keyboard and touch open and close;
on a desktop every link is in sight and there is no Menu button."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.live]


def open_home(browser, live_site, **options):
    context = browser.new_context(locale="en-US", **options)
    page = context.new_page()
    page.goto(live_site.url + "/")
    return context, page


def test_on_a_phone_the_links_fold_behind_the_menu_button(browser, live_site):
    context, page = open_home(browser, live_site, viewport={"width": 360, "height": 740}, has_touch=True,
                              is_mobile=True)
    toggle = page.get_by_role("button", name="Menu")
    verify = page.locator(".site-nav").get_by_role("link", name="Verify a game")
    assert toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false"
    assert not verify.is_visible() and not page.locator("#language-select").is_visible()
    header = page.locator(".site-header").bounding_box()
    assert header["height"] < 80, "the folded header is one short line"

    toggle.tap()
    assert toggle.get_attribute("aria-expanded") == "true"
    assert verify.is_visible() and page.locator("#language-select").is_visible()

    verify.focus()
    page.keyboard.press("Escape")  # folds the menu and gives the focus back to its button
    assert toggle.get_attribute("aria-expanded") == "false" and not verify.is_visible()
    assert page.evaluate("document.activeElement.classList.contains('nav-toggle')")

    page.keyboard.press("Enter")
    assert verify.is_visible()
    verify.click()
    page.wait_for_url("**/verify/")
    context.close()


def test_on_a_desktop_every_link_shows_without_a_menu_button(browser, live_site):
    context, page = open_home(browser, live_site, viewport={"width": 1280, "height": 860})
    assert not page.get_by_role("button", name="Menu").is_visible()
    for name in ["Play", "My games", "Return to game", "Verify a game", "Log in", "Sign up"]:
        assert page.locator(".site-nav").get_by_role("link", name=name, exact=True).is_visible(), name
    assert page.locator("#language-select").is_visible()
    context.close()
