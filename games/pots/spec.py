from django.utils.translation import gettext_lazy as _

from games.pots import engine
from games.registry import GameSpec, register

# How long the table tells an update, in seconds: each card (its flight included; quicker when more than
# `quickOver` cards come at once, a deal), a word (a stop, a spill...), and the pause on a finished hand
# before the next deal. The table reads it from the room page (table_settings); the server waits it out
# before a bot's next decision and adds it to the countdown that update poses.
TABLE_PACE = {"card": 0.42, "fly": 0.32, "quickCard": 0.26, "quickFly": 0.21, "quickOver": 6, "word": 0.45, "hand": 1.2}
# Events told without a pause of their own.
QUIET_EVENTS = {"reshuffled", "game_over", "discarded", "saucer_given"}


def showing_seconds(events) -> float:
    cards = sum(1 for event in events if event["type"] == "card")
    card = TABLE_PACE["quickCard"] if cards > TABLE_PACE["quickOver"] else TABLE_PACE["card"]
    total = 0.0
    for event in events:
        if event["type"] == "hand":
            total += TABLE_PACE["hand"] if event["hand"] > 1 else 0.0  # the first deal starts at once
        elif event["type"] == "card":
            total += card
        elif event["type"] not in QUIET_EVENTS:
            total += TABLE_PACE["word"]
    return total


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
        showing_seconds=showing_seconds,
        table_settings={"pace": TABLE_PACE},
        refusals={"not_a_target": _("that player cannot be chosen for this card")},
    )
)
