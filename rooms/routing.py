from django.urls import re_path

from rooms.consumers import RoomConsumer

websocket_urlpatterns = [re_path(r"^ws/rooms/(?P<code>[A-Za-z0-9]{6})/$", RoomConsumer.as_asgi())]
