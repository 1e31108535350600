"""The tiles rule page: in pt-PT it says, word for word, the official rule page; in every language each
button is named as the table names it there."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.support import text_of

pytestmark = pytest.mark.django_db

# The official pt-PT rule page, line by line (the figures' tiles and the sections' numbers are drawn beside
# the words).
OFFICIAL_PT_PT_RULES = [
    'Sê o primeiro a ficar sem peças.',
    'Preparar a partida',
    "Para 2 a 4 jogadores. 106 peças: números de 1 a 13, em quatro cores, com dois exemplares de cada peça e "
    "dois jokers. Cada jogador recebe 14 peças; as restantes ficam no saco. O dado mais alto começa. Em caso "
    "de empate no valor mais alto, só os jogadores empatados voltam a lançar. A vez passa depois pela ordem "
    "dos lugares à mesa.",
    'Combinar pelo menos três',
    "Sequências: números consecutivos da mesma cor, sempre na mesma direção. 3–4–5 e 9–8–7 são válidos. Não há "
    "saltos e o 13 não liga ao 1.",
    'Uma sequência',
    'Grupos: o mesmo número em três ou quatro cores diferentes. Nunca repitas a mesma cor e número na mesma linha.',
    'Um grupo',
    'Cruzar e reorganizar',
    "Podes criar linhas horizontais e verticais, cruzamentos e formas em T. Cada linha contínua tem de ser "
    "válida e ter pelo menos três peças. Uma peça de cruzamento pertence às duas linhas; uma ramificação com "
    "só duas peças não é válida.",
    "Joga quantas peças quiseres. Desde a primeira jogada, podes mover, separar e reorganizar todas as peças "
    "da mesa. Durante a jogada, a mesa pode ficar inválida; ao terminar, todas as peças têm de formar "
    "conjuntos válidos.",
    "Quando uma estrutura puder ser separada em conjuntos menores e independentes, aparece o botão “Separar "
    "conjuntos”. A separação só acontece quando carregas no botão e todos os conjuntos resultantes continuam "
    "válidos.",
    'Os jokers',
    "O joker representa qualquer número e cor. Podes movê-lo e mudar o seu valor nas jogadas seguintes. Num "
    "cruzamento, tem de representar uma única peça que sirva às duas linhas.",
    'Buscar peça e ganhar',
    "Se não conseguires jogar, vai buscar uma peça: a tua vez termina imediatamente. Se já moveste peças, "
    "desfaz a jogada antes de tirar. Ganha quem terminar uma jogada válida sem peças na mão. Em jogos com 3 ou "
    "4 jogadores, quem ganha fica a assistir e os restantes podem continuar para disputar o 2.º e, numa mesa "
    "de quatro, o 3.º lugar. No fim, uma nova partida volta a incluir todos.",
    'Depois dos dados, o jogador escolhido carrega em “Começar partida”. Só então começa o relógio.',
    'Três minutos por jogada',
    'Com o som ligado, ouves um aviso quando faltam 30 segundos e outro quando o tempo termina.',
    "Cada jogador tem 3 minutos. Quando o tempo termina, as alterações dessa jogada são desfeitas e o jogador "
    "recebe uma peça, se houver peças no saco. A vez passa ao jogador seguinte. O tempo individual conta "
    "apenas os turnos de cada jogador; o tempo total mede a duração da partida.",
    'Desistir',
    "O botão “Desistir” pede confirmação. Numa partida a dois, o jogo termina e o resultado indica quem "
    "desistiu. Com mais jogadores, as peças da mão de quem desiste voltam ao saco e são baralhadas; as peças "
    "que já jogou continuam no tabuleiro. Os restantes continuam; o último jogador em jogo ganha. Podes ficar "
    "a assistir. Uma nova partida volta a incluir todos os jogadores.",
    'Pausar e continuar mais tarde',
    "“Pausar” congela a partida e o tempo que resta da jogada, incluindo as alterações ainda por terminar. "
    "Online, todos veem a pausa e qualquer jogador em jogo pode retomar. Podes fechar a página e regressar à "
    "mesma sala. No modo local, a partida em pausa fica guardada neste navegador. O tempo em pausa não conta "
    "para os tempos da partida.",
    'Jogar contra IA',
    "Escolhe Contra IA para jogar 1 contra 1. Só precisas do teu nome. A IA coloca as peças uma a uma, cria "
    "conjuntos e cruzamentos, aproveita jokers e reorganiza a mesa. Só conhece a mesa e a própria mão. A "
    "pesquisa tem um limite de tempo: joga a melhor opção encontrada, sem garantia de encontrar sempre a "
    "melhor jogada possível. Podes pausar durante a jogada e continuar mais tarde neste navegador.",
    'À mão, como à mesa',
    "Arrasta uma peça para uma casa vazia, ou seleciona a peça e depois a casa. Faz duplo clique numa peça da "
    "mesa, ou dois toques rápidos no telemóvel, para selecionar toda a estrutura ligada. Depois arrasta o "
    "conjunto ou toca na casa de destino. Também podes selecionar com Enter, usar as setas entre casas e "
    "premir G para selecionar o conjunto. Os botões Cores e 1 → 13 ordenam a tua mão. As peças que já estavam "
    "na mesa não podem voltar para a mão. “Desfazer” repõe toda a jogada.",
    "Podes jogar no mesmo dispositivo ou criar uma sala online para 2, 3 ou 4 jogadores e partilhar o código "
    "de seis caracteres. A sala espera que todos entrem antes de lançar os dados. As mãos dos outros jogadores "
    "ficam sempre tapadas. Online, vês as peças a serem movidas durante a jogada. As salas ficam disponíveis "
    "durante 30 dias após a última jogada. O acesso fica guardado neste navegador; noutro dispositivo, usa o "
    "teu código pessoal em “Voltar à partida”. A opção “Buscar peça” baseia-se na decisão do jogador de que "
    "não consegue jogar.",
]

# The table's buttons as the rule page names them, in each language (games/tiles/static/tiles/table.js).
BUTTONS = {
    "en": ["Separate sets", "Start the game", "Resign", "Pause", "Colours", "1 → 13", "Undo", "Draw"],
    "pt-br": ["Separar conjuntos", "Começar partida", "Desistir", "Pausar", "Cores", "1 → 13", "Desfazer",
              "Comprar peça"],
    "pt-pt": ["Separar conjuntos", "Começar partida", "Desistir", "Pausar", "Cores", "1 → 13", "Desfazer",
              "Buscar peça"],
}


def page_text(client, language: str) -> str:
    client.cookies["django_language"] = language
    response = client.get(reverse("how_to_play", args=["tiles"]))
    assert response.status_code == 200
    return text_of(response)


def test_the_pt_pt_rule_page_is_the_official_one_word_for_word(client):
    text = page_text(client, "pt-pt")
    missing = [line for line in OFFICIAL_PT_PT_RULES if line not in text]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("language", sorted(BUTTONS))
def test_each_button_is_named_as_the_table_names_it(client, language):
    text = page_text(client, language)
    missing = [name for name in BUTTONS[language] if name not in text]
    assert not missing, missing


def test_the_table_shows_those_names_in_each_language():
    from babel.messages.pofile import read_po

    from tests.test_translations import ROOT

    for language, locale in (("pt-br", "pt_BR"), ("pt-pt", "pt_PT")):
        with (ROOT / "games/tiles/locale" / locale / "LC_MESSAGES/djangojs.po").open("rb") as handle:
            catalog = read_po(handle, locale=locale)
        shown = {catalog[english].string for english in BUTTONS["en"] if english in catalog}
        assert set(BUTTONS[language]) <= shown | {"1 → 13"}
