"""The rule pages name the table's buttons as the table in that language does, and each has its "At the
online table" section."""

from __future__ import annotations

import pytest
from django.urls import reverse


def page(client, slug: str, language: str) -> str:
    return client.get(reverse("how_to_play", args=[slug]), HTTP_ACCEPT_LANGUAGE=language).content.decode()


@pytest.mark.parametrize("slug", ["candles", "trails", "pots"])
@pytest.mark.parametrize("language, heading", [("en", "At the online table"), ("pt-br", "Na mesa online"),
                                               ("pt-pt", "Na mesa online")])
def test_every_rule_page_says_how_the_online_table_works(client, slug, language, heading):
    assert f'<h2 id="rules-online">{heading}</h2>' in page(client, slug, language)


def test_the_pots_page_explains_its_buttons_and_the_sigma():
    from django.test import Client

    english = page(Client(), "pots", "en")
    assert "tap Draw to take a card or Stop" in english and "after Σ, the total" in english
    brazilian = page(Client(), "pots", "pt-br")
    assert "toque em Comprar" in brazilian and "Parar" in brazilian


@pytest.mark.parametrize("language", ["pt-br", "pt-pt"])
def test_the_trails_page_in_portuguese_names_the_buttons_in_portuguese(client, language):
    html = page(client, "trails", language)
    assert "Lançar" in html and "Acampar" in html
    assert "Throw" not in html and "Make camp" not in html
