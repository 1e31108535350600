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


ADMIN_LISTS = [
    "rooms_room", "rooms_seat", "rooms_game", "rooms_move",
    "candles_candlesroom", "candles_candlesseat", "candles_candlesgame", "candles_candlesmove",
]


def lookups_on_a_live_game(game: Game) -> dict[str, list[tuple[str, str]]]:
    """For each list, lookups that would tell a right guess from a wrong one about a live game's secrets."""
    right, wrong = game.seed[:2], "zz"
    seed = [("seed__startswith", right), ("seed__startswith", wrong), ("seed__gte", right), ("seed", game.seed)]
    state = [("state__icontains", "deck"), ("state__hands__0__0", "1"), ("state__has_key", "deck")]
    return {
        "game": seed + state + [("moves__action__icontains", "candle")],
        "room": [(f"games__{name}", value) for name, value in seed + state],
        "seat": [(f"room__games__{name}", value) for name, value in seed],
        "move": [(f"game__{name}", value) for name, value in seed + state]
        + [("action__icontains", "candle"), ("action__candle__gte", "1")],
    }


@pytest.mark.parametrize("name", ADMIN_LISTS)
def test_no_lookup_in_the_url_tells_anything_about_a_live_games_seed_or_state(admin, name):
    game = started_game()
    app, model = name.split("_", 1)
    url = reverse(f"admin:{app}_{model}_changelist")
    kind = next(kind for kind in ("room", "seat", "game", "move") if model.endswith(kind))
    for lookup, value in lookups_on_a_live_game(game)[kind]:
        response = admin.get(url, {lookup: value})
        assert response.status_code == 400, (lookup, value)


@pytest.mark.parametrize("name", ADMIN_LISTS)
def test_the_lists_own_filters_search_and_ordering_still_work(admin, name):
    game = started_game()
    app, model = name.split("_", 1)
    url = reverse(f"admin:{app}_{model}_changelist")
    filters = {"room": {"game__exact": "candles"}, "seat": {"is_bot__exact": "1"},
               "game": {"status__exact": "playing", "game__exact": "candles"}, "move": {"by__exact": "player"}}
    kind = next(kind for kind in filters if model.endswith(kind))
    assert admin.get(url, filters[kind]).status_code == 200
    assert admin.get(url, {"q": game.room_code, "o": "1.-2"}).status_code == 200


def test_unrevealed_picks_are_on_no_admin_page_until_the_game_ends(admin):
    game = started_game()  # three seats: one pick is not revealed until the other two pick
    hidden = game.state["hands"][0][-1]
    services.submit_move(room_code=game.room_code, seat=0, seq=game.seq, action={"type": "play", "candle": hidden})
    move = game.moves.get()
    pick = f"&quot;candle&quot;: {hidden}"
    pages = [
        reverse("admin:rooms_move_changelist"), reverse("admin:candles_candlesmove_changelist"),
        reverse("admin:rooms_move_change", args=[move.pk]), reverse("admin:candles_candlesmove_change", args=[move.pk]),
        reverse("admin:rooms_game_change", args=[game.pk]), reverse("admin:candles_candlesgame_change", args=[game.pk]),
    ]
    for url in pages:
        page = admin.get(url).content.decode()
        assert pick not in page and "hidden until the game ends" in page, url
    services.end_game(game_id=game.pk, reason="admin")
    assert pick in admin.get(reverse("admin:rooms_move_change", args=[move.pk])).content.decode()
