"""Lobby pages: thin views over rooms.services."""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import registry
from rooms import codes, identity, services, snapshots
from rooms.forms import CreateRoomForm, JoinRoomForm, ReturnForm, SameDeviceForm
from rooms.models import Game, Room, Seat


def _default_name(request) -> str:
    if request.user.is_authenticated:
        return request.user.get_username()
    return request.session.get("display_name", "")


def _remember(request, ticket: services.SeatTicket) -> None:
    seat = Seat.objects.select_related("room").get(room__code=ticket.room_code, index=ticket.seat)
    identity.remember_seat(request.session, seat, ticket.return_code)


@require_GET
def home(request):
    name = _default_name(request)
    games = [
        {"spec": spec, "form": CreateRoomForm(spec=spec, initial={"name": name}, prefix=spec.slug),
         "same_device_form": SameDeviceForm(spec=spec, prefix=f"{spec.slug}-device") if spec.three_ways else None}
        for spec in registry.all_games()
    ]
    return render(request, "rooms/home.html", {
        "games": games, "join_form": JoinRoomForm(initial={"name": name}), "default_name": name,
    })


def _spec_or_404(slug: str):
    """A game the browser is offered; a game whose table does not exist yet is played by programs only."""
    try:
        spec = registry.get(slug)
    except KeyError:
        raise Http404(_("There is no such game.")) from None
    return spec


@require_POST
def create_room(request, game: str):
    spec = _spec_or_404(game)
    form = CreateRoomForm(request.POST, spec=spec, prefix=spec.slug)
    if not form.is_valid():
        messages.error(request, _("Please check the room settings."))
        return redirect("home")
    try:
        ticket = services.create_room(
            game=spec.slug, seat_count=form.cleaned_data["seats"], options=form.options(),
            host_name=form.cleaned_data["name"], user=request.user,
        )
    except services.ServiceError as error:
        messages.error(request, error.message)
        return redirect("home")
    request.session["display_name"] = form.cleaned_data["name"]
    _remember(request, ticket)
    return redirect("room", code=ticket.room_code)


# The session key that marks a room whose page should start its game as soon as it opens.
AUTOSTART_KEY = "wickwise_autostart"


@require_POST
def play_bots(request, game: str):
    """One click: a room of the default size whose other seats get bots when it starts.

    The game is started by the room page (static/js/room/seeds.js) once the player's browser has sent its client
    seed, so that the deal mixes in a seed the player chose, as in any other room."""
    spec = _spec_or_404(game)
    name = (request.POST.get("name") or _default_name(request) or _("Player")).strip()
    try:
        ticket = services.create_room(
            game=spec.slug, seat_count=spec.default_seats, options={}, host_name=name, user=request.user
        )
    except services.ServiceError as error:
        messages.error(request, error.message)
        return redirect("home")
    _remember(request, ticket)
    request.session[AUTOSTART_KEY] = ticket.room_code
    return redirect("room", code=ticket.room_code)


@require_POST
def play_same_device(request, game: str):
    """A room for 2 to 4 named players on this device: the browser holds every seat, and its page starts the
    game once it has sent its client seed, as play_bots does."""
    spec = _spec_or_404(game)
    form = SameDeviceForm(request.POST, spec=spec, prefix=f"{spec.slug}-device")
    if not form.is_valid():
        messages.error(request, _("Give a name for each player, %(low)d to %(high)d players.")
                       % {"low": spec.min_seats, "high": spec.max_seats})
        return redirect("home")
    try:
        tickets = services.create_same_device_room(game=spec.slug, names=form.names(), user=request.user)
    except services.ServiceError as error:
        messages.error(request, error.message)
        return redirect("home")
    code = tickets[0].room_code
    identity.remember_device_seats(request.session, list(Seat.objects.select_related("room")
                                                         .filter(room__code=code).order_by("index")))
    request.session[AUTOSTART_KEY] = code
    return redirect("room", code=code)


def _take_autostart(request, code: str, seat) -> bool:
    """Whether this page should start the game: once, for the host of the room play_bots opened."""
    if request.session.get(AUTOSTART_KEY) != code:
        return False
    del request.session[AUTOSTART_KEY]
    return seat is not None and seat.index == 0


@require_POST
def join_room(request):
    form = JoinRoomForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Please give a room code and your name."))
        return redirect("home")
    code = codes.normalize(form.cleaned_data["code"])
    if not codes.is_room_code(code) or not Room.objects.filter(code=code).exists():
        messages.error(request, _("There is no room with the code %(code)s.") % {"code": code or "-"})
        return redirect("home")
    if identity.seat_for(session=request.session, user=request.user, room_code=code):
        return redirect("room", code=code)
    try:
        ticket = services.join_room(room_code=code, name=form.cleaned_data["name"], user=request.user)
    except services.ServiceError as error:
        if error.code == "same_device":  # nothing to watch from here either: the game is on that device
            messages.error(request, error.message)
            return redirect("home")
        messages.info(request, _("%(reason)s You are watching.") % {"reason": error.message})
        return redirect("room", code=code)
    request.session["display_name"] = form.cleaned_data["name"]
    _remember(request, ticket)
    return redirect("room", code=code)


@require_GET
def room(request, code: str):
    code = codes.normalize(code)
    room_obj = Room.objects.filter(code=code).first()
    if room_obj is None:
        records = Game.objects.filter(room_code=code).exclude(status=Game.Status.LOBBY).order_by("number")
        if records:
            return render(request, "rooms/expired.html", {"code": code, "records": records}, status=410)
        raise Http404(_("There is no room with that code."))
    seat = identity.seat_for(session=request.session, user=request.user, room_code=code)
    spec = registry.get(room_obj.game)
    config = {
        "code": code,
        "game": room_obj.game,
        "socket": f"/ws/rooms/{code}/",
        "seat": None if seat is None else seat.index,
        "recordUrl": reverse("record", args=[code, 0]).replace("/0/", "/{n}/"),
        "verifyUrl": reverse("verify") + f"?room={code}&n={{n}}",
        "roomUrl": request.build_absolute_uri(reverse("room", args=[code])),
        "autostart": _take_autostart(request, code, seat),
        # Every seat is held here: the page passes the device between players (static/js/room/device.js).
        "sameDevice": identity.device_seats(request.session, code) is not None,
        # What the table must agree on with the server (ctx.settings of static/js/tablekit.js).
        "table": {"moveAnswerSeconds": settings.WICKWISE["MOVE_ANSWER_SECONDS"], **spec.table_settings},
    }
    return render(request, "rooms/room.html", {
        "room": room_obj, "spec": spec, "seat": seat, "config": config,
        "return_code": identity.remembered_return_code(request.session, code) if seat else None,
        "join_form": JoinRoomForm(initial={"code": code, "name": _default_name(request)}),
    })


@require_http_methods(["GET", "POST"])
def return_to_game(request):
    form = ReturnForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            seat = services.seat_by_return_code(return_code=form.cleaned_data["return_code"])
        except services.ServiceError as error:
            form.add_error("return_code", error.message)
        else:
            services.link_seat_to_user(seat_id=seat.pk, user=request.user)
            identity.remember_seat(request.session, seat, codes.normalize_display(form.cleaned_data["return_code"]))
            return redirect("room", code=seat.room.code)
    return render(request, "rooms/return.html", {"form": form})


@require_GET
def my_games(request):
    seats = Seat.objects.none()
    if request.user.is_authenticated:
        seats = Seat.objects.filter(user=request.user)
    remembered = identity.remembered_codes(request.session)
    rooms = Room.objects.filter(code__in=remembered) | Room.objects.filter(seats__in=seats)
    rows = []
    for room_obj in rooms.distinct().order_by("-last_activity_at"):
        seat = identity.seat_for(session=request.session, user=request.user, room_code=room_obj.code)
        if seat is None:
            continue
        game = snapshots.shown_game(room_obj)
        rows.append({"room": room_obj, "seat": seat, "game": game, "spec": registry.get(room_obj.game),
                     "same_device": identity.device_seats(request.session, room_obj.code) is not None,
                     "paused": bool(game and game.is_paused and not game.is_over)})
    return render(request, "rooms/my_games.html", {"rows": rows})


@require_GET
def record(request, code: str, number: int):
    game = Game.objects.filter(room_code=codes.normalize(code), number=number).first()
    if game is None:  # a program asked: it gets the API's JSON error, not a page
        missing = services.ServiceError("no_such_record", _("There is no game record with that room and number."))
        return _api_error(missing, 404)
    response = JsonResponse(snapshots.public_record(game), json_dumps_params={"indent": 1})
    response["Cache-Control"] = "no-store" if not game.is_over else "public, max-age=3600"
    return response


# --- a small JSON API for programs (docs/protocol.md): no cookies, the return code is the key ---

def _json_body(request) -> dict:
    if len(request.body) > 4096:
        raise services.ServiceError("too_large", _("That request is too large."))
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        raise services.ServiceError("bad_json", _("The request body is not valid JSON.")) from None
    if not isinstance(body, dict):
        raise services.ServiceError("bad_json", _("The request body must be a JSON object."))
    return body


def _api_error(error: services.ServiceError, status: int = 400) -> JsonResponse:
    status = {"no_such_room": 404, "room_full": 409, "game_started": 409, "same_device": 409}.get(error.code, status)
    return JsonResponse({"error": {"code": error.code, "message": error.message}}, status=status)


def _ticket_json(ticket: services.SeatTicket) -> dict:
    return {
        "room": ticket.room_code,
        "seat": ticket.seat,
        "return_code": ticket.return_code,
        "socket": f"/ws/rooms/{ticket.room_code}/",
    }


def api_create_room(request):
    if request.method != "POST":
        return JsonResponse({"error": {"code": "method", "message": _("Use POST.")}}, status=405)
    try:
        body = _json_body(request)
        ticket = services.create_room(
            game=str(body.get("game", "")), seat_count=body.get("seats"), options=body.get("options") or {},
            host_name=str(body.get("name", "")),
        )
    except services.ServiceError as error:
        return _api_error(error)
    return JsonResponse(_ticket_json(ticket), status=201)


def api_join_room(request, code: str):
    if request.method != "POST":
        return JsonResponse({"error": {"code": "method", "message": _("Use POST.")}}, status=405)
    try:
        body = _json_body(request)
        ticket = services.join_room(room_code=code, name=str(body.get("name", "")))
    except services.ServiceError as error:
        return _api_error(error)
    return JsonResponse(_ticket_json(ticket), status=201)


@require_GET
def api_room(request, code: str):
    room_obj = Room.objects.filter(code=codes.normalize(code)).first()
    if room_obj is None:
        return JsonResponse({"error": {"code": "no_such_room", "message": _("There is no room with that code.")}},
                            status=404)
    game = snapshots.shown_game(room_obj)
    return JsonResponse({"room": snapshots.public_room(room_obj),
                         "game": snapshots.public_game(game) if game else None})
