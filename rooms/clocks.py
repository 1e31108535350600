"""Each seat's time used and the game's total time, kept on the game (`Game.clocks`).

A seat's clock runs while it has a timed decision pending; the total runs while any timed decision is
pending. Neither runs while the game is paused or over, nor during a decision without a countdown (a
chooser's "Start the game"). The stored form says what runs since when, so a client ticks it itself:
`{"used": [seconds per seat], "total": seconds, "running": [seats], "since": unix time or null}`.
"""

from __future__ import annotations


def _rounded(seconds: float) -> float:
    return round(seconds, 3)


def settle(game, now: float) -> None:
    """Add the time since the clocks last started to what was running, and stop them."""
    clocks = game.clocks or {}
    used = list(clocks.get("used") or [0.0] * len(game.players))
    total = clocks.get("total", 0.0)
    since = clocks.get("since")
    if since is not None:
        spent = max(0.0, now - since)
        total += spent
        for seat in clocks.get("running", []):
            used[seat] += spent
    game.clocks = {"used": [_rounded(s) for s in used], "total": _rounded(total), "running": [], "since": None}


def restart(game, seats, now: float) -> None:
    """Settle, then run the clocks of `seats` (and the total) from now; nothing runs when `seats` is empty."""
    settle(game, now)
    if seats:
        game.clocks["running"] = sorted(seats)
        game.clocks["since"] = now


def read(clocks: dict | None, now: float) -> dict:
    """The clocks as they stand at `now`: for tests and programs that do not tick them themselves."""
    clocks = clocks or {}
    used = list(clocks.get("used") or [])
    total = clocks.get("total", 0.0)
    if clocks.get("since") is not None:
        spent = max(0.0, now - clocks["since"])
        total += spent
        for seat in clocks.get("running", []):
            used[seat] += spent
    return {"used": used, "total": total}
