"""Display names: at most 24 characters, refused rather than cut, and never one that reads as a bot's."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from django.utils import translation

from rooms import names, services
from rooms.models import Room, Seat
from rooms.services import ServiceError

BOT_LIKE = ["Bot 1", "bot", "BOT 12", "B0t 3", "bot_2", "Bot3", "robô", "Robô 2", "Robot 1", "robos",
            "bot playing for Ana", "Bot jogando por Ana", "bot a jogar por Zé"]
PEOPLE = ["Ana", "Botelho", "Abbot", "Robotnik", "Bot Ana", "Bóris", "x" * 24]


@pytest.mark.parametrize("name", BOT_LIKE)
def test_names_that_read_as_a_bots_are_recognized(name):
    assert names.reads_as_bot(name)


@pytest.mark.parametrize("name", PEOPLE)
def test_peoples_names_pass(name):
    assert not names.reads_as_bot(name)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Bot 1", "robô", "y" * 25])
def test_creating_or_joining_with_such_a_name_is_refused_and_changes_nothing(name):
    with pytest.raises(ServiceError) as error:
        services.create_room(game="candles", seat_count=3, options={}, host_name=name)
    assert error.value.code == "bad_name"
    assert not Room.objects.exists()
    host = services.create_room(game="candles", seat_count=3, options={}, host_name="Ana")
    with pytest.raises(ServiceError) as error:
        services.join_room(room_code=host.room_code, name=name)
    assert error.value.code == "bad_name"
    assert Seat.objects.filter(room__code=host.room_code).exclude(return_code_hash="").count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "pt-br", "pt-pt"])
def test_the_refusal_is_worded_in_each_language(language):
    with translation.override(language), pytest.raises(ServiceError) as error:
        services.create_room(game="candles", seat_count=3, options={}, host_name="Bot 1")
    english = "That name reads as a bot's: please choose another."
    assert (str(error.value.message) == english) == (language == "en")
    with translation.override(language), pytest.raises(ServiceError) as error:
        services.create_room(game="candles", seat_count=3, options={}, host_name="z" * 25)
    message = str(error.value.message)
    assert "24" in message
    assert message.startswith("A display") == (language == "en")


@pytest.mark.django_db
def test_the_api_refuses_a_long_name_with_bad_name(client):
    response = client.post(reverse("api_create_room"), json.dumps({"game": "candles", "seats": 3, "name": "n" * 25}),
                           content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_name"
    assert not Room.objects.exists()
