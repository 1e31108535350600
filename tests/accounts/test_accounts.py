"""Accounts: Django's own auth, with guests' seats following them into My games on every device."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from rooms import services
from rooms.models import Seat

pytestmark = pytest.mark.django_db

PASSWORD = "candle-light-42"


def sign_up(client, username="ana"):
    return client.post(reverse("accounts:signup"), {
        "username": username, "password1": PASSWORD, "password2": PASSWORD,
    })


def test_sign_up_logs_in_and_redirects_home(client):
    response = sign_up(client)
    assert response.status_code == 302 and response.url == reverse("home")
    assert get_user_model().objects.filter(username="ana").exists()
    assert client.get(reverse("home")).context["user"].is_authenticated


def test_sign_up_applies_the_password_validators(client):
    response = client.post(reverse("accounts:signup"), {"username": "ana", "password1": "123", "password2": "123"})
    assert response.status_code == 200
    assert response.context["form"].errors["password2"]
    assert not get_user_model().objects.exists()


def test_log_in_log_out_and_a_wrong_password(client):
    get_user_model().objects.create_user("bruno", password=PASSWORD)
    bad = client.post(reverse("accounts:login"), {"username": "bruno", "password": "nope"})
    assert bad.status_code == 200 and bad.context["form"].errors
    good = client.post(reverse("accounts:login"), {"username": "bruno", "password": PASSWORD})
    assert good.status_code == 302
    out = client.post(reverse("accounts:logout"))
    assert out.status_code == 302
    assert not client.get(reverse("home")).context["user"].is_authenticated


def test_password_change(client):
    user = get_user_model().objects.create_user("carla", password=PASSWORD)
    client.force_login(user)
    response = client.post(reverse("accounts:password_change"), {
        "old_password": PASSWORD, "new_password1": "wax-and-wick-77", "new_password2": "wax-and-wick-77",
    })
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("wax-and-wick-77")


def test_my_games_lists_a_players_rooms_on_any_device(client, django_user_model):
    user = django_user_model.objects.create_user("dora", password=PASSWORD)
    client.force_login(user)
    created = client.post(reverse("create_room", args=["candles"]), {
        "candles-name": "Dora", "candles-seats": 4, "candles-option_round_seconds": 30,
    })
    assert created.status_code == 302
    code = created.url.rstrip("/").split("/")[-1]
    assert Seat.objects.get(room__code=code, index=0).user == user

    other_device = type(client)()
    other_device.force_login(user)
    page = other_device.get(reverse("my_games"))
    assert code in page.content.decode()
    # The same account on the other device holds the seat in the room, too.
    room_page = other_device.get(reverse("room", args=[code]))
    assert room_page.context["seat"].index == 0


def test_a_guest_who_signs_up_keeps_their_seats(client):
    created = client.post(reverse("create_room", args=["candles"]), {
        "candles-name": "Eva", "candles-seats": 3, "candles-option_round_seconds": 15,
    })
    code = created.url.rstrip("/").split("/")[-1]
    sign_up(client, "eva")
    seat = Seat.objects.get(room__code=code, index=0)
    assert seat.user.username == "eva"
    assert code in client.get(reverse("my_games")).content.decode()


def test_joining_again_while_signed_in_gives_back_the_same_seat(django_user_model):
    user = django_user_model.objects.create_user("fabio", password=PASSWORD)
    ticket = services.create_room(game="candles", seat_count=4, options={}, host_name="Host")
    first = services.join_room(room_code=ticket.room_code, name="Fabio", user=user)
    again = services.join_room(room_code=ticket.room_code, name="Fabio", user=user)
    assert first.seat == again.seat == 1 and again.return_code is None
