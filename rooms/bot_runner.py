"""The bridge between the platform and each game's bot module: bots/<game>.py's choose(view, level)."""

from importlib import import_module


def choose(game: str, view: dict, level: str) -> dict:
    return import_module(f"bots.{game}").choose(view, level)
