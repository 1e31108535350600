from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RoomsConfig(AppConfig):
    name = "rooms"
    verbose_name = _("Rooms")

    def ready(self):
        from rooms import positions

        positions.connect_signals()
