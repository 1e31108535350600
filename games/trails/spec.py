from django.utils.translation import gettext_lazy as _

from games.registry import GameSpec, register
from games.trails import engine

# How long the table shows a throw, in seconds: the dice tumble and land (`roll`), and a fall is told over
# the map (`fall`). The table reads it from the room page (table_settings); the server waits it out before
# a bot's next decision and adds it to the countdown that throw poses, so a throw is seen before it is
# answered and watching it costs nobody time.
TABLE_PACE = {"roll": 0.66, "fall": 1.1}


def showing_seconds(events) -> float:
    thrown = next((event for event in events if event["type"] == "thrown"), None)
    if thrown is None:
        return 0.0
    return TABLE_PACE["roll"] + (TABLE_PACE["fall"] if thrown["busted"] else 0.0)


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
        showing_seconds=showing_seconds,
        table_settings={"pace": TABLE_PACE},
        refusals={
            "wrong_phase": _("that is not a move for this moment of the turn"),
            "not_a_choice": _("those trails are not a choice on the tray"),
        },
    )
)
