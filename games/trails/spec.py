from django.utils.translation import gettext_lazy as _

from games.registry import GameSpec, register
from games.trails import engine

SPEC = register(
    GameSpec(
        slug="trails",
        name=_("Trails"),
        tagline=_("The dice climbing game: push your luck up eleven trails, three landmarks win."),
        engine=engine,
        min_seats=engine.MIN_SEATS,
        max_seats=engine.MAX_SEATS,
        default_seats=2,
        timer_seconds=40,
        refusals={
            "wrong_phase": _("that is not a move for this moment of the turn"),
            "not_a_choice": _("those trails are not a choice on the tray"),
        },
    )
)
