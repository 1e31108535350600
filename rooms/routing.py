from django.urls import re_path

from rooms import move_queue
from rooms.consumers import RoomConsumer

websocket_urlpatterns = [re_path(r"^ws/rooms/(?P<code>[A-Za-z0-9]{6})/$", RoomConsumer.as_asgi())]

if move_queue.mount_bench_kinds():  # the live-play benchmark's baselines; never in production
    from bench import echo

    websocket_urlpatterns += echo.websocket_urlpatterns
