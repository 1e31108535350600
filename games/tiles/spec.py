from django.utils.translation import gettext_lazy as _

from games.registry import GameSpec, register
from games.tiles import engine


def _draft_unchanged(state: dict, draft: dict) -> bool:
    """Whether a draft (already checked by engine.check_draft) leaves the table as the turn found it."""
    return sorted(list(tile) for tile in draft["table"]) == state["table"]


SPEC = register(
    GameSpec(
        slug="tiles",
        name=_("Tiles"),
        tagline=_("The tile game on a grid: lay runs and groups, cross them, and be the first to empty your hand."),
        engine=engine,
        min_seats=2,
        max_seats=4,
        default_seats=2,
        timer_seconds=180,
        table_scripts=("tiles/rules.js",),
        start_when_full=True,
        three_ways=True,
        pausable=True,
        drafts=True,
        undo_draft_before=frozenset({"draw", "pass"}),
        draft_unchanged=_draft_unchanged,
        refusals={
            "wrong_phase": _("that is not a move for this moment of the game"),
            "not_in_play": _("you are no longer in play in this game"),
            "bad_table": _("the table is malformed: each tile once, as [tile, column, row], on a free cell of the "
                           "board"),
            "table_tile_missing": _("every tile on the table must stay on the table"),
            "not_your_tile": _("that tile is neither on the table nor in your hand"),
            "nothing_added": _("a play must add at least one tile from your hand"),
            "invalid_table": _("some lines on the table are not valid sets"),
            "bag_empty": _("the bag is empty: pass instead"),
            "bag_not_empty": _("there are tiles in the bag: draw instead"),
        },
    )
)
