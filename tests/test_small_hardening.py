"""Smaller guards: exact option types, shorter staff sessions, the worker clearing expired sessions, the
language cookie's Secure flag in production, and `make run` serving with DEBUG off unless asked."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.utils import timezone

from games import registry
from rooms import services
from rooms.models import Room
from scripts.run import server_env
from tests.rooms.helpers import Workers

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
@pytest.mark.parametrize("value", [30.0, True, "30", None, [30]])
def test_an_option_must_be_one_of_its_choices_exactly(value, client):
    with pytest.raises(services.ServiceError) as refused:
        services.create_room(game="candles", seat_count=2, options={"round_seconds": value}, host_name="Ana")
    assert refused.value.code == "bad_options"
    response = client.post("/api/rooms/", {"game": "candles", "seats": 2, "name": "Ana",
                                           "options": {"round_seconds": value}}, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_options"
    assert not Room.objects.exists()
    assert registry.get("candles").clean_options({"round_seconds": 30}) == {"round_seconds": 30}


@pytest.mark.django_db
def test_a_staff_session_ends_within_hours_and_a_players_lasts(client):
    users = get_user_model().objects
    users.create_user("player", password="pw-player-12345")
    users.create_user("staff", password="pw-staff-12345", is_staff=True)
    assert client.login(username="player", password="pw-player-12345")
    assert client.session.get_expiry_age() == settings.SESSION_COOKIE_AGE
    client.logout()
    assert client.login(username="staff", password="pw-staff-12345")
    assert client.session.get_expiry_age() == settings.STAFF_SESSION_SECONDS <= 12 * 3600


@pytest.mark.live
@pytest.mark.django_db(transaction=True)
def test_the_worker_clears_expired_sessions():
    Session.objects.create(session_key="x" * 32, session_data="", expire_date=timezone.now() - timedelta(days=1))
    Session.objects.create(session_key="y" * 32, session_data="", expire_date=timezone.now() + timedelta(days=1))
    Workers().run_once()
    assert list(Session.objects.values_list("session_key", flat=True)) == ["y" * 32]


def test_production_sends_the_language_cookie_over_https_only():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.production", "SECRET_KEY": "k" * 60}
    probe = "import django; django.setup(); from django.conf import settings; print(settings.LANGUAGE_COOKIE_SECURE)"
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.strip() == "True", result.stderr


def test_make_run_serves_with_debug_off_unless_debug_is_set():
    assert server_env("redis://x", {})["DEBUG"] == "false"
    assert server_env("redis://x", {"DEBUG": "true"})["DEBUG"] == "true"
    assert server_env("redis://x", {})["REDIS_URL"] == "redis://x"
