"""The Django admin: each game's rooms, seats, games and moves, and no seed before a game is over."""

import pytest
from django.urls import reverse

from games.candles import engine
from rooms import services
from rooms.models import Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(client, django_user_model):
    user = django_user_model.objects.create_superuser("admin", "admin@example.com", "pw-admin-12345")
    client.force_login(user)
    return client


def started_game() -> Game:
    ticket = services.create_room(game="candles", seat_count=3, options={}, host_name="Ana")
    return services.start_game(room_code=ticket.room_code, seat=0)


def play_to_the_end(game: Game) -> Game:
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.PLAYING:
            return game
        seat = engine.to_act(game.state)[0]
        services.submit_move(room_code=game.room_code, seat=seat, seq=game.seq,
                             action=engine.table_choice(game.state, seat), by="bot")


@pytest.mark.parametrize("name", [
    "rooms_room", "rooms_seat", "rooms_game", "rooms_move",
    "candles_candlesroom", "candles_candlesseat", "candles_candlesgame", "candles_candlesmove",
])
def test_every_admin_list_renders(admin, name):
    started_game()
    app, model = name.split("_", 1)
    response = admin.get(reverse(f"admin:{app}_{model}_changelist"))
    assert response.status_code == 200


def test_a_live_games_seed_and_state_are_hidden_from_admins(admin):
    game = started_game()
    page = admin.get(reverse("admin:candles_candlesgame_change", args=[game.pk])).content.decode()
    assert game.fingerprint in page
    assert game.seed not in page
    assert '"deck"' not in page


def test_a_finished_games_seed_is_shown(admin):
    game = play_to_the_end(started_game())
    page = admin.get(reverse("admin:rooms_game_change", args=[game.pk])).content.decode()
    assert game.seed in page


def test_admin_can_end_a_game_and_its_seed_is_revealed(admin):
    game = started_game()
    response = admin.post(reverse("admin:rooms_game_changelist"), {
        "action": "end_games", "_selected_action": [game.pk],
    })
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ENDED and game.end_reason == "admin"
    record = admin.get(reverse("record", args=[game.room_code, game.number])).json()
    assert record["seed"] == game.seed and record["moves"] == []


@pytest.mark.parametrize("slug", ["candles", "trails", "pots"])
def test_each_games_admin_pages_list_only_its_own_and_hide_a_live_seed(admin, slug):
    games = {}
    for each in ["candles", "trails", "pots"]:
        ticket = services.create_room(game=each, seat_count=2, options={}, host_name="Ana")
        games[each] = services.start_game(room_code=ticket.room_code, seat=0)
    game = games[slug]
    rooms = admin.get(reverse(f"admin:{slug}_{slug}room_changelist")).content.decode()
    assert game.room_code in rooms
    assert all(other.room_code not in rooms for name, other in games.items() if name != slug)
    page = admin.get(reverse(f"admin:{slug}_{slug}game_change", args=[game.pk])).content.decode()
    assert game.fingerprint in page and game.seed not in page
    assert '"deck"' not in page and '"hands"' not in page
