from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from rooms import views
from rooms.throttle import json_only, throttled

creating, joining, returning = throttled("create"), throttled("join"), throttled("return")
looking_up = throttled("lookup", methods=("GET", "HEAD"))

urlpatterns = [
    path("", views.home, name="home"),
    path("play/<slug:game>/new/", creating(views.create_room), name="create_room"),
    path("play/<slug:game>/bots/", creating(views.play_bots), name="play_bots"),
    path("play/<slug:game>/same-device/", creating(views.play_same_device), name="play_same_device"),
    path("join/", joining(views.join_room), name="join_room"),
    path("return/", returning(views.return_to_game), name="return_to_game"),
    path("my-games/", views.my_games, name="my_games"),
    path("r/<str:code>/", looking_up(views.room), name="room"),
    path("games/<str:code>/<int:number>/record.json", looking_up(views.record), name="record"),
    # The program API takes JSON and no cookies, so it needs no CSRF token (docs/protocol.md); it takes
    # nothing but application/json, so a cross-site form cannot post to it either.
    path("api/rooms/", csrf_exempt(json_only(creating(views.api_create_room))), name="api_create_room"),
    path("api/rooms/<str:code>/join/", csrf_exempt(json_only(joining(views.api_join_room))), name="api_join_room"),
    path("api/rooms/<str:code>/", looking_up(views.api_room), name="api_room"),
]
