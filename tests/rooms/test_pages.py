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
def test_play_against_bots_opens_a_lobby_that_the_page_starts(client):
    response = client.post(reverse("play_bots", args=["candles"]), {"name": "Ana"})
    assert response.status_code == 302
    code = room_code_from(response)
    room = Room.objects.get(code=code)
    # Not started in the request: the page sends the player's client seed first, then starts.
    assert Game.objects.get(room=room, number=1).status == Game.Status.LOBBY
    seats = list(room.seats.order_by("index"))
    assert seats[0].name == "Ana" and not seats[0].is_bot
    assert not any(seat.is_taken for seat in seats[1:]), "the other seats get bots when the game starts"
    page = client.get(response["Location"])
    assert page.context["seat"].index == 0
    assert page.context["config"]["autostart"] is True
    assert '"autostart": true' in page.content.decode()


@pytest.mark.django_db
def test_the_autostart_flag_is_given_to_one_page_only(client):
    response = client.post(reverse("play_bots", args=["candles"]), {"name": "Ana"})
    url = response["Location"]
    assert client.get(url).context["config"]["autostart"] is True
    assert client.get(url).context["config"]["autostart"] is False, "a reload shows the lobby and its Start button"


@pytest.mark.django_db
def test_the_autostart_flag_waits_for_its_own_room(client):
    response = client.post(reverse("play_bots", args=["candles"]), {"name": "Ana"})
    other = services.create_room(game="candles", seat_count=2, options={}, host_name="Cy")
    assert client.get(reverse("room", args=[other.room_code])).context["config"]["autostart"] is False
    assert client.get(response["Location"]).context["config"]["autostart"] is True


@pytest.mark.django_db
def test_a_room_opened_for_friends_does_not_start_by_itself(client):
    page = client.get(open_room(client)["Location"])
    assert page.context["config"]["autostart"] is False


@pytest.mark.django_db
def test_the_autostart_flag_needs_the_host_seat(client):
    # A session that somehow holds the flag for a room where it does not sit as host starts nothing.
    ticket = services.create_room(game="candles", seat_count=2, options={}, host_name="Ana")
    session = client.session
    session["wickwise_autostart"] = ticket.room_code
    session.save()
    assert client.get(reverse("room", args=[ticket.room_code])).context["config"]["autostart"] is False


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


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.IGNORECASE)
EVENT_ATTRIBUTE = re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.IGNORECASE)


@pytest.mark.django_db
def test_pages_need_no_inline_scripts(client):
    """A strict Content Security Policy (script-src 'self') must not break any page."""
    ticket = services.create_room(game="candles", seat_count=2, options={}, host_name="Ana")
    urls = [reverse("home"), reverse("room", args=[ticket.room_code]), reverse("my_games"),
            reverse("return_to_game"), reverse("verify"), reverse("how_to_play", args=["candles"]),
            reverse("accounts:login"), reverse("accounts:signup"), "/no-such-page/"]
    for url in urls:
        html = client.get(url).content.decode()
        assert not INLINE_SCRIPT.search(html), url
        assert not EVENT_ATTRIBUTE.search(html), url
        assert "js/site.js" in html, url


@pytest.mark.django_db
def test_the_nav_has_a_how_to_play_menu_with_every_game(client):
    html = client.get(reverse("return_to_game")).content.decode()
    assert 'class="nav-menu"' in html
    for slug, name in [("candles", "Candles"), ("trails", "Trails"), ("pots", "Pots")]:
        assert f'href="{reverse("how_to_play", args=[slug])}"' in html
        assert f"How to play {name}" in html  # the footer names each game


@pytest.mark.django_db
def test_a_site_with_one_game_links_straight_to_its_rules(client, monkeypatch):
    from games import registry

    candles = registry.get("candles")
    monkeypatch.setattr(registry, "all_games", lambda: [candles])
    html = client.get(reverse("my_games")).content.decode()
    assert f'href="{reverse("how_to_play", args=["candles"])}"' in html
    assert "nav-menu" not in html


@pytest.mark.django_db
def test_a_missing_page_is_branded_and_helpful(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "This page is not here" in html
    assert 'class="site-header"' in html
    assert reverse("return_to_game") in html


@pytest.mark.django_db
def test_a_missing_room_gets_the_branded_404(client):
    response = client.get(reverse("room", args=["ZZZZZZ"]))
    assert response.status_code == 404
    assert "This page is not here" in response.content.decode()


def test_the_server_error_page_needs_no_request_context_and_no_database(rf):
    # No django_db mark: any query here would fail the test. server_error renders without a request.
    from django.views import defaults

    response = defaults.server_error(rf.get("/"))
    assert response.status_code == 500
    html = response.content.decode()
    assert "Something went wrong on our side" in html
    assert "css/site.css" in html


@pytest.mark.django_db
def test_my_games_says_just_now_for_a_room_active_this_minute(client):
    ticket = services.create_room(game="candles", seat_count=2, options={}, host_name="Ana")
    client.post(reverse("return_to_game"), {"return_code": ticket.return_code})
    html = client.get(reverse("my_games")).content.decode()
    assert "just now" in html
    assert "0\xa0minutes" not in html
    Room.objects.filter(code=ticket.room_code).update(last_activity_at=timezone.now() - timedelta(minutes=5))
    html = client.get(reverse("my_games")).content.decode()
    assert "just now" not in html
    assert "5\xa0minutes ago" in html  # timesince keeps the number and its unit together
