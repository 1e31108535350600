import gc
import os
import pprint

import autobahn.websocket.protocol
import txaio
from django.core.asgi import get_asgi_application

FULL_COLLECTION_AFTER = 100  # collections of the middle generation (Python's default: 10)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
django_http = get_asgi_application()  # sets Django up before the consumers are imported

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from rooms import probe, trace  # noqa: E402
from rooms.origins import ExactOriginValidator  # noqa: E402
from rooms.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_http,
        "websocket": ExactOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

# Django, the apps and their modules live as long as the server: leave them out of every full collection,
# which otherwise scans them all again while every socket of the process waits.
gc.freeze()
# A full collection still scans every open socket's objects: some 140 ms with 1,000 sockets, about every
# 15 s during play, while every socket of the process waits (docs/benchmarks.md). It comes after ten
# collections of the middle generation; after a hundred it comes a tenth as often, and the garbage it
# finds (cycles that lived through two collections) waits a little longer. (daphne's young collections:
# config/serve.py.)
gc.set_threshold(*gc.get_threshold()[:2], FULL_COLLECTION_AFTER)
trace.watch_pauses("daphne")
probe.install()


def _pformat_if_logged(value) -> str:
    return pprint.pformat(value) if txaio.get_global_log_level() in ("debug", "trace") else ""


# autobahn pretty-prints each new socket's options for a debug line, and does it with debug logging off too:
# about 0.2 ms a socket, so a thousand sockets connecting at once held daphne's loop some 200 ms
# (docs/benchmarks.md). Its other uses (its timings' text, a client's handshake) are debug lines too.
autobahn.websocket.protocol.pformat = _pformat_if_logged
