"""The site's pages through Django's test client: home, rooms, joining, returning, My games, expiry."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from rooms import services
from rooms.models import Game, Room

RETURN_CODE = re.compile(r"[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}")


def open_room(client, name="Ana", seats=4):
    return client.post(
        reverse("create_room", args=["candles"]),
        {"candles-name": name, "candles-seats": seats, "candles-option_round_seconds": 30},
    )


def room_code_from(response) -> str:
    match = re.fullmatch(r"/r/([A-Z0-9]+)/", response["Location"])
    assert match, response["Location"]
    return match.group(1)


@pytest.mark.django_db
def test_home_shows_the_candles_card_with_its_forms(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Candles" in page
    assert "least wax wins" in page
    assert reverse("create_room", args=["candles"]) in page
    assert reverse("play_bots", args=["candles"]) in page
    assert reverse("join_room") in page
    assert reverse("return_to_game") in page
    assert 'name="candles-seats"' in page


@pytest.mark.django_db
def test_opening_a_room_leads_to_its_page_with_the_code_and_the_return_code(client):
    response = open_room(client)
    assert response.status_code == 302
    code = room_code_from(response)
    page = client.get(response["Location"])
    assert page.status_code == 200
    html = page.content.decode()
    assert code in html
    assert page.context["return_code"]
    assert RETURN_CODE.fullmatch(page.context["return_code"])
    assert page.context["return_code"] in html
    assert 'id="room-config"' in html
    assert "candles/table.js" in html


@pytest.mark.django_db
def test_joining_by_code_takes_a_free_seat(client):
    host = services.create_room(game="candles", seat_count=3, options={}, host_name="Ana")
    response = client.post(reverse("join_room"), {"code": host.room_code.lower(), "name": "Bea"})
    assert response.status_code == 302
    assert response["Location"] == reverse("room", args=[host.room_code])
    page = client.get(response["Location"])
    assert page.context["seat"].index == 1
    assert page.context["seat"].name == "Bea"
    assert RETURN_CODE.fullmatch(page.context["return_code"])


@pytest.mark.django_db
def test_joining_a_wrong_code_says_so(client):
    response = client.post(reverse("join_room"), {"code": "ZZZZZZ", "name": "Bea"}, follow=True)
    assert response.status_code == 200
    assert "There is no room with the code ZZZZZZ." in response.content.decode()


@pytest.mark.django_db
def test_a_visitor_without_a_seat_gets_the_join_form(client):
    host = services.create_room(game="candles", seat_count=2, options={}, host_name="Ana")
    page = client.get(reverse("room", args=[host.room_code]))
    assert page.status_code == 200
    assert page.context["seat"] is None
    assert 'id="join-panel"' in page.content.decode()


@pytest.mark.django_db
def test_play_against_bots_starts_a_room_at_once(client):
    response = client.post(reverse("play_bots", args=["candles"]), {"name": "Ana"})
    assert response.status_code == 302
    code = room_code_from(response)
    room = Room.objects.get(code=code)
    game = Game.objects.get(room=room, number=1)
    assert game.status == Game.Status.PLAYING
    assert [seat.is_bot for seat in room.seats.order_by("index")] == [False] + [True] * (room.seat_count - 1)
    assert client.get(response["Location"]).context["seat"].index == 0


@pytest.mark.django_db
def test_return_to_game_with_a_good_code_goes_back_to_the_seat(client):
    ticket = services.create_room(game="candles", seat_count=2, options={}, host_name="Ana")
    response = client.post(reverse("return_to_game"), {"return_code": ticket.return_code.lower().replace("-", " ")})
    assert response.status_code == 302
    assert response["Location"] == reverse("room", args=[ticket.room_code])
    page = client.get(response["Location"])
    assert page.context["seat"].index == 0
    assert page.context["return_code"] == ticket.return_code


@pytest.mark.django_db
def test_return_to_game_with_a_bad_code_shows_an_error(client):
    response = client.post(reverse("return_to_game"), {"return_code": "AAAA-BBBB-CCCC-DDDD"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "That return code does not match any seat." in html
    assert 'aria-invalid="true"' in html


@pytest.mark.django_db
def test_my_games_lists_a_signed_in_players_rooms(client):
    user = get_user_model().objects.create_user("ana", password="a long enough password")
    ticket = services.create_room(game="candles", seat_count=2, options={}, host_name="Ana", user=user)
    other = services.create_room(game="candles", seat_count=2, options={}, host_name="Cy")
    client.force_login(user)
    html = client.get(reverse("my_games")).content.decode()
    assert ticket.room_code in html
    assert other.room_code not in html


@pytest.mark.django_db
def test_my_games_has_an_empty_state(client):
    html = client.get(reverse("my_games")).content.decode()
    assert "You are not sitting in any room yet." in html


def _expired_room_code() -> str:
    ticket = services.create_room(game="candles", seat_count=2, options={}, host_name="Ana")
    services.start_game(room_code=ticket.room_code, seat=0)
    later = timezone.now() + timedelta(days=settings.WICKWISE["ROOM_LIFETIME_DAYS"] + 1)
    assert services.expire_room(room_code=ticket.room_code, now=later)
    return ticket.room_code


@pytest.mark.django_db
def test_an_expired_room_links_to_verify_its_games(client):
    code = _expired_room_code()
    response = client.get(reverse("room", args=[code]))
    assert response.status_code == 410
    html = response.content.decode()
    assert f"room={code}&amp;n=1" in html


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["pt-br", "pt-pt"])
def test_every_page_renders_in_portuguese(client, language):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    user = get_user_model().objects.create_user("bea", password="a long enough password")
    seated = services.create_room(game="candles", seat_count=2, options={}, host_name="Bea", user=user)
    expired = _expired_room_code()
    anonymous_pages = [
        reverse("home"),
        reverse("room", args=[seated.room_code]),
        reverse("return_to_game"),
        reverse("my_games"),
        reverse("accounts:login"),
        reverse("accounts:signup"),
    ]
    for url in anonymous_pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert f'<html lang="{language}">' in response.content.decode(), url
    response = client.get(reverse("room", args=[expired]))
    assert response.status_code == 410
    client.force_login(user)
    for url in [reverse("my_games"), reverse("room", args=[seated.room_code]), reverse("accounts:password_change")]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert f'<html lang="{language}">' in response.content.decode(), url
