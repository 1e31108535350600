"""The candles "How to play" page: it renders in every language and says the rules."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

LANGUAGES = ["en", "pt-br", "pt-pt"]


def get_page(client, language: str):
    client.cookies["django_language"] = language
    return client.get(reverse("how_to_play", args=["candles"]))


def text_of(response) -> str:
    """The page's words, without tags and with whitespace folded, as a reader sees them."""
    html = response.content.decode()
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_renders_in_every_language(client, language):
    response = get_page(client, language)
    assert response.status_code == 200
    assert f'lang="{language}"' in response.content.decode()
    assert "candles/table.css" in response.content.decode()


@pytest.mark.django_db
def test_english_page_has_the_key_rule_facts(client):
    text = text_of(get_page(client, "en"))
    for fact in [
        "104 candles, numbered 1 to 104. Every player gets 6 of them.",
        "4 shelves. Each shelf starts with one candle from the deck.",
        "a multiple of 5 gives 2, a multiple of 10 gives 3, a multiple of 11 gives 5, and 55 (both at once) gives 7.",
        "A shelf holds five candles.",
        "collects 9, 11, 16, 17 and 18: five drops of wax.",
        "Candle 18 gives 1 drop. Candle 30 is smoky and gives 3.",
        "You collect the shelf with the least wax (the first one on a tie)",
        "The player with the least wax wins. Ties share the place.",
        "the table plays your lowest-risk candle for you.",
    ]:
        assert fact in text, fact


@pytest.mark.django_db
def test_links_to_verify_and_to_play(client):
    html = get_page(client, "en").content.decode()
    assert f'href="{reverse("verify")}">Verify a game</a>' in html
    assert f'href="{reverse("home")}">Play candles</a>' in html


@pytest.mark.django_db
def test_pictures_show_the_examples(client):
    """The two pictured examples: candles 18 and 30, and the full shelf 9 11 16 17 18."""
    html = get_page(client, "en").content.decode()
    numbers = re.findall(r'class="ct-num">(\d+)<', html)
    assert numbers[:2] == ["18", "30"]
    assert numbers[2:7] == ["9", "11", "16", "17", "18"]
    assert 'data-wax="3"><span class="ct-flame"></span><span class="ct-body"><span class="ct-num">30<' in html


@pytest.mark.django_db
def test_unknown_game_is_not_found(client):
    assert client.get(reverse("how_to_play", args=["nosuchgame"])).status_code == 404
