"""Answers for requests the site cannot serve just now (Redis down: 503 `busy`), the pages' CSP, and each
request's database connection closed as it ends."""

from __future__ import annotations

import logging

from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from redis.exceptions import RedisError

log = logging.getLogger("wickwise.http")


def wants_json(request) -> bool:
    return request.path.startswith("/api/") or request.path.endswith(".json")


def refusal(request, *, status: int, code: str, message: str, title: str):
    """A refusal in the JSON error shape for the API, or a page that says it plainly."""
    if wants_json(request):
        response = JsonResponse({"error": {"code": code, "message": message}}, status=status)
    else:
        response = render(request, "refusal.html", {"status": status, "title": title, "message": message},
                          status=status)
    if status in (429, 503):
        response["Retry-After"] = "5"
    return response


class CloseRequestConnectionsMiddleware:
    """Under ASGI each request runs its view in a thread of its own (Django's ThreadSensitiveContext), so the
    database connection it opens can serve no other request. Kept open at the request's end (Django closes it
    only past CONN_MAX_AGE, which the sockets' thread pools want), it lingered until collected: on PostgreSQL,
    a thousand pages taking their seats ran the server out of connections ("too many clients"). Closed here,
    outermost, once the response is made and the session saved, in the request's thread."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            return self.get_response(request)
        finally:
            if isinstance(request, ASGIRequest):
                connections.close_all()


class RedisBusyMiddleware:
    """A request that needed Redis while it was down is answered `busy` (503), not with a crash page. Nothing
    was changed: services write the database first and touch Redis only after the commit, where a failure
    is logged and left to the worker's rebuild."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, RedisError):
            return None
        log.warning("%s %s answered busy: Redis failed (%s)", request.method, request.path, exception)
        return refusal(request, status=503, code="busy",
                       message=_("The server is busy just now; please try again in a moment."),
                       title=_("The server is busy"))


class ContentSecurityPolicyMiddleware:
    """Every page may run only the site's own script files and style sheets, and connect only to the site
    (its sockets included): no inline script or style, no other origin. The pages keep their scripts and
    styles in static files for this; data for a script is a JSON block (`json_script`), which runs nothing.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            sockets = ("wss://" if request.is_secure() else "ws://") + request.get_host()
            response["Content-Security-Policy"] = (
                "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                f"font-src 'self'; connect-src 'self' {sockets}; object-src 'none'; base-uri 'self'; "
                "form-action 'self'; frame-ancestors 'none'"
            )
        return response
