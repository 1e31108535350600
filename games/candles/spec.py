from django.utils.translation import gettext_lazy as _

from games.candles import engine
from games.registry import GameSpec, Option, register


def reveal_seconds(events) -> float:
    """How long the table tells a round's reveal at full motion (`pace` in static/candles/table.js): the
    shown picks, each candle placed in turn, each shelf collected, and a last pause. The next round's
    countdown starts after it, so a reveal costs nobody time to pick, however many seats play."""
    places = [event for event in events if event["type"] == "place"]
    if not places:
        return 0.0
    step = 0.48 if len(places) > 6 else 0.6
    collecting = sum(0.42 + 0.045 * (len(place["taken"]) - 1) for place in places if place["taken"])
    return 0.75 + step * len(places) + collecting + 0.25


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
        showing_seconds=reveal_seconds,
        refusals={
            "already_picked": _("you have already picked a candle this round"),
            "not_in_hand": _("that candle is not in your hand"),
        },
    )
)
