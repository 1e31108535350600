"""Which seat a browser or a signed-in player holds in a room.

A browser remembers its seats in its session (room code -> seat index and the return code's hash,
so a stale claim stops working if the seat changes hands); a signed-in player holds every seat
linked to the account, on any device.
"""

from __future__ import annotations

from django.conf import settings
from django.utils import translation
from django.utils.translation import trans_real

from rooms.models import Seat

SESSION_KEY = "wickwise_seats"
# Rooms played on this device: room code -> [[seat index, return code hash], ...] for every seat.
DEVICE_KEY = "wickwise_device_seats"
MAX_REMEMBERED = 100


def remember_seat(session, seat: Seat, return_code: str | None) -> None:
    """The session is server-side, so it may keep the return code to show its player again."""
    seats = dict(session.get(SESSION_KEY, {}))
    previous = seats.get(seat.room.code)
    if return_code is None and previous and previous[0] == seat.index and previous[1] == seat.return_code_hash:
        return_code = previous[2]
    seats[seat.room.code] = [seat.index, seat.return_code_hash, return_code]
    if len(seats) > MAX_REMEMBERED:
        for code in list(seats)[: len(seats) - MAX_REMEMBERED]:
            del seats[code]
    session[SESSION_KEY] = seats


def remember_device_seats(session, seats: list[Seat]) -> None:
    """A same-device room: this browser holds every seat. Its first seat is remembered as any seat is, so the
    room is in this browser's games and its page opens seated."""
    remember_seat(session, seats[0], None)
    held = dict(session.get(DEVICE_KEY, {}))
    held[seats[0].room.code] = [[seat.index, seat.return_code_hash] for seat in seats]
    if len(held) > MAX_REMEMBERED:
        for code in list(held)[: len(held) - MAX_REMEMBERED]:
            del held[code]
    session[DEVICE_KEY] = held


def device_seats(session, room_code: str) -> list[int] | None:
    """Every seat of a same-device room when this session holds them all (each claim still matching its seat);
    otherwise None."""
    claims = (session.get(DEVICE_KEY, {}) if session is not None else {}).get(room_code)
    if not claims:
        return None
    seats = {seat.index: seat for seat in Seat.objects.filter(room__code=room_code, room__same_device=True)}
    held = sorted(index for index, digest in claims
                  if index in seats and digest and seats[index].return_code_hash == digest)
    return held if seats and held == sorted(seats) else None


def device_seats_from_scope(scope, room_code: str) -> list[int] | None:
    return device_seats(scope.get("session"), room_code)


def remembered_codes(session) -> list[str]:
    return list(session.get(SESSION_KEY, {}))


def remembered_return_code(session, room_code: str) -> str | None:
    claim = session.get(SESSION_KEY, {}).get(room_code)
    return claim[2] if claim and len(claim) > 2 else None


def seat_for(*, session, user, room_code: str) -> Seat | None:
    claim = (session.get(SESSION_KEY, {}) if session is not None else {}).get(room_code)
    if claim:
        index, digest = claim[0], claim[1]
        seat = Seat.objects.select_related("room").filter(room__code=room_code, index=index).first()
        if seat is not None and digest and seat.return_code_hash == digest:
            return seat
    if user is not None and user.is_authenticated:
        return Seat.objects.select_related("room").filter(room__code=room_code, user=user).first()
    return None


def seat_from_scope(scope, room_code: str) -> int | None:
    seat = seat_for(session=scope.get("session"), user=scope.get("user"), room_code=room_code)
    return None if seat is None else seat.index


def language_from_scope(scope) -> str:
    """The language a socket speaks: the site's language cookie, else the browser's Accept-Language."""
    headers = dict(scope.get("headers") or [])
    cookies = {}
    for part in headers.get(b"cookie", b"").decode("latin-1").split(";"):
        name, _, value = part.strip().partition("=")
        cookies[name] = value
    candidates = [cookies.get(settings.LANGUAGE_COOKIE_NAME, "")]
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    candidates += [lang for lang, _ in trans_real.parse_accept_lang_header(accept)]
    for candidate in candidates:
        if not candidate or candidate == "*":
            continue
        try:
            return translation.get_supported_language_variant(candidate)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE
