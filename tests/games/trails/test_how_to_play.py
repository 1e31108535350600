"""The trails "How to play" page: English, the official Brazilian text word for word, and European Portuguese."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.support import text_of

LANGUAGES = ["en", "pt-br", "pt-pt"]
LENGTHS = [3, 5, 7, 9, 11, 13, 11, 9, 7, 5, 3]

# The official pt-BR rule page for trails (the product's own text): the site's pt-BR page says exactly this.
OFFICIAL_PT_BR_RULES = [
    "O mapa tem onze trilhas, uma para cada soma de 2 a 12. Cada jogador tem um estandarte para cada trilha; ele "
    "só sobe a própria trilha. A semente escolhe quem começa, e a jogada segue no sentido horário.",
    "Lançar. Na sua vez, lance os quatro dados.",
    "Formar pares. Separe os dados em dois pares. A soma de cada par indica uma trilha de 2 a 12. Escolha um jeito "
    "de formar os pares, e as suas lanternas sobem essas trilhas: uma lanterna entra em uma trilha um passo acima do "
    "seu estandarte (ou no primeiro passo), ou sobe um passo se já estiver lá. Um par de somas iguais sobe dois "
    "passos. Você tem três lanternas por vez; se um jeito de formar pares precisa de uma quarta, você se move em "
    "apenas uma das duas trilhas, e escolhe qual.",
    "Seguir em frente ou acampar. Depois de uma jogada, lance de novo para subir mais, ou acampe: seus estandartes "
    "sobem até as suas lanternas, a subida fica segura e a vez passa.",
    "Perder o equilíbrio. Se nenhum jeito de formar pares deixa uma lanterna subir, você perde o equilíbrio: as "
    "lanternas saem, seus estandartes ficam onde estavam quando a vez começou, e a vez passa.",
    "Erguer um marco. Acampe com uma lanterna em um cume e você ergue um marco ali. A trilha é sua: os estandartes "
    "dos outros jogadores nela saem, e ninguém mais a sobe.",
    "Vencer. O primeiro jogador com três marcos vence na hora. Os outros se classificam pelos marcos, e depois por "
    "quanto do mapa subiram.",
    "As trilhas",
    "As somas que os dados mais fazem têm as trilhas mais longas.",
    "Na mesa online",
    # The buttons as the pt-BR table names them (the ruling in the shared rules' README), not in English.
    "Toque em Lançar (ou nos dados). Depois de um lançamento, a bandeja mostra uma carta para cada jeito de formar "
    "os pares; toque em uma carta para jogar. Uma carta que deixa você subir em qualquer das trilhas tem dois "
    "botões, um para cada trilha.",
    "A placa mostra o risco do seu próximo lançamento: a chance exata de nenhum par poder subir. Depois toque em "
    "Lançar de novo ou em Acampar.",
    "No teclado: R lança, 1 a 3 escolhem uma carta (A e O escolhem uma trilha em uma carta com duas), C acampa, e "
    "M desliga o som.",
    "Cada decisão tem um cronômetro de 40 segundos. Se ele acabar, a mesa lança ou escolhe um par por você, e "
    "depois de uma jogada ela acampa.",
    "Um bot ocupa o lugar vazio, sempre marcado como bot.",
    "Aponte para o selo de cera de uma trilha ou para a caixa de lanternas, ou segure o dedo sobre ela, para ler o "
    "que é: qual par de dados sobe a trilha e quantos passos ela tem, e o que as lanternas fazem.",
    "Por que é justo",
    "Todo lançamento vem de uma semente secreta. Você vê a impressão digital dela quando a partida começa e a "
    "própria semente quando termina, e assim pode conferir cada lançamento. Verificar um jogo.",
]


def get_page(client, language: str):
    client.cookies["django_language"] = language
    response = client.get(reverse("how_to_play", args=["trails"]))
    assert response.status_code == 200
    return response


def table_rows(response) -> list[list[str]]:
    """The trails table: each row's header then its cells."""
    table = re.search(r'<table class="tt-steps-table">(.*?)</table>', response.content.decode(), re.S).group(1)
    return [[re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>.*?</t[hd]>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)]


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_renders_in_every_language_with_the_trails_table(client, language):
    response = get_page(client, language)
    html = response.content.decode()
    assert f'lang="{language}"' in html
    assert "trails/table.css" in html
    rows = table_rows(response)
    assert [int(cell) for cell in rows[0][1:]] == list(range(2, 13))
    assert [int(cell) for cell in rows[1][1:]] == LENGTHS
    assert f'href="{reverse("verify")}">' in html
    assert f'href="{reverse("home")}">' in html


@pytest.mark.django_db
def test_english_page_says_the_rules(client):
    response = get_page(client, "en")
    text = text_of(response)
    assert "How to play Trails" in text
    for fact in [
        "The map has eleven trails, one for each sum from 2 to 12.",
        "Throw. On your turn, throw the four dice.",
        "A pairing of equal sums climbs two steps. You have three lanterns per turn;",
        "you move on only one of the two trails, and you choose which.",
        "your banners move up to your lanterns, the climb is safe and the turn passes.",
        "your banners stay where they were when the turn began",
        "Make camp with a lantern on a summit and you raise a landmark there.",
        "The first player with three landmarks wins at once.",
        "On a keyboard: R throws, 1 to 3 pick a card (A and O pick a trail on a card with two), C makes camp,",
        "Every decision has a 40-second timer.",
        "A bot takes the empty seat, always marked as a bot.",
    ]:
        assert fact in text, fact
    assert table_rows(response)[0][0] == "Trail" and table_rows(response)[1][0] == "Steps"
    assert f'href="{reverse("verify")}">Verify a game</a>' in response.content.decode()
    assert f'href="{reverse("home")}">Play trails</a>' in response.content.decode()


@pytest.mark.django_db
def test_brazilian_page_says_the_official_text(client):
    response = get_page(client, "pt-br")
    text = text_of(response)
    assert "Como jogar Trilhas" in text
    missing = [paragraph for paragraph in OFFICIAL_PT_BR_RULES if paragraph not in text]
    assert not missing, "\n".join(missing)
    rows = table_rows(response)
    assert rows[0][0] == "Trilha" and rows[1][0] == "Passos"
    assert f'href="{reverse("verify")}">Verificar um jogo</a>' in response.content.decode()


@pytest.mark.django_db
def test_european_page_speaks_european_portuguese(client):
    response = get_page(client, "pt-pt")
    text = text_of(response)
    for phrase in [
        "Como jogar Trilhos",
        "O mapa tem onze trilhos, um para cada soma de 2 a 12.",
        "Na tua vez, lança os quatro dados.",
        "Tens três lanternas por vez;",
        "Acampa com uma lanterna num cume e ergues ali um marco.",
        "Cada decisão tem um cronómetro de 40 segundos.",
        "Toca em Lançar (ou nos dados).",
        "Porque é justo",
    ]:
        assert phrase in text, phrase
    rows = table_rows(response)
    assert rows[0][0] == "Trilho" and rows[1][0] == "Passos"
    assert f'href="{reverse("verify")}">Verificar uma partida</a>' in response.content.decode()
    lowered = text.lower()
    assert "você" not in lowered and "cronômetro" not in lowered and "jeito" not in lowered
    gerunds = [word for word in re.findall(r"\b\w+(?:ando|endo|indo)\b", lowered) if word not in {"quando"}]
    assert not gerunds, gerunds
