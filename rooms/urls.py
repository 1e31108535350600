from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from rooms import views

urlpatterns = [
    path("", views.home, name="home"),
    path("play/<slug:game>/new/", views.create_room, name="create_room"),
    path("play/<slug:game>/bots/", views.play_bots, name="play_bots"),
    path("play/<slug:game>/same-device/", views.play_same_device, name="play_same_device"),
    path("join/", views.join_room, name="join_room"),
    path("return/", views.return_to_game, name="return_to_game"),
    path("my-games/", views.my_games, name="my_games"),
    path("r/<str:code>/", views.room, name="room"),
    path("games/<str:code>/<int:number>/record.json", views.record, name="record"),
    # The program API takes JSON and no cookies, so it needs no CSRF token (docs/protocol.md).
    path("api/rooms/", csrf_exempt(views.api_create_room), name="api_create_room"),
    path("api/rooms/<str:code>/join/", csrf_exempt(views.api_join_room), name="api_join_room"),
    path("api/rooms/<str:code>/", views.api_room, name="api_room"),
]
