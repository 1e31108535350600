import os

from django.urls import re_path

from rooms.consumers import RoomConsumer

websocket_urlpatterns = [re_path(r"^ws/rooms/(?P<code>[A-Za-z0-9]{6})/$", RoomConsumer.as_asgi())]

if os.environ.get("WICKWISE_BENCH_ECHO") == "1":  # the live-play benchmark's baseline; never in production
    from bench import echo

    echo.mount()
    websocket_urlpatterns += echo.websocket_urlpatterns
