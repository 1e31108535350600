from django.urls import path

from games import views

urlpatterns = [
    path("verify/", views.verify, name="verify"),
    path("how-to-play/<slug:game>/", views.how_to_play, name="how_to_play"),
]
