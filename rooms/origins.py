"""The WebSocket origin check: a socket is accepted only from the site's own pages.

Channels' AllowedHostsOriginValidator compares the Origin's host name with ALLOWED_HOSTS and ignores its
scheme and port, so `http://localhost:9999` (any program on the player's machine) passed on a site served
at `http://localhost:8000`. Here the Origin must be exactly the origin the socket was opened on (scheme,
host and port, as a browser sends it from the site's own page), with a host in ALLOWED_HOSTS, or one of
CSRF_TRUSTED_ORIGINS, exactly.
"""

from __future__ import annotations

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

_HTTP_SCHEME = {"ws": "http", "wss": "https", "http": "http", "https": "https"}
_DEFAULT_PORT = {"http": "80", "https": "443"}


def _header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin1")
    return None


def _normal(origin: str) -> str:
    """scheme://host[:port] in lower case, without a default port."""
    scheme, _sep, rest = origin.strip().lower().partition("://")
    host, port = split_domain_port(rest)
    if not host or "/" in rest:
        return ""
    if rest.startswith("["):  # an IPv6 literal keeps its brackets
        host = rest[: rest.index("]") + 1]
    return f"{scheme}://{host}" + (f":{port}" if port and port != _DEFAULT_PORT.get(scheme) else "")


def origin_allowed(scope) -> bool:
    origin = _header(scope, b"origin")
    if not origin:
        return False
    origin = _normal(origin)
    if origin and origin in {_normal(trusted) for trusted in settings.CSRF_TRUSTED_ORIGINS}:
        return True
    host = _header(scope, b"host")
    if not host:
        return False
    domain, _port = split_domain_port(host.lower())
    if not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    scheme = _HTTP_SCHEME.get(scope.get("scheme", "ws"), "")
    return bool(origin) and origin == _normal(f"{scheme}://{host}")


class ExactOriginValidator:
    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not origin_allowed(scope):
            denier = WebsocketDenier()
            return await denier(scope, receive, send)
        return await self.application(scope, receive, send)
