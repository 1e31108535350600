from django.utils.translation import gettext_lazy as _

from games.candles import engine
from games.registry import GameSpec, Option, register

# The reveal's pace at full motion, in seconds: the pause on the shown picks, each placement (its flight
# included; a quicker step when more than `crowd` candles are placed), one flight, the slide of a
# collected shelf and the delay between its candles, and the pause before the final view. The table
# reads it from the room page (table_settings), so both sides count the same reveal.
REVEAL_PACE = {
    "reveal": 0.75, "step": 0.6, "crowd": 6, "crowdStep": 0.48, "fly": 0.42, "tip": 0.42, "tipStagger": 0.045,
    "settle": 0.25,
}


def reveal_seconds(events) -> float:
    """How long the table tells a round's reveal at full motion (`pace` in static/candles/table.js): the
    shown picks, each candle placed in turn, each shelf collected, and a last pause. The next round's
    countdown starts after it, so a reveal costs nobody time to pick, however many seats play."""
    places = [event for event in events if event["type"] == "place"]
    if not places:
        return 0.0
    pace = REVEAL_PACE
    step = pace["crowdStep"] if len(places) > pace["crowd"] else pace["step"]
    collecting = sum(pace["tip"] + pace["tipStagger"] * (len(place["taken"]) - 1)
                     for place in places if place["taken"])
    return pace["reveal"] + step * len(places) + collecting + pace["settle"]


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
        table_settings={"revealPace": REVEAL_PACE},
        refusals={
            "already_picked": _("you have already picked a candle this round"),
            "not_in_hand": _("that candle is not in your hand"),
        },
    )
)
