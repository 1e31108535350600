"""The pt-BR and pt-PT catalogs: complete, faithful to their placeholders, and really used by the site."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.urls import reverse

from tests.support import text_of

ROOT = Path(__file__).resolve().parent.parent
LOCALES = {"pt_BR": "(n > 1)", "pt_PT": "(n != 1)"}
DOMAINS = ["django", "djangojs"]
LOCALE_DIRS = [ROOT / "locale", *sorted((ROOT / "games").glob("*/locale"))]  # the project's, then each game's
CATALOGS = [
    directory / locale / "LC_MESSAGES" / f"{domain}.po"
    for directory in LOCALE_DIRS for locale in LOCALES for domain in DOMAINS
]

# %(name)s, %s, %d, {n}, {}: what Python, Django's interpolate() and str.format fill in.
PLACEHOLDER = re.compile(r"%\(\w+\)[-#0 +]*\d*(?:\.\d+)?[sdifr]|%[-#0 +]*\d*(?:\.\d+)?[sdifr]|\{\w*\}")
TAG = re.compile(r"</?[a-zA-Z][^>]*>")


def read_catalog(path: Path):
    with path.open("rb") as handle:
        return read_po(handle, locale=path.parent.parent.name)


def entries(path: Path):
    """(msgid, msgid_plural or None, [msgstr forms]) for every live entry."""
    for message in read_catalog(path):
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            yield message, message.id[0], message.id[1], list(message.string)
        else:
            yield message, message.id, None, [message.string]


def placeholders(text: str) -> Counter:
    return Counter(PLACEHOLDER.findall(text.replace("%%", "")))


def tags(text: str) -> Counter:
    return Counter(TAG.findall(text))


def test_every_catalog_exists():
    for path in CATALOGS:
        assert path.is_file(), f"{path.relative_to(ROOT)} is missing: run makemessages for pt_BR and pt_PT"


@pytest.mark.parametrize("path", CATALOGS, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_untranslated_or_fuzzy_entries(path):
    catalog = read_catalog(path)
    assert not catalog.fuzzy, "the header is marked fuzzy"
    problems = []
    for message, msgid, _plural, forms in entries(path):
        if message.fuzzy:
            problems.append(f"fuzzy: {msgid!r}")
        if not all(form.strip() for form in forms):
            problems.append(f"untranslated: {msgid!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", CATALOGS, ids=lambda path: str(path.relative_to(ROOT)))
def test_plural_forms(path):
    catalog = read_catalog(path)
    assert catalog.num_plurals == 2
    assert catalog.plural_expr.replace(" ", "") == LOCALES[path.parent.parent.name].replace(" ", "")
    for _message, msgid, plural, forms in entries(path):
        if plural is not None:
            assert len(forms) == 2, msgid


@pytest.mark.parametrize("path", CATALOGS, ids=lambda path: str(path.relative_to(ROOT)))
def test_placeholders_and_tags_are_kept(path):
    problems = []
    for _message, msgid, plural, forms in entries(path):
        expected = placeholders(msgid)
        if plural is not None:
            # Every form keeps the number: in pt-BR the "one" form also covers 0.
            expected = placeholders(plural) | expected
        for form in forms:
            if placeholders(form) != expected:
                problems.append(f"{msgid!r}: {sorted(placeholders(form).elements())} != {sorted(expected.elements())}")
            if tags(form) != tags(msgid):
                problems.append(f"{msgid!r}: HTML tags differ")
    assert not problems, "\n".join(problems)


# Words that belong to the other variety; a hit usually means a string was copied across.
BRAZILIAN_ONLY = re.compile(
    r"\b(tela|celular\w*|usuári\w*|registr\w*|senhas?|compartilh\w*|arquivos?|você|vocês|conectad\w*|"
    r"conexão|acessar|equipe|time)\b", re.IGNORECASE)
EUROPEAN_ONLY = re.compile(
    r"\b(ecrã|telemóve\w*|utilizador\w*|palavras?-passe|regist(?:ar|o|os|ado|ada)|partilh\w*|ficheiros?|"
    r"equipa|contactos?|factos?|ronda|rondas)\b", re.IGNORECASE)
# Words in -ando/-endo/-indo that are not gerunds, allowed in pt-PT.
NOT_GERUNDS = {"quando", "segundo", "segundos", "mundo", "fundo", "fundos", "comando", "comandos", "vindo", "lindo",
               "incluindo"}  # "incluindo" as the official tiles rule page has it: a preposition there


def msgstrs(locale: str):
    for path in (catalog for catalog in CATALOGS if catalog.parent.parent.name == locale):
        for _message, msgid, _plural, forms in entries(path):
            for form in forms:
                yield msgid, form


def test_european_portuguese_is_not_brazilian():
    problems = []
    for msgid, form in msgstrs("pt_PT"):
        if BRAZILIAN_ONLY.search(form):
            problems.append(f"pt-BR word {BRAZILIAN_ONLY.search(form).group(0)!r} in {msgid!r}")
        gerunds = [w for w in re.findall(r"\b\w+(?:ando|endo|indo)\b", form) if w.lower() not in NOT_GERUNDS]
        if gerunds:
            problems.append(f"gerund {gerunds} in {msgid!r}: prefer 'a jogar' to 'jogando'")
    assert not problems, "\n".join(problems)


def test_brazilian_portuguese_is_not_european():
    problems = [f"pt-PT word {EUROPEAN_ONLY.search(form).group(0)!r} in {msgid!r}"
                for msgid, form in msgstrs("pt_BR") if EUROPEAN_ONLY.search(form)]
    assert not problems, "\n".join(problems)


# --- the site uses the compiled catalogs ----------------------------------------------------------------

def get(client, url: str, language: str):
    client.cookies["django_language"] = language
    response = client.get(url)
    assert response.status_code == 200, url
    return response


@pytest.mark.django_db
def test_home_in_brazilian_portuguese(client):
    text = text_of(get(client, reverse("home"), "pt-br"))
    for phrase in ["Jogar contra bots", "Velas", "Meus jogos", "Verificar um jogo", "Entrar", "Criar conta",
                   "Abra uma sala, compartilhe o código e jogue ao vivo de qualquer celular ou computador."]:
        assert phrase in text, phrase
    assert "Play against bots" not in text


@pytest.mark.django_db
def test_home_in_european_portuguese(client):
    text = text_of(get(client, reverse("home"), "pt-pt"))
    for phrase in ["Jogar contra bots", "Velas", "As minhas partidas", "Verificar uma partida", "Iniciar sessão",
                   "Registar", "Abre uma sala, partilha o código e joga em direto a partir de qualquer telemóvel"]:
        assert phrase in text, phrase
    assert "compartilhe" not in text and "celular" not in text


@pytest.mark.django_db
def test_english_stays_english(client):
    text = text_of(get(client, reverse("home"), "en"))
    assert "Play against bots" in text and "Jogar contra bots" not in text


# The official pt-BR rule page for candles: the site's pt-BR "How to play" says exactly this.
OFFICIAL_PT_BR_RULES = [
    "Junte o mínimo de cera que puder. O jogo dura seis rodadas e leva cerca de cinco minutos.",
    "O que está na mesa",
    "104 velas, numeradas de 1 a 104. Cada jogador recebe 6 delas.",
    "4 prateleiras. Cada prateleira começa com uma vela do baralho.",
    "Cada vela vale 1 gota de cera. As velas esfumaçadas valem mais: um múltiplo de 5 vale 2, um múltiplo de 10 "
    "vale 3, um múltiplo de 11 vale 5, e o 55 (os dois ao mesmo tempo) vale 7.",
    "A vela 18 vale 1 gota. A vela 30 é esfumaçada e vale 3.",
    "Uma vez",
    "Todos escolhem em segredo uma vela da própria mão. Você vê quem já escolheu, mas nunca o quê.",
    "Quando todos escolherem, as velas são reveladas. Elas vão para as prateleiras uma a uma, da menor para a maior.",
    "Cada vela vai para a prateleira cuja última vela é a mais próxima abaixo dela. A vela 25, com prateleiras "
    "terminando em 12, 20, 31 e 47, vai depois do 20.",
    "Uma prateleira comporta cinco velas. Se a sua seria a sexta, a prateleira tomba: você leva as cinco velas como "
    "cera, e a sua vela começa a prateleira de novo.",
    "Se a sua vela for menor que a última vela de todas as prateleiras, ela não tem onde ficar. Você leva a "
    "prateleira com menos cera (a primeira, em caso de empate), e a sua vela a começa de novo.",
    "Esta prateleira está cheia. Quem puser nela a próxima vela, por exemplo a 19, leva 9, 11, 16, 17 e 18: cinco "
    "gotas de cera.",
    "O fim",
    "Depois de seis rodadas, todas as mãos estão vazias. Conte a sua cera. Quem tiver menos cera vence. Em caso de "
    "empate, o lugar é dividido.",
    "Na mesa online",
    "Toque em uma vela e depois em “Jogar”. No teclado, use as setas e Enter, ou as teclas de 1 a 6.",
    "Aponte para uma prateleira ou uma vela, ou segure o dedo sobre ela, para ler quantas velas ainda cabem e o que "
    "as marcas de cera significam.",
    "Cada rodada tem um cronômetro. Se ele acabar, a mesa joga por você a vela de menor risco.",
    "Bots ocupam os lugares vazios, sempre marcados como bots.",
    "Se você perder a conexão, o seu lugar espera por você. Após pouco tempo, um bot joga por você até você voltar.",
    "Cada distribuição vem de uma semente secreta. Você vê a impressão digital dela quando o jogo começa, e a "
    "própria semente quando ele termina. Verificar um jogo.",
]


@pytest.mark.django_db
def test_how_to_play_in_brazilian_portuguese_says_the_official_rules(client):
    response = get(client, reverse("how_to_play", args=["candles"]), "pt-br")
    text = text_of(response)
    assert "Como jogar Velas" in text
    missing = [paragraph for paragraph in OFFICIAL_PT_BR_RULES if paragraph not in text]
    assert not missing, "\n".join(missing)
    assert f'href="{reverse("verify")}">Verificar um jogo</a>' in response.content.decode()


@pytest.mark.django_db
def test_how_to_play_in_european_portuguese(client):
    text = text_of(get(client, reverse("how_to_play", args=["candles"]), "pt-pt"))
    for phrase in ["Como jogar Velas", "Uma ronda", "A partida dura seis rondas", "a prateleira tomba",
                   "Cada ronda tem um cronómetro.", "Se perderes a ligação, o teu lugar espera por ti.",
                   "Verificar uma partida"]:
        assert phrase in text, phrase
    assert "cronômetro" not in text and "você" not in text.lower()


@pytest.mark.django_db
def test_login_page_words_differ_between_the_two_varieties(client):
    brazilian = text_of(get(client, reverse("accounts:login"), "pt-br"))
    european = text_of(get(client, reverse("accounts:login"), "pt-pt"))
    assert "Senha" in brazilian and "Usuário" in brazilian and "Palavra-passe" not in brazilian
    assert "Palavra-passe" in european and "Utilizador" in european and "Senha" not in european
    assert "Iniciar sessão" in european and "Ainda não tens conta?" in european
    assert "Ainda não tem conta?" in brazilian


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "words", "plural"), [
    ("pt-br", ["Conectando…", "Jogar", "Você escolheu a %(candle)s.", "Rodada %(round)s de %(rounds)s"], "(n > 1)"),
    ("pt-pt", ["A ligar…", "Jogar", "Escolheste a %(candle)s.", "Ronda %(round)s de %(rounds)s"], "(n != 1)"),
])
def test_javascript_catalog_is_translated(client, language, words, plural):
    script = get(client, reverse("javascript-catalog"), language).content.decode()
    for word in words:
        assert json.dumps(word) in script, word  # JSON: non-ASCII comes as \u escapes
    assert f"const v = {plural};" in script


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "words"), [
    ("en", "Play against the AI"), ("pt-br", "Jogar contra a IA"), ("pt-pt", "Jogar contra a IA")])
def test_tiles_against_the_ai_says_the_ai_while_the_other_games_say_bots(client, language, words):
    page = get(client, reverse("home"), language).content.decode()
    tiles_form = page.split('id="tiles-against-ai"', 1)[1].split("</form>", 1)[0]
    assert words in tiles_form and "bots" not in tiles_form
    assert page.count(words) == 1, "only the tiles card speaks of the AI"
