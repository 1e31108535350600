"""The pots "How to play" page: English, the official pt-BR text word for word, and European Portuguese."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.support import text_of

LANGUAGES = ["en", "pt-br", "pt-pt"]

# The official pt-BR rule page (its title "Como jogar" is shown with the game's name): the site's pt-BR
# "How to play" says exactly these paragraphs, list items and table cells.
OFFICIAL_PT_BR_RULES = [
    "O baralho tem 94 cartas. Toda carta fica virada para cima, e você vê todas as fileiras. Só a ordem do monte é "
    "secreta. A semente escolhe o primeiro a distribuir, e o jogo segue para a esquerda.",
    "A distribuição. Cada mão começa com uma carta para cada jogador, virada para cima. Uma carta de número vai "
    "para a sua fileira. Uma carta de mel ou o pavio gêmeo fica ao lado dela.",
    "Comprar ou parar. Na sua vez, compre uma carta do monte, ou pare e guarde os seus pontos. Quem para sai da mão.",
    "O derrame. Um número que já está na sua fileira derrama o seu pote. Você marca 0 na mão e sai dela.",
    "O pires. Se você tem um pires, um número repetido não derrama o seu pote. O pires e a carta repetida saem, e "
    "você continua na mão. Você pode ter só um pires.",
    "O apagador. Escolha qualquer jogador que ainda está na mão, até você. Esse jogador para na hora e guarda os "
    "seus pontos.",
    "O fole. Escolha qualquer jogador que ainda está na mão, até você. Esse jogador compra três cartas. As compras "
    "param antes se ele derramar ou encher o pote.",
    "O pote cheio. Sete números diferentes na sua fileira enchem o pote. A mão termina na hora, e você ganha 15 "
    "pontos a mais.",
    "A pontuação de uma mão. Some os seus números. Dobre essa soma se você tem o pavio gêmeo. Depois some as suas "
    "cartas de mel, e 15 por um pote cheio. Exemplo: 3, 7 e 12 com o pavio gêmeo e um +4 valem (3 + 7 + 12) × 2 + "
    "4 = 48.",
    "O fim. O jogo termina depois da mão em que um jogador chega a 200 pontos. Vence o maior total. Um empate no "
    "topo joga mais uma mão.",
    "O que cada carta faz",
    "Número, 0 a 12", "Vai para a sua fileira. Uma repetição derrama o seu pote.",
    "Mel, +2 a +10", "Soma os seus pontos. Nunca derrama.",
    "Pavio gêmeo, ×2", "Dobra a soma dos seus números, não a do mel.",
    "Apagador", "Um jogador à sua escolha para e guarda os seus pontos.",
    "Fole", "Um jogador à sua escolha compra três cartas.",
    "Pires", "Segura um derrame. Guarde só um.",
    "Por que é justo",
    "Todo embaralhamento vem de uma semente secreta. Você vê a impressão digital dela quando o jogo começa e a "
    "própria semente quando ele termina, e assim pode conferir cada carta. Verificar um jogo.",
]


def get_page(client, language: str):
    client.cookies["django_language"] = language
    return client.get(reverse("how_to_play", args=["pots"]))


def cells(response) -> list[tuple[str, str]]:
    """The card table's rows: (card, what it does), as text."""
    html = response.content.decode()
    table = html.split('class="pt-rules-cards"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<th scope=\"row\">(.*?)</th>\s*<td>(.*?)</td>", table, re.S)
    clean = lambda part: re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", part)).strip()  # noqa: E731
    return [(clean(card).split(" ", 1)[1] if clean(card)[:1] in "+×0123456789" else clean(card), clean(does))
            for card, does in rows]


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_renders_in_every_language(client, language):
    response = get_page(client, language)
    assert response.status_code == 200
    html = response.content.decode()
    assert f'lang="{language}"' in html
    assert "pots/table.css" in html
    assert f'href="{reverse("how_to_play", args=["candles"])}"' in html  # the other games are linked


@pytest.mark.django_db
def test_english_page_says_the_rules(client):
    response = get_page(client, "en")
    text = text_of(response)
    assert "How to play Pots" in text
    for fact in [
        "The deck has 94 cards. Every card lies face up, and you see every row. Only the order of the deck is secret.",
        "The deal. Each hand starts with one card for every player, face up.",
        "Draw or stop. On your turn, draw a card from the deck, or stop and keep your points.",
        "The spill. A number that is already in your row spills your pot. You score 0 for the hand and leave it.",
        "You can hold only one saucer.",
        "The snuffer. Choose any player still in the hand, yourself included.",
        "That player draws three cards. The draws stop early if they spill or fill the pot.",
        "Seven different numbers in your row fill the pot. The hand ends at once, and you get 15 more points.",
        "(3 + 7 + 12) × 2 + 4 = 48.",
        "The game ends after the hand in which a player reaches 200 points. The highest total wins.",
        "A tie at the top plays one more hand.",
    ]:
        assert fact in text, fact
    assert [card for card, _ in cells(response)] == [
        "Number, 0 to 12", "Honey, +2 to +10", "Twin wick, ×2", "Snuffer", "Bellows", "Saucer"]


@pytest.mark.django_db
def test_brazilian_portuguese_says_the_official_rules(client):
    response = get_page(client, "pt-br")
    text = text_of(response)
    assert "Como jogar Potes" in text
    missing = [paragraph for paragraph in OFFICIAL_PT_BR_RULES if paragraph not in text]
    assert not missing, "\n".join(missing)
    assert cells(response) == [
        ("Número, 0 a 12", "Vai para a sua fileira. Uma repetição derrama o seu pote."),
        ("Mel, +2 a +10", "Soma os seus pontos. Nunca derrama."),
        ("Pavio gêmeo, ×2", "Dobra a soma dos seus números, não a do mel."),
        ("Apagador", "Um jogador à sua escolha para e guarda os seus pontos."),
        ("Fole", "Um jogador à sua escolha compra três cartas."),
        ("Pires", "Segura um derrame. Guarde só um."),
    ]
    assert f'href="{reverse("verify")}">Verificar um jogo</a>' in response.content.decode()


@pytest.mark.django_db
def test_european_portuguese(client):
    response = get_page(client, "pt-pt")
    text = text_of(response)
    for phrase in ["Como jogar Potes", "Na tua vez, compra uma carta do monte, ou para e guarda os teus pontos.",
                   "Pavio gémeo, ×2", "Escolhe qualquer jogador que ainda esteja na mão, mesmo tu.",
                   "Só podes ter um pires.", "Porque é justo"]:
        assert phrase in text, phrase
    assert "você" not in text.lower() and "gêmeo" not in text and "fileira" not in text
    assert f'href="{reverse("verify")}">Verificar uma partida</a>' in response.content.decode()


@pytest.mark.django_db
def test_links_to_verify_and_to_play(client):
    html = get_page(client, "en").content.decode()
    assert f'href="{reverse("verify")}">Verify a game</a>' in html
    assert f'href="{reverse("home")}">Play pots</a>' in html


@pytest.mark.django_db
def test_the_scoring_example_is_pictured(client):
    html = get_page(client, "en").content.decode()
    figure = html.split('class="pt-figure"', 1)[1].split("</figure>", 1)[0]
    assert re.findall(r'class="pt-face">([^<]+)<', figure) == ["3", "7", "12", "×2", "+4"]
    assert "= 48" in figure
