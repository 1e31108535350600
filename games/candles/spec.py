from django.utils.translation import gettext_lazy as _

from games.candles import engine
from games.registry import GameSpec, Option, register

SPEC = register(
    GameSpec(
        slug="candles",
        name=_("Candles"),
        tagline=_("The wax shelf game: six rounds, least wax wins."),
        engine=engine,
        min_seats=engine.MIN_SEATS,
        max_seats=engine.MAX_SEATS,
        default_seats=4,
        options={"round_seconds": Option(choices=(15, 30, 60), default=30, label=_("Round timer (seconds)"))},
        timer_option="round_seconds",
        refusals={
            "already_picked": _("you have already picked a candle this round"),
            "not_in_hand": _("that candle is not in your hand"),
        },
    )
)
