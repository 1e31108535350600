"""A candles bot that plays its lowest candle and says which process decided (the test checks it was not the
worker's own)."""

from __future__ import annotations

import os


def choose(view: dict, level: str = "strong") -> dict:
    return {"type": "play", "candle": min(view["hand"]), "decided_in": os.getpid()}
