"""Drafts: the seat to act shares its unfinished decision as it goes (tiles: its table after each drop).

A draft decides nothing; only a move does. Daphne checks it cheaply, without the move service or the worker:
one read of the game, the seat and seq checks a move gets, and the engine's `check_draft`. The latest draft
of a game is kept in Redis and relayed to the room; a snapshot carries it, so a reloaded page gets it back.
It belongs to the decision it was made for (the seat's prompt): a move that ends that decision discards
it, a pause copies it into the database (`Game.paused_draft`) and resume puts it back.
"""

from __future__ import annotations

import json

from django.utils.translation import gettext as _

from games import registry
from games.errors import IllegalAction
from rooms import live
from rooms.models import Game
from rooms.services import ServiceError, refusal_text

KEEP_SECONDS = 7 * 24 * 3600  # a draft outlives any decision it belongs to; the key must not outlive the game
PER_SECOND = 5.0  # each socket's drafts: a few a second, with short bursts (a drag of several tiles)
BURST = 10.0

# Delete the draft unless the decision it was made for is still pending: ARGV[1] is the game's prompts.
_DISCARD_STALE = """
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local draft = cjson.decode(raw)
local prompts = cjson.decode(ARGV[1])
if prompts[tostring(draft.seat)] ~= draft.prompt then redis.call('DEL', KEYS[1]) return 1 end
return 0
"""


def _key(game_id: int) -> str:
    return live.key("draft", game_id)


def public(record: dict | None) -> dict | None:
    """What the room sees of a kept draft."""
    if record is None:
        return None
    return {"seat": record["seat"], "seq": record["seq"], "draft": record["draft"]}


def accept(*, room_code: str, seat: int, seq, draft) -> dict:
    """Check a draft against the game as it stands and keep it; returns it as the room sees it.
    Raises ServiceError (nothing kept) for a draft that is not the seat's to make or that the engine refuses."""
    row = (Game.objects.filter(room__code=room_code).order_by("-number")
           .values("pk", "game", "status", "seq", "prompts", "paused_remaining", "state").first())
    if row is None or row["status"] != Game.Status.PLAYING:
        raise ServiceError("not_playing", _("There is no game in play."))
    spec = registry.get(row["game"])
    if not spec.drafts:
        raise ServiceError("no_drafts", _("This game takes no drafts."))
    if row["paused_remaining"] is not None:
        raise ServiceError("paused", _("The game is paused."))
    prompt = row["prompts"].get(str(seat))
    if prompt is None:
        raise ServiceError("not_your_turn", _("It is not your turn to decide."))
    if type(seq) is not int or not prompt <= seq <= row["seq"]:
        raise ServiceError("stale_seq", _("That move answers an old position; here is the current one."))
    if not isinstance(draft, dict):
        raise ServiceError("bad_draft", _("That draft is not allowed: %(reason)s") % {
            "reason": _("a draft is a JSON object")})
    try:
        spec.engine.check_draft(row["state"], seat, draft)
    except IllegalAction as error:
        raise ServiceError(f"bad_draft:{error.code}", _("That draft is not allowed: %(reason)s") % {
            "reason": refusal_text(spec, error)}) from None
    record = {"seat": seat, "seq": seq, "prompt": prompt, "draft": draft}
    live.client().set(_key(row["pk"]), json.dumps(record, separators=(",", ":")), ex=KEEP_SECONDS)
    return public(record)


def kept(game: Game) -> dict | None:
    """The game's live draft, if the decision it was made for is still pending (a draft checked just before
    a move and written just after it is stale, and so is left out)."""
    raw = live.client().get(_key(game.pk))
    if raw is None:
        return None
    record = json.loads(raw)
    if game.prompts.get(str(record["seat"])) != record["prompt"]:
        return None
    return record


def shown(game: Game) -> dict | None:
    """The draft a snapshot carries: the paused one from the database, else the live one."""
    if game.is_paused:
        return public(game.paused_draft)
    if game.status != Game.Status.PLAYING or not registry.get(game.game).drafts:
        return None
    return public(kept(game))


def discard_stale(game_id: int, prompts: dict) -> None:
    live.client().eval(_DISCARD_STALE, 1, _key(game_id), json.dumps(prompts))


def discard(game_id: int) -> None:
    live.client().delete(_key(game_id))


def restore(game_id: int, record: dict) -> None:
    live.client().set(_key(game_id), json.dumps(record, separators=(",", ":")), ex=KEEP_SECONDS)
