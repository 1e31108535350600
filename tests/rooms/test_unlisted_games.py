"""A game whose table does not exist yet (GameSpec.listed False) is played by programs only: the browser is
not offered it anywhere, the JSON API creates its rooms, and a browser that opens such a room is told, in
its language, that the table is not there yet and how a program plays."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from games import registry
from rooms import identity
from rooms.models import Room, Seat
from tests.support import text_of

pytestmark = pytest.mark.django_db

UNLISTED = [spec.slug for spec in registry.all_games() if not spec.listed]


def test_there_is_an_unlisted_game_to_test():
    assert UNLISTED


@pytest.mark.parametrize("slug", UNLISTED)
def test_the_browser_is_not_offered_an_unlisted_game(client, slug):
    spec = registry.get(slug)
    home = client.get(reverse("home")).content.decode()
    assert reverse("create_room", args=[slug]) not in home and reverse("play_bots", args=[slug]) not in home
    assert f"id_{slug}-name" not in home and str(spec.tagline) not in home
    assert reverse("how_to_play", args=[slug]) not in home  # the menu's rule pages
    assert client.get(reverse("how_to_play", args=[slug])).status_code == 404
    for form in ("create_room", "play_bots"):
        assert client.post(reverse(form, args=[slug]), {f"{slug}-name": "Ana", f"{slug}-seats": 2}).status_code == 404
    assert not Room.objects.exists()
    assert [spec.slug for spec in registry.listed_games()] == [
        spec.slug for spec in registry.all_games() if spec.listed]


@pytest.mark.parametrize("slug", UNLISTED)
def test_programs_create_its_rooms_and_a_browser_in_one_is_told_how_to_play(client, slug):
    response = client.post(reverse("api_create_room"), json.dumps({"game": slug, "seats": 2, "name": "Bot maker"}),
                           content_type="application/json")
    assert response.status_code == 201
    ticket = response.json()
    page = client.get(reverse("room", args=[ticket["room"]]))
    assert page.status_code == 200
    text = text_of(page)
    assert "is not available in the browser yet" in text and "docs/protocol.md" in text
    assert ticket["socket"] in text and "room.js" not in page.content.decode()
    assert ticket["return_code"] not in text  # this browser holds no seat

    # The browser that holds the seat is shown its return code, so a program can take the seat.
    seat = Seat.objects.select_related("room").get(room__code=ticket["room"], index=0)
    session = client.session
    identity.remember_seat(session, seat, ticket["return_code"])
    session.save()
    client.cookies["django_language"] = "pt-pt"
    text = text_of(client.get(reverse("room", args=[ticket["room"]])))
    assert "ainda não está disponível no navegador" in text and ticket["return_code"] in text
    client.cookies["django_language"] = "pt-br"
    assert "O código de retorno do seu lugar" in text_of(client.get(reverse("room", args=[ticket["room"]])))
