import pytest

pytestmark = pytest.mark.browser


def test_chromium_runs_a_page(page):
    page.set_content("<button onclick=\"this.textContent='clicked'\">press</button>")
    page.click("button")
    assert page.text_content("button") == "clicked"
