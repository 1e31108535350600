"""Which games the site offers, and what the platform needs to know about each one.

Engines stay pure; this module is the Django side of the contract: names, seat ranges, options and
the decision timer. Each game app registers its spec in `games/<slug>/spec.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType


@dataclass(frozen=True)
class Option:
    choices: tuple
    default: object
    label: object = ""  # a lazy translated string


@dataclass(frozen=True)
class GameSpec:
    slug: str
    name: object  # lazy translated
    tagline: object
    engine: ModuleType
    min_seats: int
    max_seats: int
    default_seats: int
    options: dict[str, Option] = field(default_factory=dict)
    timer_option: str | None = None  # the option giving the decision countdown in seconds
    timer_seconds: int = 30  # used when there is no timer option
    # The engine's refusal codes in the players' words (lazy translated); rooms/ words the common ones.
    refusals: dict[str, object] = field(default_factory=dict)

    def clean_options(self, raw: dict | None) -> dict:
        """Options with defaults filled in; raises ValueError naming the first bad one."""
        raw = dict(raw or {})
        unknown = set(raw) - set(self.options)
        if unknown:
            raise ValueError(f"unknown option: {sorted(unknown)[0]}")
        cleaned = {}
        for name, option in self.options.items():
            value = raw.get(name, option.default)
            if value not in option.choices:
                raise ValueError(f"option {name} must be one of {list(option.choices)}")
            cleaned[name] = value
        return cleaned

    def decision_seconds(self, options: dict) -> int:
        if self.timer_option:
            return int(options[self.timer_option])
        return self.timer_seconds


_GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> GameSpec:
    _GAMES[spec.slug] = spec
    return spec


def get(slug: str) -> GameSpec:
    _load()
    return _GAMES[slug]


def all_games() -> list[GameSpec]:
    _load()
    return list(_GAMES.values())


def _load() -> None:
    if not _GAMES:
        from importlib import import_module

        from django.conf import settings

        for slug in settings.WICKWISE_GAMES:
            import_module(f"games.{slug}.spec")
