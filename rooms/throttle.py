"""Limits on the open HTTP endpoints, per client address, counted in Redis so they hold across every daphne
process: opening rooms, joining them, looking rooms up by code, and the return-code form.

Without them, one client opened 100 rooms at 28 a second, guessed room codes at 50 a second and tried 43
return codes a second. A request over its limit changes nothing and is answered 429: the JSON error shape
on the API, a page that says so for the forms.
"""

from __future__ import annotations

import functools
import logging
import time

from django.conf import settings
from django.http import JsonResponse
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

from rooms import live
from rooms.middleware import refusal

log = logging.getLogger("wickwise.http")

KINDS = ("create", "join", "lookup", "return")  # rooms opened, seats taken, rooms looked up, return codes tried


def client_address(request) -> str:
    """daphne puts the proxy's X-Forwarded-For here when run with --proxy-headers (docs/deploy.md)."""
    return request.META.get("REMOTE_ADDR") or "unknown"


def limit_for(kind: str) -> tuple[int, int]:
    """(requests, window in seconds) for a client address: settings.WICKWISE["THROTTLES"]."""
    return settings.WICKWISE["THROTTLES"][kind]


def over_limit(kind: str, address: str) -> bool:
    """Count this request in the current window; True if it is one too many. A Redis that cannot be asked
    lets the request through: the limits must not take the site down with it."""
    allowed, window = limit_for(kind)
    slot = int(time.time() // window)
    counter = live.key("throttle", kind, address, slot)
    try:
        pipe = live.client().pipeline(transaction=False)
        pipe.incr(counter)
        pipe.expire(counter, window + 1)
        count = pipe.execute()[0]
    except RedisError as error:
        log.warning("throttle %s for %s not counted: %s", kind, address, error)
        return False
    return count > allowed


def throttled(kind: str, *, methods: tuple[str, ...] = ("POST",)):
    """Count requests of these methods against the client's limit for `kind`."""
    def wrap(view):
        @functools.wraps(view)
        def checked(request, *args, **kwargs):
            if request.method in methods and over_limit(kind, client_address(request)):
                return refusal(request, status=429, code="rate_limited",
                               message=_("Too many requests from your address; please wait a minute and try again."),
                               title=_("Too many requests"))
            return view(request, *args, **kwargs)
        return checked
    return wrap


def json_only(view):
    """The JSON API takes only `application/json` bodies: a cross-site form or a text/plain POST (which a
    browser sends without asking first) is refused before anything is read."""
    @functools.wraps(view)
    def checked(request, *args, **kwargs):
        if request.method == "POST" and request.content_type != "application/json":
            return JsonResponse({"error": {"code": "bad_content_type",
                                           "message": _("Send the request body as application/json.")}}, status=415)
        return view(request, *args, **kwargs)
    return checked
