import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
django_http = get_asgi_application()  # sets Django up before the consumers are imported

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from rooms import trace  # noqa: E402
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
trace.watch_pauses("daphne")
