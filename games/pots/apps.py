from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PotsConfig(AppConfig):
    name = "games.pots"
    label = "pots"
    verbose_name = _("Pots")
