"""The bridge between the platform and each game's bot module: bots/<game>.py's choose(view, level).

A game whose bots search against the clock gets its time limit from the settings
(WICKWISE["BOT_TIME_LIMITS"]), passed in, so that the bot modules stay free of Django."""

from importlib import import_module

from django.conf import settings


def choose(game: str, view: dict, level: str) -> dict:
    module = import_module(f"bots.{game}")
    limit = settings.WICKWISE.get("BOT_TIME_LIMITS", {}).get(game)
    if limit is None:
        return module.choose(view, level)
    return module.choose(view, level, time_limit=limit)
