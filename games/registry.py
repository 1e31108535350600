"""Which games the site offers, and what the platform needs to know about each one.

Engines stay pure; this module is the Django side of the contract: names, seat ranges, options and
the decision timer. Each game app registers its spec in `games/<slug>/spec.py`.
"""

from __future__ import annotations

from collections.abc import Callable
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
    # Seconds the table takes to show a move's events (a reveal told candle by candle, say). The countdown
    # of a decision that move poses starts after them, so watching the table costs nobody thinking time.
    showing_seconds: Callable[[list[dict]], float] | None = None
    # The game starts by itself the moment the last free seat is taken (the host may still start earlier,
    # with bots in the empty seats).
    start_when_full: bool = False
    # The home page offers the three ways to play: against the AI, on one device passed around, and online.
    # (Any game may be played on one device; this says the home page offers it.)
    three_ways: bool = False
    # Any seat in play may pause and resume from the socket.
    pausable: bool = False
    # The seat to act shares its unfinished decision as it goes (a `draft`): checked by `engine.check_draft`,
    # kept in Redis, relayed to the room.
    drafts: bool = False
    # Action types refused from a player while its live draft is not `draft_unchanged` (undo first).
    undo_draft_before: frozenset[str] = frozenset()
    draft_unchanged: Callable[[dict, dict], bool] | None = None
    # Values the server and the game's table must agree on (the pace that showing_seconds counts, say):
    # the room page hands them to the table as ctx.settings, so they are written once, here.
    table_settings: dict[str, object] = field(default_factory=dict)
    # Static scripts the table needs before its table.js (tiles: its rules, to judge a draft as it is made).
    table_scripts: tuple[str, ...] = ()

    def clean_options(self, raw: dict | None) -> dict:
        """Options with defaults filled in; raises ValueError naming the first bad one."""
        raw = dict(raw or {})
        unknown = set(raw) - set(self.options)
        if unknown:
            raise ValueError(f"unknown option: {sorted(unknown)[0]}")
        cleaned = {}
        for name, option in self.options.items():
            value = raw.get(name, option.default)
            # Exactly one of the choices, of its own type: 30.0 and True equal 30 and 1 in Python, and a game
            # whose options held a float refused every move that named one (a candle 37.0, say).
            if not any(type(value) is type(choice) and value == choice for choice in option.choices):
                raise ValueError(f"option {name} must be one of {list(option.choices)}")
            cleaned[name] = value
        return cleaned

    def decision_seconds(self, options: dict) -> int:
        if self.timer_option:
            return int(options[self.timer_option])
        return self.timer_seconds

    def countdown_seconds(self, options: dict, events) -> float:
        """The countdown of a decision posed by a move with these events: the time to show them, then
        the decision's own time."""
        showing = self.showing_seconds(events) if self.showing_seconds else 0.0
        return self.decision_seconds(options) + showing

    # --- the engine's optional hooks (games that do not define them get the defaults) ---------------

    def out_of_turn(self, action) -> bool:
        """Whether a seat that is not to act may send this action (resign, say)."""
        allowed = getattr(self.engine, "OUT_OF_TURN", None)
        return bool(allowed) and isinstance(action, dict) and action.get("type") in allowed

    def allowed_while_paused(self, action) -> bool:
        allowed = getattr(self.engine, "WHILE_PAUSED", None)
        return bool(allowed) and isinstance(action, dict) and action.get("type") in allowed

    def timed(self, state: dict) -> bool:
        """Whether the decisions now posed get a countdown."""
        timed = getattr(self.engine, "timed", None)
        return True if timed is None else bool(timed(state))

    def in_play(self, state: dict) -> list[int]:
        """The seats still playing: they may pause and resume."""
        in_play = getattr(self.engine, "in_play", None)
        if in_play is not None:
            return list(in_play(state))
        return [] if self.engine.outcome(state) is not None else list(range(state["seats"]))


_GAMES: dict[str, GameSpec] = {}
_loaded = False


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
    # Every game once, even when a spec was imported on its own first and so registered already.
    global _loaded
    if _loaded:
        return
    from importlib import import_module

    from django.conf import settings

    for slug in settings.WICKWISE_GAMES:
        import_module(f"games.{slug}.spec")
    _loaded = True
