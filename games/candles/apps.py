from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CandlesConfig(AppConfig):
    name = "games.candles"
    label = "candles"
    verbose_name = _("Candles")
