from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TrailsConfig(AppConfig):
    name = "games.trails"
    label = "trails"
    verbose_name = _("Trails")
