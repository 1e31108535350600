from django.utils.translation import gettext_lazy as _

from games.pots import engine
from games.registry import GameSpec, register

SPEC = register(
    GameSpec(
        slug="pots",
        name=_("Pots"),
        tagline=_("The honey pot game: draw or stop, never twice the same number, first past 200."),
        engine=engine,
        min_seats=engine.MIN_SEATS,
        max_seats=engine.MAX_SEATS,
        default_seats=4,
        timer_seconds=30,
        refusals={"not_a_target": _("that player cannot be chosen for this card")},
    )
)
