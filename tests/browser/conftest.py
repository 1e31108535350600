"""A real Chromium (Debian's, found on PATH) driven through Playwright's sync API."""

from __future__ import annotations

import shutil

import pytest

CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]


def chromium_path() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("Chromium is not on PATH: install Debian's chromium package (.ci/run does).")


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test module. Playwright's sync API keeps an event loop running in this thread
    while it is open; closing it at the end of each module lets later tests use asyncio.run."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US")
    yield ctx
    ctx.close()


@pytest.fixture
def page(context):
    return context.new_page()
